"""``virtualize-phys-regs``: application registers a payload reads or writes become
virtual registers tied to their homes at the payload's entry and exit.

After selection, a hook's ``instr.read_reg``/``write_reg`` are ``instr.mc_intrinsic``
ops. Each read becomes a copy at the payload's entry (``%5 = v3``), so the payload sees
the application's value however the payload's own code moves EXEC or SCC later. Each
write goes to a shadow virtual register that starts as the register's value and is copied
back at the exit (``v3 = %9``), so a write inside one side of an ``scf.if`` leaves the
register unchanged on the other. The allocator then gives the copies' virtual registers
the application registers themselves where that is free, and the copies vanish.

A register the target does not have (``v300``, ``a0`` without AGPRs) fails with a
diagnostic naming the hook, the function and the instruction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.instr.points import describe_point, enclosing_code_object, payloads
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.lowering.isel.intrinsics import register_class_of
from luthier.lowering.progress import over
from luthier.passes.instrument.copies import (
    copy_between,
    copy_from,
    copy_to,
    register_exists,
)


def max_vreg(payload: PayloadOp) -> int:
    """The highest virtual register number the payload uses (-1 when none)."""
    highest = -1
    for op in payload.body.walk():
        attrs = [*op.properties.values()]
        for attr in attrs:
            for element in getattr(attr, "data", ()) if not isinstance(attr, VirtRegAttr) \
                    else (attr,):
                if isinstance(element, VirtRegAttr):
                    highest = max(highest, element.number)
    return highest


def exit_block(payload: PayloadOp) -> Block:
    for block in payload.body.blocks:
        if isinstance(block.last_op, ReturnOp):
            return block
    raise PassFailedException(f"{describe_point(payload)}: the payload has no instr.return")


def _register(op: MCIntrinsicOp) -> str:
    attr = op.param("register")
    assert isinstance(attr, StringAttr)
    return attr.data


#: The lane masks a hook reads as 64-bit values: in wave32, the wave's are their low halves
#: (the high halves are not the wave's), so a read gives the low half and a zero high half.
_LANE_MASKS = {"exec": "exec_lo", "vcc": "vcc_lo"}


def virtualize(payload: PayloadOp, processor: str, wavefront_size: int | None = None) -> None:
    builder = InstBuilder(processor, wavefront_size)
    isa = load_target(processor, wavefront_size)
    wave32 = isa.wavefront_size == 32
    intrinsics = [op for op in payload.body.walk() if isinstance(op, MCIntrinsicOp)
                  and op.intrinsic.data in ("read_reg", "write_reg")]
    if not intrinsics:
        return
    entry = payload.body.blocks.first
    assert entry is not None
    entry_copies: list[Operation] = []
    exit_copies: list[Operation] = []
    shadows: dict[str, VirtRegAttr] = {}
    next_number = max_vreg(payload) + 1
    for op in intrinsics:
        name = _register(op)
        if not register_exists(isa, name):
            raise PassFailedException(f"virtualize-phys-regs: {describe_point(payload)}: "
                                      f"{name} is not a register of {processor}")
        if op.intrinsic.data == "read_reg":
            destination = op.def_registers[0]
            assert isinstance(destination, VirtRegAttr)
            if wave32 and name in _LANE_MASKS:
                entry_copies += [builder.inst("s_mov_b32", [destination.part(0),
                                                            reg(_LANE_MASKS[name])]),
                                 builder.inst("s_mov_b32", [destination.part(1), 0])]
            else:
                entry_copies.extend(copy_from(builder, destination, name))
            op.detach()
            op.erase()
            continue
        shadow = shadows.get(name)
        _, register_class = register_class_of(name)
        if shadow is None:
            shadow = shadows[name] = VirtRegAttr.of(next_number, register_class)
            next_number += 1
            entry_copies.extend(copy_from(builder, shadow, name))
            exit_copies.extend(copy_to(builder, name, shadow))
        source = op.use_registers[0]
        assert isinstance(source, VirtRegAttr)
        units = load_target(processor).register_classes[register_class].width // 32
        block = op.parent_block()
        assert block is not None
        for copy in copy_between(builder, shadow, source, register_class, units):
            block.insert_op_before(copy, op)
        op.detach()
        op.erase()
    first = entry.first_op
    for copy in entry_copies:
        if first is None:
            entry.add_op(copy)
        else:
            entry.insert_op_before(copy, first)
    last = exit_block(payload).last_op
    assert last is not None
    for copy in exit_copies:
        exit_block(payload).insert_op_before(copy, last)


@dataclass(frozen=True)
class VirtualizePhysRegsPass(ModulePass):
    """Turn register reads and writes of every payload into entry and exit copies."""

    name = "virtualize-phys-regs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        virtualize_payloads(list(payloads(op)))


def virtualize_payloads(targets: Sequence[PayloadOp]) -> None:
    """Virtualize the application registers ``targets`` read and write."""
    for payload in over("virtualize-phys-regs", targets, "payload"):
        code_object = enclosing_code_object(payload)
        assert code_object is not None
        virtualize(payload, *code_object.target_key)
