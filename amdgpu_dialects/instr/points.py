"""Naming instrumentation points in diagnostics: hook, function and instruction.

Every lowering error must tell the tool writer which hook failed where, so that a message
about one of ten thousand payloads can be acted on:
``@count in @vector_add before 's_add_u32 s0, s0, s1' (#12)`` — the instruction's index
counts instructions of the function in layout order, as ``instr.insert``'s ``first`` and
``last`` do.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.instr.ops import PayloadOp


def enclosing_function(op: Operation) -> FunctionLikeOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FunctionLikeOp):
        parent = parent.parent_op()
    return parent


def enclosing_code_object(op: Operation) -> CodeObjectOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, CodeObjectOp):
        parent = parent.parent_op()
    return parent


def instrumented_instruction(payload: PayloadOp) -> InstructionOpBase | None:
    """The application instruction the payload runs before (the next instruction of its
    block, past other payloads)."""
    op = payload.next_op
    while op is not None and not isinstance(op, InstructionOpBase):
        op = op.next_op
    return op


def instruction_text(op: InstructionOpBase) -> str:
    """``s_add_u32 s0, s0, 1``; a branch names its targets as the IR does (``^bb2``)."""
    if op.KIND == "branch":
        block = op.parent_block()
        region = block.parent if block is not None else None
        blocks = list(region.blocks) if region is not None else []
        names = [f"^bb{blocks.index(target)}" if target in blocks else "^?"
                 for target in op.successors]
        return f"{op.mnemonic} {', '.join(names)}" if names else op.mnemonic
    operands = op.assembly_text()
    return f"{op.mnemonic} {operands}" if operands else op.mnemonic


def _index(function: FunctionLikeOp, target: InstructionOpBase) -> int:
    index = 0
    for block in function.body.blocks:
        for op in block.ops:
            if op is target:
                return index
            if isinstance(op, InstructionOpBase):
                index += 1
    return -1


def format_point(hook: str, function: str, instruction: str, index: int) -> str:
    """``@hook in @function before 'text' (#index)``: how every instrumentation pass
    names a point in its diagnostics."""
    return f"@{hook} in @{function} before '{instruction}' (#{index})"


def describe_point(payload: PayloadOp) -> str:
    """:func:`format_point` for a payload, found from where it sits."""
    hook = payload.hook.string_value()
    function = enclosing_function(payload)
    if function is None:
        return f"@{hook}"
    point = instrumented_instruction(payload)
    if point is None:
        return f"@{hook} in @{function.sym_name.data} at the end of a block"
    return format_point(hook, function.sym_name.data, instruction_text(point),
                        _index(function, point))


def payloads(root: Operation) -> Iterator[PayloadOp]:
    """The payloads under ``root`` that sit in functions, in layout order."""
    for op in root.walk():
        if isinstance(op, PayloadOp) and enclosing_function(op) is not None:
            yield op
