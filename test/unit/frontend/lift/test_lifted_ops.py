"""What the lifter's fast paths build is ordinary IR.

The lifter links each block's ops itself (``_append_new_ops``, not ``Block.add_ops``),
builds repeats of an encoding from parts resolved once (``build_plain_instruction``) and,
for a command-line tool, freezes the IR out of the cyclic collector
(``LiftOptions.freeze_result``). These tests check that the result behaves like IR built
the ordinary way.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    build_instruction,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionLikeOp
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import LiftOptions, lift_code_object

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"
SCRATCH = CORPUS / "scratch.gfx90a.co"


def _blocks(path: Path) -> Iterator[Block]:
    module = lift_code_object(read_code_object(path)).module
    for function in module.body.block.ops:
        if isinstance(function, FunctionLikeOp):
            yield from function.body.blocks


def _forward(block: Block) -> list[Operation]:
    ops: list[Operation] = []
    op = block.first_op
    while op is not None:
        ops.append(op)
        op = op.next_op
    return ops


def _backward(block: Block) -> list[Operation]:
    ops: list[Operation] = []
    op = block.last_op
    while op is not None:
        ops.append(op)
        op = op.prev_op
    return ops[::-1]


@pytest.mark.parametrize("path", [SCRATCH, CORPUS / "control_flow.gfx90a.co"],
                         ids=lambda p: p.name)
def test_every_block_is_linked_both_ways_and_owns_its_ops(path: Path) -> None:
    blocks = list(_blocks(path))
    assert len(blocks) > 3
    for block in blocks:
        forward = _forward(block)
        assert forward, "a lifted block holds at least one op"
        assert forward == _backward(block) == list(block.ops)
        assert all(op.parent is block for op in forward)


def test_lifted_blocks_can_be_edited_like_any_other() -> None:
    block = next(block for block in _blocks(SCRATCH) if len(list(block.ops)) >= 3)
    first, second, third = list(block.ops)[:3]
    block.erase_op(second)
    assert first.next_op is third and third.prev_op is first
    nop = build_instruction("s_nop", "S_NOP", [])
    block.insert_op_after(nop, first)
    assert list(block.ops)[:3] == [first, nop, third]
    assert nop.parent is block and third.prev_op is nop
    last = block.last_op
    assert last is not None
    block.detach_op(last)
    assert block.last_op is not last and last.parent is None
    block.add_op(last)
    assert block.last_op is last and _forward(block) == _backward(block)


def test_repeated_encodings_share_their_attributes_but_not_their_op() -> None:
    ops = [op for block in _blocks(SCRATCH) for op in block.ops
           if isinstance(op, InstructionOpBase) and op.KIND == ""]
    by_parts: dict[tuple[int, int], list[InstructionOpBase]] = {}
    for op in ops:
        by_parts.setdefault((id(op.opcode), id(op.mc_operands)), []).append(op)
    repeated = [group for group in by_parts.values() if len(group) > 1]
    assert repeated, "the scratch kernels repeat instructions"
    for group in repeated:
        assert len({id(op) for op in group}) == len(group)
        assert len({id(op.properties) for op in group}) == len(group)


def test_freeze_result_moves_the_ir_out_of_the_collector() -> None:
    gc.unfreeze()
    before = gc.get_freeze_count()
    try:
        module = lift_code_object(read_code_object(SCRATCH),
                                  LiftOptions(freeze_result=True)).module
        assert gc.get_freeze_count() > before
        tracked = {id(obj) for obj in gc.get_objects()}
        assert id(module) not in tracked
    finally:
        gc.unfreeze()
    assert id(module) in {id(obj) for obj in gc.get_objects()}


def test_without_freeze_result_nothing_is_frozen() -> None:
    gc.unfreeze()
    lift_code_object(read_code_object(SCRATCH))
    assert gc.get_freeze_count() == 0
