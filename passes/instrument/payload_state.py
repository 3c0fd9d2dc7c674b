"""``save-payload-state``: the payload's prologue and epilogue for SCC, VCC and M0.

Machine code changes these registers as a side effect (every ``s_add_u32`` writes SCC).
When a payload writes one that the application still needs at its point (live before the
instrumented instruction, or read by a later payload there), the payload saves it on entry
into a virtual register and restores it just before its exit: SCC as 0/1 through
``s_cselect_b32``/``s_cmp_lg_u32``, VCC and M0 with ``s_mov``. A register the hook writes
on purpose (``writes``) is left as the hook leaves it. Nothing is saved where nothing is
needed: the instruction counter before an instruction that overwrites SCC costs no
save/restore.

EXEC is not handled here: selection only changes it in balanced pairs (``s_and_saveexec``
... ``s_mov_b64 exec, saved``), which the verifier checks.

This runs before register allocation, so the save slots are virtual registers that the
allocator places like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import units_of
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.instr.points import instrumented_instruction, payloads
from luthier.amdgpu_dialects.isa.target import TargetISA, load_target
from luthier.passes.analysis.liveness import Liveness
from luthier.passes.instrument.virtualize import exit_block, max_vreg

#: Registers saved around a payload, in restore order (SCC last: the others' restores
#: are ``s_mov``, which leave SCC alone).
SAVED = ("vcc", "m0", "scc")


def written_units(payload: PayloadOp, isa: TargetISA) -> int:
    """Units the payload's instructions write (explicit physical defs and implicit defs)."""
    units = 0
    for op in payload.body.walk():
        if not isinstance(op, InstructionOpBase):
            continue
        desc = op.instr_def(isa)
        if desc is None:
            continue
        for name in desc.defs:
            units |= units_of(name.lower())
        for slot, attr in zip(desc.operands, op.mc_operands.data, strict=False):
            if slot.is_def and isinstance(attr, PhysRegAttr):
                units |= units_of(attr.data)
    return units


def read_units(payload: PayloadOp) -> int:
    """Physical units a payload names as operands (what it may read)."""
    units = 0
    for op in payload.body.walk():
        if isinstance(op, InstructionOpBase):
            for attr in op.mc_operands.data:
                if isinstance(attr, PhysRegAttr):
                    try:
                        units |= units_of(attr.data)
                    except ValueError:
                        continue
    return units


def intended_units(payload: PayloadOp) -> int:
    writes = payload.attributes.get("writes")
    units = 0
    if isinstance(writes, ArrayAttr):
        for name in cast(ArrayAttr[Attribute], writes).data:
            if isinstance(name, StringAttr):
                units |= units_of(name.data)
    return units


def _save(builder: InstBuilder, name: str, slot: VirtRegAttr) -> Operation:
    if name == "scc":
        return builder.inst("s_cselect_b32", [slot, 1, 0])
    return builder.inst("s_mov_b64" if name == "vcc" else "s_mov_b32", [slot, reg(name)])


def _restore(builder: InstBuilder, name: str, slot: VirtRegAttr) -> Operation:
    if name == "scc":
        return builder.inst("s_cmp_lg_u32", [slot, 0])
    return builder.inst("s_mov_b64" if name == "vcc" else "s_mov_b32", [reg(name), slot])


def save_state(code_object: CodeObjectOp, liveness: Liveness,
               targets: list[PayloadOp]) -> None:
    isa = load_target(*code_object.target_key)
    builder = InstBuilder(*code_object.target_key)
    later_reads: dict[int, int] = {}
    for payload in reversed(targets):
        point = instrumented_instruction(payload)
        if point is None:
            continue
        key = id(point)
        needed = liveness.live_before(point) | later_reads.get(key, 0)
        later_reads[key] = later_reads.get(key, 0) | read_units(payload)
        clobbered = written_units(payload, isa) & needed & ~intended_units(payload)
        insert_saves(payload, saved_registers(clobbered), builder)


def saved_registers(clobbered: int) -> tuple[str, ...]:
    """Which of SCC, VCC and M0 a payload that clobbers ``clobbered`` (units it writes that
    are needed after it) saves, in :data:`SAVED` order."""
    return tuple(name for name in SAVED if clobbered & units_of(name))


def insert_saves(payload: PayloadOp, names: tuple[str, ...], builder: InstBuilder) -> None:
    """Save ``names`` into fresh virtual registers at the payload's entry and restore them
    before its ``instr.return``."""
    if not names:
        return
    number = max_vreg(payload) + 1
    entry = payload.body.blocks.first
    exit_ = exit_block(payload)
    assert entry is not None and exit_.last_op is not None
    for name in names:
        slot = VirtRegAttr.of(number, "SReg_64" if name == "vcc" else "SReg_32")
        number += 1
        first = entry.first_op
        assert first is not None
        entry.insert_op_before(_save(builder, name, slot), first)
        exit_.insert_op_before(_restore(builder, name, slot), exit_.last_op)


@dataclass(frozen=True)
class SavePayloadStatePass(ModulePass):
    """Save and restore SCC, VCC and M0 around payloads that clobber them where needed."""

    name = "save-payload-state"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in [child for child in op.ops if isinstance(child, CodeObjectOp)]:
            targets = list(payloads(code_object))
            if targets:
                save_state(code_object, Liveness(code_object), targets)
