"""VOPD (GFX11+): two VALU operations issued as one instruction, ``v_dual_X ... :: v_dual_Y``.

Each half is an ordinary VOP1/VOP2 operation (``v_dual_mul_f32`` is ``v_mul_f32_e32``,
``v_dual_fmaak_f32`` ``v_fmaak_f32``) on its own operands (``vdstX``, ``src0X``,
``vsrc1X``...; the literal of ``fmaak``/``fmamk`` in ``imm``), so each compiles with the
builder of its operation. Both halves read their operands before either writes: the
hardware issues them together. The encoding forbids the halves to write the same register
(their destinations differ in bank), so running X, then Y with X's destination put back as
it was, then writing X's result gives exactly that.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import numpy as np

from luthier.amdgpu_dialects.isa.target import InstrDef, load_target
from luthier.emulator.errors import EmulationError
from luthier.emulator.semantics.registry import Instruction, Step, failing
from luthier.emulator.semantics.renames import canonical_mnemonic
from luthier.emulator.state import Wave

#: The operation's slot for each slot of a half (``X`` or ``Y`` appended).
_SLOTS = {"vdst": "vdst", "src0": "src0", "vsrc1": "src1", "src2": "src2"}


def _component(inst: Instruction, side: str) -> Instruction:
    """Half ``side`` (``X`` or ``Y``) of the VOPD ``inst`` as an instruction of its own."""
    from luthier.emulator.program import semantics_of  # the table, complete once imported

    text = inst.desc.asm.split("::")[0 if side == "X" else 1].split()[0]
    operation = "v_" + text.removeprefix("v_dual_")
    program = inst.program
    if program is None:
        raise inst.unsupported("VOPD needs the program's target")
    operations = _operations(program.processor, program.wave_size)
    desc = operations.get(f"{operation}_e32") or operations.get(operation)
    if desc is None:
        raise inst.unsupported(f"no {operation} operation for its {side} half")
    operands: dict[str, Any] = {}
    for slot, name in _SLOTS.items():
        value = inst.operands.get(slot + side)
        if value is not None and desc.has(name):
            operands[name] = value
    if desc.has("imm"):
        literal = inst.operands.get("imm", inst.operands.get("immDeferred"))
        operands["imm"] = literal
    mnemonic = canonical_mnemonic(desc.mnemonic)
    if semantics_of(mnemonic) is None:
        raise inst.unsupported(f"its {side} half, {desc.mnemonic}, has no semantics")
    return replace(inst, mnemonic=mnemonic, desc=desc, operands=operands,
                   written=inst.written or inst.mnemonic)


@functools.cache
def _operations(processor: str, wave_size: int) -> dict[str, InstrDef]:
    """The target's instruction records by mnemonic (the first of each)."""
    found: dict[str, InstrDef] = {}
    for desc in load_target(processor, wave_size).by_name.values():
        found.setdefault(desc.mnemonic, desc)
    return found


def vopd_builder(inst: Instruction) -> Step:
    """Both halves of ``inst``, reading before writing."""
    from luthier.emulator.program import semantics_of

    try:
        halves = [_component(inst, side) for side in ("X", "Y")]
    except EmulationError as error:
        return failing(str(error))
    steps: list[Step] = []
    for half in halves:
        builder = semantics_of(half.mnemonic)
        assert builder is not None
        steps.append(builder(half))
    run_x, run_y = steps
    _, x_register, _ = halves[0].vdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        before = np.array(wave.v[x_register], copy=True)
        run_x(wave)
        after = np.array(wave.v[x_register], copy=True)
        wave.v[x_register] = before
        run_y(wave)
        wave.v[x_register] = after
        return following

    return step
