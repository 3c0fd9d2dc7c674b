"""The control flow of an imported hook: loops refused, and each branch's join.

Hooks are ``scf.if`` nests; clang's -O2 output is a CFG of basic blocks with ``br`` and
``phi``. An acyclic CFG becomes a nest by cutting at immediate post-dominators: a
conditional branch in block B becomes an ``scf.if`` whose two sides run until B's immediate
post-dominator J (where both paths meet again), and J's ``phi`` values are what the sides
yield. Where no block post-dominates B (the paths return separately), J is the function's
exit and everything after the branch lives inside the sides. A block reached by both
sides before J is translated once per side (:mod:`.importer` bounds the total).
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.frontend.hip.llvm_text import BasicBlock, Function, Instruction

#: The virtual block every ``ret`` leads to.
EXIT = "<exit>"


@dataclass
class ControlFlow:
    """Successors by label, and each block's immediate post-dominator."""

    blocks: dict[str, BasicBlock]
    successors: dict[str, list[str]]
    ipdom: dict[str, str]


class LoopError(ValueError):
    """A back edge: ``branch`` is the instruction that closes the loop."""

    def __init__(self, branch: Instruction) -> None:
        super().__init__("a loop")
        self.branch = branch


def control_flow(function: Function) -> ControlFlow:
    """The CFG of ``function``; raises :class:`LoopError` on a cycle and ``KeyError`` on
    a branch to a label the function does not have (or, with the empty label, on a
    function without blocks)."""
    if not function.blocks:
        raise KeyError("")
    blocks = {block.label: block for block in function.blocks}
    successors: dict[str, list[str]] = {}
    for block in function.blocks:
        last = block.instructions[-1]
        if last.opcode == "br":
            for target in last.targets:
                if target not in blocks:
                    raise KeyError(target)
            successors[block.label] = list(dict.fromkeys(last.targets))
        else:
            successors[block.label] = [EXIT]
    order = _postorder(function.blocks[0].label, successors, blocks)
    return ControlFlow(blocks, successors, _post_dominators(order, successors))


def _postorder(entry: str, successors: dict[str, list[str]],
               blocks: dict[str, BasicBlock]) -> list[str]:
    """Blocks reachable from ``entry``, each after its successors; raises on a back edge."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[tuple[str, int]] = [(entry, 0)]
    state[entry] = 1
    while stack:
        label, index = stack.pop()
        targets = [t for t in successors[label] if t != EXIT]
        if index < len(targets):
            stack.append((label, index + 1))
            target = targets[index]
            if state.get(target) == 1:
                raise LoopError(blocks[label].instructions[-1])
            if target not in state:
                state[target] = 1
                stack.append((target, 0))
        else:
            state[label] = 2
            order.append(label)
    return order


def _post_dominators(order: list[str], successors: dict[str, list[str]]) -> dict[str, str]:
    """Immediate post-dominators (successors come first in ``order``): the strict
    post-dominator that the others post-dominate, i.e. the one with the most of them."""
    pdom: dict[str, frozenset[str]] = {EXIT: frozenset({EXIT})}
    for label in order:
        shared: frozenset[str] | None = None
        for target in successors[label]:
            shared = pdom[target] if shared is None else shared & pdom[target]
        pdom[label] = (shared or frozenset({EXIT})) | {label}
    return {label: max(pdom[label] - {label}, key=lambda other: len(pdom[other]))
            for label in order}
