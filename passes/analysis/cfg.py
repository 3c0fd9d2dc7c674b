"""The control-flow graph of one ``amdgpu_mc`` kernel or device function.

Blocks are numbered in layout order (block ``i`` prints as ``^bbi`` in the lifted IR), and
everything here is plain Python over those numbers: successor and predecessor tuples, a
reverse post-order, immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm),
natural loops, and the exits of the function classified by what ends them. Later passes
(liveness, hook placement, the preamble) query it many times per function, and the
instruction ops are never rewritten here, so building a CFG only reads each block's last op.

Machine code can leave a function in ways a structured IR cannot: ``s_setpc_b64`` jumps to
an address held in registers. In a device function ``s_setpc_b64 s[30:31]`` is the return
(the calling convention's return address); elsewhere it is a tail call when the address is a
known function's entry (see :mod:`.calls`), and an indirect branch with unknown targets
otherwise. Such a branch is an exit here: its targets are not edges, and ``warnings`` says
so, because any analysis that assumed the function ends there would be wrong about the
code it jumps to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    BranchInstructionOp,
    InstructionOpBase,
    branch_label,
)
from luthier.amdgpu_dialects.amdgpu_mc.layout import FunctionLayout, UnsizedError, function_layout
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    FallthroughOp,
    FunctionLikeOp,
    KernelOp,
    LabelOp,
)
from luthier.amdgpu_dialects.amdgpu_mc.target_context import enclosing_target
from luthier.amdgpu_dialects.isa.target import (
    LIFT_TARGETS,
    TargetISA,
    load_target,
)
from luthier.passes.analysis.calls import (
    RETURN_ADDRESS,
    CallSite,
    find_call_sites,
    resolve_target,
)

#: Mnemonics that end the wave.
ENDPGM_MNEMONICS = frozenset({"s_endpgm", "s_endpgm_saved", "s_endpgm_ordered_ps_done"})


def may_call(op: InstructionOpBase) -> bool:
    """Whether ``op`` could be a call site (:func:`~.calls.find_call_sites` reports no
    other op): a call, or a terminator that does not end the program (``s_setpc_b64``,
    which the CFG tells apart as a return, a tail call or a jump to an unknown address),
    or a branch into another function's code. A function with no such op calls nothing."""
    kind = op.KIND
    return kind == "call" or (kind == "terminator" and op.mnemonic not in ENDPGM_MNEMONICS) \
        or (kind == "branch" and branch_label(op) is not None)


class ExitKind(StrEnum):
    """How control leaves a function at an exit block."""

    #: ``s_setpc_b64 s[30:31]`` in a device function: back to the caller.
    RETURN = "return"
    #: ``s_endpgm`` (or a variant): the wave ends.
    ENDPGM = "endpgm"
    #: ``s_setpc_b64`` to the entry of a known function.
    TAIL_CALL = "tail-call"
    #: ``s_setpc_b64`` to an address we cannot name: the targets are unknown.
    INDIRECT_BRANCH = "indirect-branch"
    #: A branch into another function's code (``amdgpu_mc.label``; hand-written code that
    #: shares a tail between kernels): that function goes on from there.
    JUMP = "jump"
    #: A terminator we do not know, or a block without one (IR that does not verify).
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Loop:
    """A natural loop: the blocks that reach a back edge's source without passing its
    header (all back edges to one header make one loop)."""

    header: int
    #: Every block of the loop, the header and nested loops' blocks included.
    blocks: frozenset[int]
    #: ``(latch, header)`` edges, in layout order of the latch.
    back_edges: tuple[tuple[int, int], ...]
    #: Edges from a block of the loop to a block outside it, in layout order.
    exit_edges: tuple[tuple[int, int], ...]
    #: Index in :attr:`FunctionCFG.loops` of the innermost enclosing loop, if any.
    parent: int | None
    #: 1 for an outermost loop.
    depth: int


class _NotYet:
    """Marks a cached value not computed yet (None is a valid value)."""


_NOT_YET = _NotYet()


def block_name(index: int) -> str:
    """``^bb3``: how the lifted IR prints the block at layout index 3."""
    return f"^bb{index}"


def isa_of(op: Operation) -> TargetISA | None:
    """The ISA tables of the code object ``op`` is (or is in), for its processor *and wave
    size* (an RDNA code object in wave64 has ``vcc``, in wave32 ``vcc_lo``); None outside a
    code object or for a processor that does not lift. Every analysis takes its ISA here."""
    target = enclosing_target(op)
    if target is None or target[0] not in LIFT_TARGETS:
        return None
    return load_target(*target)


class FunctionCFG:
    """The CFG of a :class:`KernelOp` or :class:`FunctionOp`; build with :meth:`build`."""

    def __init__(self, function: FunctionLikeOp, isa: TargetISA | None) -> None:
        self.function = function
        self.name = function.sym_name.data
        self.is_kernel = isinstance(function, KernelOp)
        #: The target's ISA tables (None outside a code object): instruction sizes, defs.
        self.isa = isa
        self.blocks: tuple[Block, ...] = tuple(function.body.blocks)
        self._block_of: dict[Operation, int] | None = None
        self._layout: FunctionLayout | None | _NotYet = _NOT_YET
        self._application_layout: FunctionLayout | None | _NotYet = _NOT_YET
        self._call_sites: tuple[CallSite, ...] | None = None
        self._foreign_entries: frozenset[int] | None = None
        self._index: dict[Block, int] = {block: i for i, block in enumerate(self.blocks)}
        #: Problems a conservative analysis must know about, one line each.
        self.warnings: list[str] = []
        #: Exit blocks (layout order) and what leaves the function there.
        self.exits: dict[int, ExitKind] = {}
        #: Tail-call or indirect-branch blocks -> (callee or None, how / why).
        self.jump_targets: dict[int, tuple[str | None, str]] = {}
        self.successors: tuple[tuple[int, ...], ...] = tuple(
            self._successors_of(i, block) for i, block in enumerate(self.blocks))
        predecessors: list[list[int]] = [[] for _ in self.blocks]
        for source, targets in enumerate(self.successors):
            for target in targets:
                predecessors[target].append(source)
        self.predecessors: tuple[tuple[int, ...], ...] = tuple(
            tuple(preds) for preds in predecessors)
        self._classify_jumps()
        self._walk()
        self._dominators()
        self._loops()

    @classmethod
    def build(cls, function: FunctionLikeOp,
              isa: TargetISA | None = None) -> FunctionCFG:
        """The CFG of ``function`` (the ISA defaults to its code object's target)."""
        return cls(function, isa if isa is not None else isa_of(function))

    # -- blocks and edges ----------------------------------------------------------------

    @property
    def entry(self) -> int:
        return 0

    def index_of(self, block: Block) -> int:
        """The layout index of ``block`` (KeyError for a block of another function)."""
        return self._index[block]

    def where(self, block: int) -> str:
        """``@name ^bb3`` for messages."""
        return f"@{self.name} {block_name(block)}"

    def unknown_branches(self) -> list[str]:
        """One line per ``s_setpc_b64`` whose targets are unknown (not a return, not a tail
        call to a known function): where it is, and why its address is not known. Code
        after such a branch cannot be analysed, and what it reaches cannot be moved."""
        found: list[str] = []
        for index, kind in sorted(self.exits.items()):
            last = self.blocks[index].last_op
            if kind is not ExitKind.INDIRECT_BRANCH or not isinstance(last, InstructionOpBase):
                continue
            _, reason = self.jump_targets.get(index, (None, "unknown"))
            found.append(f"'s_setpc_b64 {_text(last.mc_operands.data[0])}' in "
                         f"{self.where(index)} branches to an unknown address ({reason})")
        return found

    def _successors_of(self, index: int, block: Block) -> tuple[int, ...]:
        last = block.last_op
        if isinstance(last, BranchInstructionOp | FallthroughOp):
            if isinstance(last, BranchInstructionOp) and branch_label(last) is not None:
                self.exits[index] = ExitKind.JUMP  # its taken edge leaves the function
            targets: list[int] = []
            for successor in last.successors:
                target = self._index.get(successor)
                if target is None:
                    self.warnings.append(f"{self.where(index)}: {last.name} names a block "
                                         "outside the function; edge ignored")
                    continue
                if target not in targets:
                    targets.append(target)
            return tuple(targets)
        if isinstance(last, InstructionOpBase) and last.KIND == "terminator":
            mnemonic = last.mnemonic
            if mnemonic in ENDPGM_MNEMONICS:
                self.exits[index] = ExitKind.ENDPGM
                return ()
            if mnemonic == "s_setpc_b64":
                target = last.mc_operands.data[0] if last.mc_operands.data else None
                if not self.is_kernel and isinstance(target, PhysRegAttr) \
                        and target.data == RETURN_ADDRESS:
                    self.exits[index] = ExitKind.RETURN
                else:
                    self.exits[index] = ExitKind.INDIRECT_BRANCH  # refined below
                return ()
        what = last.name if last is not None else "nothing"
        self.exits[index] = ExitKind.UNKNOWN
        self.warnings.append(f"{self.where(index)}: the block ends in {what}, not a branch, "
                             "a known terminator or amdgpu_mc.fallthrough; treated as an "
                             "exit with unknown successors")
        return ()

    def _classify_jumps(self) -> None:
        """``s_setpc_b64`` that is not a return: a tail call if the address is known."""
        jumps = [index for index, kind in self.exits.items()
                 if kind is ExitKind.INDIRECT_BRANCH]
        for index in jumps:
            last = self.blocks[index].last_op
            assert isinstance(last, InstructionOpBase)
            register = last.mc_operands.data[0]
            callee, reason = resolve_target(self.blocks, self.predecessors, index, last,
                                            register, self.isa, self.application_layout,
                                            self.block_of)
            self.jump_targets[index] = (callee, reason)
            if callee is not None:
                self.exits[index] = ExitKind.TAIL_CALL
                continue
            self.warnings.append(f"{self.where(index)}: s_setpc_b64 {_text(register)} is an "
                                 f"indirect branch with unknown targets: {reason}")

    # -- traversal -----------------------------------------------------------------------

    def _walk(self) -> None:
        """Depth-first from the entry, successors in order: post-order, reachability and
        the retreating edges (an edge to a block still on the DFS stack)."""
        count = len(self.blocks)
        visited = [False] * count
        on_stack = [False] * count
        post_order: list[int] = []
        retreating: list[tuple[int, int]] = []
        if count:
            visited[0] = on_stack[0] = True
            stack = [(0, iter(self.successors[0]))]
            while stack:
                block, pending = stack[-1]
                for successor in pending:
                    if not visited[successor]:
                        visited[successor] = on_stack[successor] = True
                        stack.append((successor, iter(self.successors[successor])))
                        break
                    if on_stack[successor]:
                        retreating.append((block, successor))
                else:
                    stack.pop()
                    on_stack[block] = False
                    post_order.append(block)
        #: Blocks reachable from the entry, in post-order (successors before the block).
        self.post_order: tuple[int, ...] = tuple(post_order)
        self.reverse_post_order: tuple[int, ...] = tuple(reversed(post_order))
        self.reachable: tuple[bool, ...] = tuple(visited)
        self.unreachable: tuple[int, ...] = tuple(i for i in range(count) if not visited[i])
        self._retreating = sorted(retreating)
        if self.unreachable:
            names = ", ".join(block_name(i) for i in self.unreachable)
            self.warnings.append(f"@{self.name}: unreachable from the entry: {names} (no "
                                 "dominators, in no loop)")

    def _dominators(self) -> None:
        count = len(self.blocks)
        order = [0] * count
        for position, block in enumerate(self.reverse_post_order):
            order[block] = position
        idom: list[int | None] = [None] * count
        if count:
            idom[0] = 0
        changed = True
        while changed:
            changed = False
            for block in self.reverse_post_order[1:]:
                new: int | None = None
                for pred in self.predecessors[block]:
                    if idom[pred] is None:
                        continue
                    new = pred if new is None else _intersect(pred, new, idom, order)
                if idom[block] != new:
                    idom[block] = new
                    changed = True
        if count:
            idom[0] = None
        #: The immediate dominator of each block; None for the entry and unreachable blocks.
        self.idom: tuple[int | None, ...] = tuple(idom)
        children: list[list[int]] = [[] for _ in range(count)]
        for block in self.reverse_post_order[1:]:
            parent = idom[block]
            assert parent is not None
            children[parent].append(block)
        self._pre = [-1] * count
        self._post = [-1] * count
        clock = 0
        if count:
            stack = [(0, iter(children[0]))]
            self._pre[0] = clock
            while stack:
                block, pending = stack[-1]
                child = next(pending, None)
                if child is None:
                    stack.pop()
                    clock += 1
                    self._post[block] = clock
                    continue
                clock += 1
                self._pre[child] = clock
                stack.append((child, iter(children[child])))

    def dominates(self, a: int, b: int) -> bool:
        """Every path from the entry to ``b`` passes ``a`` (a block dominates itself).
        Unreachable blocks dominate nothing and are dominated by nothing but themselves."""
        if a == b:
            return True
        if not (self.reachable[a] and self.reachable[b]):
            return False
        return self._pre[a] <= self._pre[b] and self._post[b] <= self._post[a]

    def dominators(self, block: int) -> list[int]:
        """``block``'s dominators from the entry down to ``block`` itself."""
        if not self.reachable[block]:
            return [block]
        chain: list[int] = []
        current: int | None = block
        while current is not None:
            chain.append(current)
            current = self.idom[current]
        return chain[::-1]

    # -- loops ---------------------------------------------------------------------------

    def _loops(self) -> None:
        back_edges: dict[int, list[int]] = {}
        irreducible: list[tuple[int, int]] = []
        for latch, header in self._retreating:
            if self.dominates(header, latch):
                back_edges.setdefault(header, []).append(latch)
            else:
                irreducible.append((latch, header))
        #: Retreating edges whose target does not dominate their source: cycles with more
        #: than one entry, which are no natural loop (reported, not modelled as loops).
        self.irreducible_edges: tuple[tuple[int, int], ...] = tuple(irreducible)
        for latch, header in irreducible:
            self.warnings.append(f"@{self.name}: irreducible control flow: the edge "
                                 f"{block_name(latch)} -> {block_name(header)} closes a cycle "
                                 f"that {block_name(header)} does not dominate")
        bodies: list[tuple[int, frozenset[int], list[int]]] = []
        for header in sorted(back_edges):
            latches = sorted(back_edges[header])
            body = {header}
            work = list(latches)
            while work:
                block = work.pop()
                if block in body:
                    continue
                body.add(block)
                work.extend(pred for pred in self.predecessors[block] if self.reachable[pred])
            bodies.append((header, frozenset(body), latches))
        by_size = sorted(range(len(bodies)), key=lambda i: (-len(bodies[i][1]), bodies[i][0]))
        parents: list[int | None] = [None] * len(bodies)
        depths = [1] * len(bodies)
        innermost: list[int | None] = [None] * len(self.blocks)
        for position, loop in enumerate(by_size):
            header, body, _ = bodies[loop]
            for outer in reversed(by_size[:position]):
                if header in bodies[outer][1]:
                    parents[loop] = outer
                    depths[loop] = depths[outer] + 1
                    break
            for block in body:
                innermost[block] = loop
        loops: list[Loop] = []
        for index, (header, body, latches) in enumerate(bodies):
            exits = tuple((source, target) for source in sorted(body)
                          for target in self.successors[source] if target not in body)
            loops.append(Loop(header, body, tuple((latch, header) for latch in latches),
                              exits, parents[index], depths[index]))
        #: Natural loops in layout order of their headers.
        self.loops: tuple[Loop, ...] = tuple(loops)
        #: Index in ``loops`` of each block's innermost loop, or None.
        self.innermost_loop: tuple[int | None, ...] = tuple(innermost)

    def loop_depth(self, block: int) -> int:
        loop = self.innermost_loop[block]
        return 0 if loop is None else self.loops[loop].depth

    @property
    def foreign_entries(self) -> frozenset[int]:
        """Blocks another function's branch enters (they hold an ``amdgpu_mc.label``):
        what is known on the way in from this function's own paths need not hold there.
        Made on first use; none in compiled code."""
        if self._foreign_entries is None:
            self._foreign_entries = frozenset(
                index for index, block in enumerate(self.blocks)
                if any(type(op) is LabelOp for op in block.ops))
        return self._foreign_entries

    # -- instructions --------------------------------------------------------------------

    @property
    def block_of(self) -> dict[Operation, int]:
        """Each op's block index (made on first use)."""
        if self._block_of is None:
            self._block_of = {op: index for index, block in enumerate(self.blocks)
                              for op in block.ops}
        return self._block_of

    @property
    def layout(self) -> FunctionLayout | None:
        """Where each op lies, as the emitter lays the function out now; None when a size
        is unknown (no target, an opcode the target lacks, virtual registers, an op that
        is not an instruction). Made on first use."""
        if isinstance(self._layout, _NotYet):
            try:
                self._layout = function_layout(self.function, self.isa) \
                    if self.isa is not None else None
            except UnsizedError:
                self._layout = None
        return self._layout

    @property
    def application_layout(self) -> FunctionLayout | None:
        """Where the application's own ops lie, payloads not yet spliced taking no room:
        the distances its PC-relative arithmetic was written for, which call resolution
        reads (a payload between ``s_getpc_b64`` and the adds does not change the address
        they compute: emission recomputes the addends). Made on first use."""
        if isinstance(self._application_layout, _NotYet):
            try:
                self._application_layout = function_layout(
                    self.function, self.isa, payloads_take_no_room=True) \
                    if self.isa is not None else None
            except UnsizedError:
                self._application_layout = None
        return self._application_layout

    @property
    def instruction_offsets(self) -> dict[Operation, int] | None:
        """Each op's byte offset from the function's first instruction (see
        :attr:`layout`)."""
        layout = self.layout
        return layout.offsets if layout is not None else None

    @property
    def block_offsets(self) -> tuple[int, ...] | None:
        """Byte offset of each block's first instruction (None when sizes are unknown)."""
        layout = self.layout
        if layout is None:
            return None
        return tuple(layout.block_offsets[block] for block in self.blocks)

    @property
    def call_sites(self) -> tuple[CallSite, ...]:
        """Calls (``s_swappc_b64``, ``s_call_b64``) and non-return ``s_setpc_b64``, in
        layout order, each with its callee or the reason it is unknown (made on first
        use)."""
        if self._call_sites is None:
            self._call_sites = tuple(find_call_sites(self))
        return self._call_sites


def _text(attr: object) -> str:
    return attr.data if isinstance(attr, PhysRegAttr) else str(attr)


def _intersect(a: int, b: int, idom: Sequence[int | None], order: Sequence[int]) -> int:
    while a != b:
        while order[a] > order[b]:
            parent = idom[a]
            assert parent is not None
            a = parent
        while order[b] > order[a]:
            parent = idom[b]
            assert parent is not None
            b = parent
    return a
