"""``inline-hooks``: fill each ``instr.payload`` with its hook's body, arguments bound.

A payload names its hook and the arguments its insertion point passes; after this pass
its region is a copy of the hook's body in which every hook argument is replaced by what
the point passes: a constant becomes ``arith.constant``, an application register becomes
``instr.read_reg`` (the register's value as the point sees it). Nothing is called at run
time: each point gets its own copy, which later passes lower into the registers that are
dead there.

The payload also records, as ``writes``, the application registers the hook writes on
purpose (``instr.write_reg``): the allocator and the verifier must let those change.
Hooks stay in the module (a later run may insert them again); payloads that already have
a body are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.instr.attributes import (
    AddressArgAttr,
    ConstArgAttr,
    RegArgAttr,
    register_bits,
)
from luthier.amdgpu_dialects.instr.ops import HookOp, PayloadOp, ReadRegOp, WriteRegOp
from luthier.lowering.progress import over


def _address_value(arg: AddressArgAttr) -> list[Operation]:
    """Ops computing an access's i64 address: base (+ zext index) (+ offset)."""
    base = ReadRegOp.create(properties={"register": StringAttr(arg.base)}, result_types=[i64])
    ops: list[Operation] = [base]
    total: SSAValue = base.results[0]
    if arg.index:
        index = ReadRegOp.create(properties={"register": StringAttr(arg.index)},
                                 result_types=[i32])
        wide = arith.ExtUIOp(index.results[0], i64)
        add = arith.AddiOp(total, wide.result)
        ops += [index, wide, add]
        total = add.result
    if arg.offset:
        offset = arith.ConstantOp(IntegerAttr(arg.offset, i64))
        add = arith.AddiOp(total, offset.result)
        ops += [offset, add]
    return ops


def _argument_value(arg: Attribute, hook: HookOp, position: int) -> list[Operation]:
    """The ops that produce what the point passes for one hook argument (the last one's
    result is the value)."""
    if isinstance(arg, AddressArgAttr):
        return _address_value(arg)
    if isinstance(arg, ConstArgAttr) and arg.is_float:
        float_type = Float32Type() if arg.width == 32 else Float64Type()
        return [arith.ConstantOp(FloatAttr(arg.float_value, float_type))]
    if isinstance(arg, ConstArgAttr):
        value = arg.value
        if arg.width > 1 and value >= 1 << (arg.width - 1):
            value -= 1 << arg.width  # IntegerAttr wants the signed spelling
        return [arith.ConstantOp(IntegerAttr(value, IntegerType(arg.width)))]
    if isinstance(arg, RegArgAttr):
        return [ReadRegOp.create(properties={"register": StringAttr(arg.data)},
                                 result_types=[IntegerType(register_bits(arg.data))])]
    raise PassFailedException(f"inline-hooks: @{hook.sym_name.data}: argument {position} "
                              f"({arg}) is not bound to a constant or a register; run "
                              "insert-hooks first")


def inline_into(payload: PayloadOp, hook: HookOp) -> None:
    """Copy ``hook``'s body into the empty ``payload``, binding its arguments."""
    body = hook.body.clone()
    block = body.blocks.first
    assert block is not None
    bound = [_argument_value(arg, hook, position)
             for position, arg in enumerate(payload.args.data)]
    if len(bound) != len(block.args):
        raise PassFailedException(
            f"inline-hooks: @{hook.sym_name.data} takes {len(block.args)} arguments, the "
            f"payload passes {len(bound)}")
    first = block.first_op
    for ops, argument in zip(bound, block.args, strict=True):
        for op in ops:
            if first is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, first)
        argument.replace_all_uses_with(ops[-1].results[0])
    for argument in reversed(block.args):
        block.erase_arg(argument)
    body.move_blocks(payload.body)
    writes = sorted({op.register.data for op in payload.body.walk()
                     if isinstance(op, WriteRegOp)})
    if writes:
        payload.attributes["writes"] = ArrayAttr([StringAttr(name) for name in writes])


@dataclass(frozen=True)
class InlineHooksPass(ModulePass):
    """Give every empty ``instr.payload`` its hook's body."""

    name = "inline-hooks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_payloads(op, [payload for payload in op.walk() if isinstance(payload, PayloadOp)])


def _hooks(op: Operation) -> Iterator[HookOp]:
    """The hooks under ``op`` in walk order, not looking into code objects (machine code
    only: a library's tens of thousands of instructions to pass over, no hook)."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                if isinstance(child, HookOp):
                    yield child
                if not isinstance(child, CodeObjectOp):
                    yield from _hooks(child)


def inline_payloads(module: ModuleOp, targets: Sequence[PayloadOp]) -> None:
    """Inline the hooks of ``module`` into the empty payloads among ``targets``."""
    hooks = {hook.sym_name.data: hook for hook in _hooks(module)}
    for payload in over("inline-hooks", targets, "payload"):
        if payload.body.blocks:
            continue
        name = payload.hook.string_value()
        hook = hooks.get(name)
        if hook is None:
            raise PassFailedException(f"inline-hooks: @{name}: no instr.hook of that name")
        inline_into(payload, hook)
