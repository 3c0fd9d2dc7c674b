"""Functions of a code object that can be instrumented apart from one another.

Lowering a hook at a point reads the function it sits in and, through calls, its callees
(liveness across calls, the registers a kernel's reach touches, where its State Value Array
lives); the descriptor and preamble of a kernel depend on the payloads of everything it can
run. Nothing else crosses functions. So functions fall into groups that share no call and
no reference (the connected components of "calls or names the address of"), and each group
can be lowered, finalized and encoded by itself, with the bytes the whole object would have
given: the unit of work that worker processes take (see ``luthier-opt --jobs``).

A call whose target is unknown could run any function that is not in its group, so then
the whole object is one group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute

from luthier.amdgpu_dialects.amdgpu_mc.copy import region_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp
from luthier.passes.analysis.callgraph import CallGraph
from luthier.passes.analysis.cfg import may_call


@dataclass(frozen=True)
class FunctionGroup:
    """Functions that must be instrumented together, in layout order, and their size."""

    functions: tuple[str, ...]
    #: Instructions of the group's functions: the measure of its work.
    instructions: int


def _references(function: FunctionLikeOp, names: frozenset[str],
                seen: dict[int, tuple[ArrayAttr[Attribute], frozenset[str]]]
                ) -> tuple[set[str], int, bool]:
    """Functions of the code object that ``function``'s instructions name (calls and
    address computations alike), how many ops its blocks hold, and whether it may call
    (:func:`~.cfg.may_call`), in one walk. ``seen`` keeps what each operand array names,
    by identity (the lifter interns them: a library has one distinct array per few
    instructions)."""
    found: set[str] = set()
    count = 0
    calls = False
    for op in region_ops(function.body):
        count += 1
        if not is_instruction_class(type(op)):
            continue
        instruction = cast(InstructionOpBase, op)
        if instruction.KIND and not calls:
            calls = may_call(instruction)
        operands = instruction.mc_operands
        known = seen.get(id(operands))
        if known is None or known[0] is not operands:
            named = frozenset(
                attr.data.reference.symbol for attr in operands.data
                if isinstance(attr, SymbolOperandAttr) and attr.data.reference is not None
                and attr.data.reference.symbol in names)
            known = seen[id(operands)] = (operands, named)
        if known[1]:
            found |= known[1]
    return found, count, calls


def function_groups(code_object: CodeObjectOp) -> list[FunctionGroup]:
    """The groups of ``code_object``'s functions (see the module's docstring), in the
    layout order of their first functions."""
    functions = [op for op in code_object.body.ops if isinstance(op, FunctionLikeOp)]
    order = {op.sym_name.data: index for index, op in enumerate(functions)}
    names = frozenset(order)
    seen: dict[int, tuple[ArrayAttr[Attribute], frozenset[str]]] = {}
    references: dict[str, set[str]] = {}
    sizes: dict[str, int] = {}
    calling = False
    for op in functions:
        name = op.sym_name.data
        references[name], sizes[name], calls = _references(op, names, seen)
        calling |= calls
    # The call graph only when a call is possible (a library of kernels often has none).
    graph = CallGraph.build(code_object) if calling else None
    if graph is not None and any(graph.unknown_call_sites(name) for name in graph.cfgs):
        return [FunctionGroup(tuple(order), sum(sizes.values()))] if functions else []
    leader = {name: name for name in order}

    def find(name: str) -> str:
        while leader[name] != name:
            leader[name] = leader[leader[name]]
            name = leader[name]
        return name

    for name in order:
        called: set[str] = set(graph.callees(name)) & names if graph is not None else set()
        linked = called | references[name]
        for other in linked:
            first, second = sorted((find(name), find(other)), key=order.__getitem__)
            leader[second] = first
    members: dict[str, list[str]] = {}
    for name in order:
        members.setdefault(find(name), []).append(name)
    return [FunctionGroup(tuple(group), sum(sizes[name] for name in group))
            for group in members.values()]


def balanced_bins(groups: Sequence[FunctionGroup], count: int) -> list[list[FunctionGroup]]:
    """``groups`` (in layout order) cut into at most ``count`` runs of neighbours, the
    largest run as small as it can be. Runs rather than any mix: neighbouring functions are
    often instances of one template, whose points allocate alike, and a worker reuses an
    allocation only among its own points (on rocRAND, instr_count at every instruction:
    9,613 allocations in two runs, 10,614 when the largest group went to the lightest bin,
    8,630 in one process)."""
    if not groups:
        return []
    count = max(1, min(count, len(groups)))
    low = max(group.instructions for group in groups)
    high = sum(group.instructions for group in groups)
    while low < high:  # the least largest run that ``count`` runs can keep to
        middle = (low + high) // 2
        if len(_runs(groups, middle)) <= count:
            high = middle
        else:
            low = middle + 1
    return _runs(groups, low)


def _runs(groups: Sequence[FunctionGroup], limit: int) -> list[list[FunctionGroup]]:
    """``groups`` cut greedily into runs of at most ``limit`` instructions (a group larger
    than ``limit`` is a run of its own)."""
    runs: list[list[FunctionGroup]] = [[]]
    load = 0
    for group in groups:
        if runs[-1] and load + group.instructions > limit:
            runs.append([])
            load = 0
        runs[-1].append(group)
        load += group.instructions
    return runs
