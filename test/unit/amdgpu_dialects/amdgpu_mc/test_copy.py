"""The fast copies and walks of machine code (``amdgpu_mc.copy``) against xDSL's own:
``copy_machine_region`` against ``Region.clone_into``, ``block_ops`` and ``region_ops``
against ``Block.ops``, on every function of the corpus and on blocks changed mid-walk."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from xdsl.dialects import test as xdsl_test
from xdsl.ir import Block, Operation, Region

from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops, copy_machine_region, region_ops
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionLikeOp
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object

KERNELS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"
CODE_OBJECTS = sorted(KERNELS.glob("*.co"))


def _functions(path: Path) -> list[FunctionLikeOp]:
    lifted = lift_code_object(read_code_object(path.read_bytes())).module
    return [op for op in lifted.body.ops if isinstance(op, FunctionLikeOp)]


def test_the_corpus_is_there() -> None:
    assert len(CODE_OBJECTS) >= 10


@pytest.mark.parametrize("path", CODE_OBJECTS, ids=lambda path: path.name)
def test_walks_give_the_ops_of_block_ops(path: Path) -> None:
    functions = _functions(path)
    assert functions
    for function in functions:
        expected = [op for block in function.body.blocks for op in block.ops]
        assert expected
        assert list(region_ops(function.body)) == expected
        for block in function.body.blocks:
            assert list(block_ops(block)) == list(block.ops)


@pytest.mark.parametrize("path", CODE_OBJECTS, ids=lambda path: path.name)
def test_copy_is_what_clone_into_makes(path: Path) -> None:
    for function in _functions(path):
        copied, cloned = Region(), Region()
        mapping = copy_machine_region(function.body, copied)
        function.body.clone_into(cloned)
        originals = list(region_ops(function.body))
        copies = list(region_ops(copied))
        clones = list(region_ops(cloned))
        assert len(copies) == len(clones) == len(originals)
        assert [mapping[op] for op in originals] == copies
        copied_blocks, cloned_blocks = list(copied.blocks), list(cloned.blocks)
        for original, copy, clone in zip(originals, copies, clones, strict=True):
            assert copy is not original
            assert type(copy) is type(clone)
            assert copy.properties == clone.properties
            assert copy.attributes == clone.attributes
            # Successors point into the copy, at the blocks the clone's point to.
            assert [copied_blocks.index(block) for block in copy.successors] == \
                [cloned_blocks.index(block) for block in clone.successors]
            assert copy.parent is not None and copy.parent.parent is copied


def _block(count: int) -> tuple[Block, list[Operation]]:
    ops: list[Operation] = [xdsl_test.TestOp() for _ in range(count)]
    return Block(ops), ops


Walk = Callable[[Block], Iterable[Operation]]
WALKS: dict[str, Walk] = {"block.ops": lambda block: block.ops, "block_ops": block_ops}


def _detaching(walk: Walk) -> list[int]:
    block, ops = _block(5)
    seen: list[int] = []
    for op in walk(block):
        seen.append(ops.index(op))
        block.detach_op(op)
    assert block.is_empty
    return seen


def _inserting(walk: Walk) -> list[int]:
    block, ops = _block(3)
    seen: list[int] = []
    for op in walk(block):
        seen.append(ops.index(op) if op in ops else -1)
        if op is ops[0]:
            block.insert_op_after(xdsl_test.TestOp(), op)
    return seen


@pytest.mark.parametrize("change", [_detaching, _inserting], ids=["detach", "insert"])
def test_a_block_changed_mid_walk_is_walked_as_block_ops_walks_it(
        change: Callable[[Walk], list[int]]) -> None:
    expected = change(WALKS["block.ops"])
    assert change(WALKS["block_ops"]) == expected
    if change is _detaching:
        assert expected == [0, 1, 2, 3, 4]  # every op, though each left the block
    else:
        assert expected == [0, 1, 2]  # not the op inserted after the current one
