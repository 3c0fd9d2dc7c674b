"""Functions that can be instrumented apart: groups that share no call, and bins of them
dealt by size (the units ``luthier-opt --jobs`` gives its workers)."""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionLikeOp, KernelOp
from luthier.passes.analysis.callgraph import CallGraph
from luthier.passes.analysis.cfg import may_call
from luthier.passes.analysis.function_groups import (
    FunctionGroup,
    balanced_bins,
    function_groups,
)

from .corpus import corpus


def _sizes(name: str) -> dict[str, int]:
    return {op.sym_name.data: sum(len(block.ops) for block in op.body.blocks)
            for op in corpus(name).body.ops if isinstance(op, FunctionLikeOp)}


def test_a_caller_and_its_callee_share_a_group() -> None:
    # scratch.hip: private_array_via_call calls _Z11sum_privatePKfjj (s_swappc_b64); the two
    # other kernels call nothing.
    groups = function_groups(corpus("scratch.gfx90a.co"))
    assert [group.functions for group in groups] == [
        ("private_array",), ("private_sort",),
        ("_Z11sum_privatePKfjj", "private_array_via_call")]
    sizes = _sizes("scratch.gfx90a.co")
    assert [group.instructions for group in groups] == [
        sum(sizes[name] for name in group.functions) for group in groups]


def test_kernels_without_calls_are_groups_of_their_own() -> None:
    groups = function_groups(corpus("atomics.gfx90a.co"))
    assert [group.functions for group in groups] == [(name,) for name in
                                                     _sizes("atomics.gfx90a.co")]


def test_an_unknown_call_makes_the_object_one_group() -> None:
    # calls.hip calls through a table and through a select: the target could be any
    # function, so nothing can be lowered apart.
    groups = function_groups(corpus("calls.gfx90a.co"))
    assert len(groups) == 1
    assert groups[0].functions == tuple(_sizes("calls.gfx90a.co"))


def _group(name: str, size: int) -> FunctionGroup:
    return FunctionGroup((name,), size)


def _names(bins: list[list[FunctionGroup]]) -> list[list[str]]:
    return [[group.functions[0] for group in found] for found in bins]


def test_bins_are_runs_of_neighbours_with_the_least_largest_run() -> None:
    groups = [_group("a", 10), _group("b", 9), _group("c", 8), _group("d", 1)]
    # The cuts a|bcd (19), ab|cd (19 vs 9) and abc|d: the least largest run is 19.
    assert _names(balanced_bins(groups, 2)) == [["a"], ["b", "c", "d"]]
    assert _names(balanced_bins(groups, 3)) == [["a"], ["b"], ["c", "d"]]
    even = [_group(name, 5) for name in "abcdef"]
    assert _names(balanced_bins(even, 2)) == [["a", "b", "c"], ["d", "e", "f"]]
    # Four runs could not be smaller than 10: three do, and need one worker less.
    assert _names(balanced_bins(even, 4)) == [["a", "b"], ["c", "d"], ["e", "f"]]


def test_bins_keep_layout_order_and_are_never_empty() -> None:
    groups = [_group("small", 1), _group("big", 100), _group("mid", 50)]
    assert _names(balanced_bins(groups, 5)) == [["small"], ["big"], ["mid"]]
    assert _names(balanced_bins(groups, 2)) == [["small"], ["big", "mid"]] or \
        _names(balanced_bins(groups, 2)) == [["small", "big"], ["mid"]]
    assert _names(balanced_bins(groups, 1)) == [["small", "big", "mid"]]
    assert balanced_bins([], 2) == []


@pytest.mark.parametrize("name", ["calls.gfx90a.co", "calls.gfx942.co", "scratch.gfx90a.co",
                                  "atomics.gfx90a.co", "control_flow.gfx942.co"])
def test_every_call_site_is_an_op_that_may_call(name: str) -> None:
    """function_groups skips the call graph when no op may call: every site the call graph
    finds must then be such an op (and a kernel that only ends with s_endpgm has none:
    ``may_call`` is false for the ENDPGM_MNEMONICS)."""
    code_object = corpus(name)
    graph = CallGraph.build(code_object)
    for function in code_object.body.ops:
        if not isinstance(function, FunctionLikeOp):
            continue
        callers = [op for block in function.body.blocks for op in block.ops
                   if isinstance(op, InstructionOpBase) and may_call(op)]
        sites = graph.cfgs[function.sym_name.data].call_sites
        assert {id(site.op) for site in sites} <= {id(op) for op in callers}
        if isinstance(function, KernelOp) and not sites:  # ends in s_endpgm: nothing may call
            assert not callers, function.sym_name
