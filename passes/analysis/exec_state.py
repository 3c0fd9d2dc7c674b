"""Where EXEC may hold fewer lanes than the function started with.

A VALU write changes only the lanes EXEC holds. Inside a divergent region (after
``s_and_saveexec_b64``, before the matching ``s_or_b64 exec, exec, s[..]``) a write leaves
the other lanes' old value in place, and those lanes read it again once EXEC is restored, so
such a write does not end the value. Liveness asks, for each instruction, whether EXEC is
*full* there: known to hold every lane it held at function entry.

The forward analysis tracks one fact per point: EXEC is full or may be partial, plus which
SGPRs hold a saved copy of a full EXEC. The compiler's pattern is recognised:
``s_and_saveexec_b64 sX`` / ``s_or_saveexec_b64 sX`` / ``s_mov_b64 sX, exec`` save EXEC;
``s_or_b64 exec, exec, sX`` and ``s_mov_b64 exec, sX`` restore it; ``s_mov_b64 exec, -1`` and
``s_or_saveexec_b64 sX, -1`` make it full. Any other write of EXEC may make it partial. A join
is full only if every incoming edge is. A device function starts partial: its caller may
have lanes switched off, and those lanes' values must survive the callee.

The same patterns serve every generation and wave size: a wave32 wave's EXEC is ``exec_lo``
and the compiler saves and restores it with the ``_b32`` forms (``s_and_saveexec_b32 s0,
vcc_lo``, ``s_or_b32 exec_lo, exec_lo, s0``), and GFX11 renamed some of them
(``s_and_not1_saveexec_b32`` is GFX10's ``s_andn2_saveexec_b32``, GFX12's ``s_add_co_u32``
is ``s_add_u32``). :func:`mask_operation` names an instruction by LLVM's pseudo (the name
every generation's record shares) without its width, and only when that width is the
wave's: ``s_or_b32 exec_lo, ...`` is an EXEC restore in wave32, ``s_or_b64`` in wave64.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Attribute

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import LiteralAttr
from luthier.amdgpu_dialects.amdgpu_mc.register_units import SGPR_MASK, units_of
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.passes.analysis.effects import Effect, EffectTable


@dataclass(frozen=True, slots=True)
class ExecState:
    """EXEC is full (holds every lane it held at entry); SGPR units holding a full copy."""

    full: bool
    saved_full: int

    def join(self, other: ExecState) -> ExecState:
        return ExecState(self.full and other.full, self.saved_full & other.saved_full)


PARTIAL = ExecState(False, 0)
FULL = ExecState(True, 0)

def _register(attr: Attribute) -> str | None:
    return attr.data if isinstance(attr, PhysRegAttr) else None


def mask_operation(op: InstructionOpBase, effects: EffectTable) -> str:
    """``s_and_saveexec``, ``s_or``, ``s_mov``...: the generation-independent name of ``op``
    (LLVM's pseudo, else its mnemonic) less a ``_b32``/``_b64`` width that is the wave's
    lane-mask width; the whole name when the width is another (a 64-bit move in wave32 is
    no copy of EXEC) or when there is none."""
    desc = effects.isa.by_name.get(op.opcode.data)
    name = desc.pseudo if desc is not None and desc.pseudo else op.mnemonic
    suffix = f"_b{effects.isa.wavefront_size}"
    return name[:-len(suffix)] if name.endswith(suffix) else name


def _is_all_ones(attr: Attribute) -> bool:
    if isinstance(attr, IntAttr):
        return cast(int, attr.data) == -1  # pyright: ignore[reportUnknownMemberType]
    if isinstance(attr, LiteralAttr):
        return attr.data in (-1, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)
    return False


def step(state: ExecState, op: InstructionOpBase, effect: Effect,
         effects: EffectTable) -> ExecState:
    """The state after ``op``, given the state before it (``effects`` knows the wave)."""
    mnemonic = mask_operation(op, effects)
    exec_register = effects.exec_register
    operands = op.mc_operands.data
    full, saved = state.full, state.saved_full
    defs = effect.scalar_defs | effect.partial_defs
    new_saved = saved & ~defs
    names = [_register(attr) for attr in operands]
    if defs & SGPR_MASK and names:
        destination = names[0]
        if destination is not None and destination != exec_register:
            copies_exec = mnemonic.endswith("_saveexec") or (
                mnemonic == "s_mov" and len(names) > 1 and names[1] == exec_register)
            copies_saved = (mnemonic == "s_mov" and len(names) > 1 and names[1] is not None
                            and names[1] != exec_register and units_of(names[1]) & ~saved == 0)
            if (copies_exec and full) or copies_saved:
                new_saved |= units_of(destination) & SGPR_MASK
    if not effect.writes_exec:
        return ExecState(full, new_saved)
    return ExecState(_exec_full_after(mnemonic, exec_register, names, operands, saved),
                     new_saved)


def _exec_full_after(mnemonic: str, exec_register: str, names: list[str | None],
                     operands: tuple[Attribute, ...], saved: int) -> bool:
    def holds_full_copy(name: str | None) -> bool:
        return name is not None and name != exec_register and units_of(name) & ~saved == 0

    if mnemonic == "s_or" and names[:1] == [exec_register] and len(names) >= 3:
        sources = names[1:3]
        if exec_register in sources:
            other = sources[1] if sources[0] == exec_register else sources[0]
            return holds_full_copy(other)
        return False
    if mnemonic == "s_mov" and names[:1] == [exec_register] and len(operands) >= 2:
        return _is_all_ones(operands[1]) or holds_full_copy(names[1])
    if mnemonic == "s_or_saveexec" and len(operands) >= 2:
        return _is_all_ones(operands[1])
    return False
