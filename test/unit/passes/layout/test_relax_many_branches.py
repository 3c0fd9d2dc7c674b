"""``relax-branches`` when many branches fall out of reach at once: a synthetic function of
200 far branches, forward and backward, each relaxed through chains of islands.

What the rounds design must keep (see passes/layout/relax_branches.py): every branch reaches
its island or target at the end, as the emitter's own layout measures it; each application
branch still leads, through its chain of islands, to the block it targeted before; the
application's instructions keep their order; and a few rounds suffice, because a round
places the islands of every far branch (and the further links of their chains) at once.
"""

from __future__ import annotations

import pytest
from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.layout import function_layout
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionLikeOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.passes.layout.relax_branches import in_range, relax_function

from .gfx90a_text import parse_code_object

#: Branches in the function; each targets the unit ``shift`` units on (wrapping to the
#: start).
UNITS = 200
#: Bytes a branch reaches in this test (every branch is far).
REACH = 512


def _unit_bytes(nops: int) -> int:
    return 4 * nops + 8 + 12


def _function(nops: int, shift: int) -> FunctionLikeOp:
    """UNITS units of a conditional branch block (``nops`` nops, s_cmp, s_cbranch) and a
    block ending in s_endpgm (12 bytes, a place for islands); branch ``i`` jumps to unit
    ``i + shift`` forward, or (the last ``shift``) most of the function back."""
    lines = ["amdgpu_mc.func @f {"]
    for unit in range(UNITS):
        target = (unit + shift) % UNITS
        lines += [f"^bb{2 * unit}:", *["amdgpu_mc.s_nop 0"] * nops,
                  "amdgpu_mc.s_cmp_eq_u32 s0, 0",
                  f"amdgpu_mc.s_cbranch_scc1 ^bb{2 * target}, ^bb{2 * unit + 1}",
                  f"^bb{2 * unit + 1}:", "amdgpu_mc.s_nop 0", "amdgpu_mc.s_nop 0",
                  "amdgpu_mc.s_endpgm"]
    lines.append("}")
    code_object = parse_code_object("\n".join(lines))
    function = code_object.body.block.first_op
    assert isinstance(function, FunctionLikeOp)
    return function


def _ops(function: FunctionLikeOp) -> list[Operation]:
    return [op for block in function.body.blocks for op in block.ops]


def _destination(block: Block, application: set[Operation]) -> Block:
    """Where control lands from ``block``, through islands (blocks of one added
    ``s_branch``)."""
    for _ in range(1000):
        first = block.first_op
        if first in application:
            return block
        assert isinstance(first, InstructionOpBase) and first.mnemonic == "s_branch"
        assert first is block.last_op
        block = first.successors[0]
    raise AssertionError("a cycle of islands")


@pytest.mark.parametrize(("nops", "shift"), [
    # 32-byte units, 1,280 bytes forward, 5 KB back: 64 paths cross every point, so
    # islands fill half of each reach window (links placed at full reach kept breaking
    # each other: more islands every round, never settling).
    (3, 40),
    # 160-byte units, 650 bytes forward, 31 KB back: chains of 60 islands, sparse.
    (35, 5),
], ids=["dense", "long-chains"])
def test_two_hundred_far_branches_relax_in_a_few_rounds(nops: int, shift: int) -> None:
    function = _function(nops, shift)
    isa = load_target("gfx90a")
    application = _ops(function)
    branches = [op for op in application
                if isinstance(op, InstructionOpBase) and op.KIND == "branch"]
    targets = {branch: branch.successors[0] for branch in branches}
    layout = function_layout(function, isa)
    far = [branch for branch in branches
           if not in_range(layout.block_offsets[targets[branch]] - layout.end(branch), REACH)]
    assert len(far) == UNITS

    done = relax_function(function, isa, REACH)

    # The application's instructions, in their order; everything added is an s_branch.
    ops = _ops(function)
    kept = set(application)
    assert [op for op in ops if op in kept] == application
    added = [op for op in ops if op not in kept]
    assert all(isinstance(op, InstructionOpBase) and op.mnemonic == "s_branch"
               for op in added)
    # Every branch, islands and skip branches included, reaches at the end.
    layout = function_layout(function, isa)
    for op, _ in layout.instructions():
        if op.KIND == "branch":
            assert in_range(layout.block_offsets[op.successors[0]] - layout.end(op), REACH)
    # Each application branch still leads where it led, and falls through where it fell.
    for branch in branches:
        assert _destination(branch.successors[0], kept) is targets[branch]
        fall = branch.successors[1]
        assert _destination(fall, kept).first_op is application[application.index(branch) + 1]
    # Chains: a backward branch is about (UNITS - shift) units from its target.
    back = (UNITS - shift - 1) * _unit_bytes(nops)
    assert done.islands >= UNITS + shift * (back // REACH)
    assert done.islands == len([op for op in added if op.parent_block() is not None
                                and len(list(op.parent_block().ops)) == 1])  # pyright: ignore
    assert 1 <= done.rounds <= 4
