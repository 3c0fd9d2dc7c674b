"""``relax-branches``: make every SOPP branch reach its target again, through branch islands.

A SOPP branch (``s_branch``, ``s_cbranch_*``) holds a signed 16-bit word offset from the
instruction after it: it reaches 128 KiB back and 128 KiB - 4 forward. Instrumentation
splices code before application instructions, so a branch that reached its target in the
original code may not any more.

The usual long jump (``s_getpc_b64`` + add + ``s_setpc_b64``) needs an SGPR pair and
clobbers SCC, and at an application branch every register may be live. A **branch island**
needs none: the out-of-range branch ``B -> T`` is retargeted to a new block holding only
``s_branch T`` placed within B's reach. Where that island is itself too far from T, the same
relaxation retargets it to a further island: chains grow from the fixed point, not from a
special case.

Islands go where control never falls: right after a block that ends in an unconditional
transfer (``s_branch``, ``s_endpgm``, ``s_setpc_b64``...), so the application's paths run
exactly the instructions they ran before, plus one ``s_branch`` on the relaxed edge. Where no
such place is within reach, the pass makes one: it ends a block early with an ``s_branch``
over the island to the rest of the block (one more instruction on that fall-through path).
A place between a PC-relative operand (``sym@rel32@lo+4``) and the instruction it is
measured from is never used: bytes there would change the operand's value.

Inserting an island moves the code after it, which can push other branches out of range,
so the pass repeats until every branch reaches (a fixed point). It works in rounds, so that
a function of hundreds of thousands of instructions with hundreds of far branches relaxes in
near-linear time: a round lays the function out once, then walks its branches in layout
order and gives every one that does not reach an island (and the island, if it is itself
too far, the next link of its chain), measuring offsets through the bytes the round has
inserted so far (:class:`~luthier.passes.layout.shifts.Shifts`, logarithmic per question)
and finding the best place by bisection over the round's candidate places; the islands
enter the IR when the round ends. A round sweeps forward links in ascending order (an
island's own link waits until the sweep reaches it) and backward links in descending order,
so the round's later islands mostly land beyond the links already placed. Links that a later
island still pushed out of reach are mended by further sweeps of the same round, with slack
(:data:`SLACK`) so that the mending islands do not break the links they land in; rounds stop
when one settles (one or two, in practice; three for 200 branches crossing densely).
Application instructions keep their ops and order; a function whose branches all reach is
not touched. Packed code (:mod:`~luthier.amdgpu_dialects.amdgpu_mc.packed`) stays packed
where every branch reaches; a function that needs islands is unpacked first.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field
from heapq import heappop, heappush
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    branch_label,
    is_instruction_class,
)
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    UnsizedError,
    function_layout,
    instruction_size,
    literal_offset,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCodeOp, unpack
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FallthroughOp,
    FunctionLikeOp,
    LabelOp,
    code_objects_in,
)
from luthier.amdgpu_dialects.isa.target import TargetISA, load_target
from luthier.amdgpu_dialects.mc.relocations import literal_is_pc_relative
from luthier.lowering.progress import over
from luthier.passes.layout.shifts import Shifts

#: Bytes a SOPP branch reaches backward from the instruction after it (2**15 words); it
#: reaches ``HARDWARE_REACH - 4`` forward.
HARDWARE_REACH = 4 << 15
#: The smallest ``reach`` option: room for a skip branch, an island and some code.
MINIMUM_REACH = 16
#: Relaxations one function may need before the pass gives up (a safety net: each one
#: moves a branch strictly closer to its target, so this is never reached in practice).
MAX_STEPS = 100_000
#: Once a sweep over a round's branches leaves some link broken, later links are placed a
#: further ``1 / SLACK`` of the reach short of it where a place allows (up to half of it).
#: Placed at its full reach, a link breaks as soon as a later island lands between the
#: branch and its island, and mending it costs an island that breaks others: where far
#: branches cross densely (islands a fifth of a reach window or more) that feedback made
#: each round add more islands than the one before and never settle. With slack, links
#: survive the islands that land in them afterwards. A function that settles in its first
#: sweep (every realistic one) gets every island at its full reach, as before.
SLACK = 8
#: Sweeps a round may make over its branches before it lays the function out again: the
#: later ones mend, with the round's exact offsets, links that its later islands broke.
SWEEPS = 8
#: Bytes around a bisection point within which every candidate place is weighed: more than
#: the few bytes an insertion (a skip branch and an island) moves the branch, its target or
#: its island, so the best place is always among those weighed.
_MARGIN = 16
#: A key position after every island a round puts at a slot.
_LAST = 1 << 62


def _fail(function: str, reason: str) -> PassFailedException:
    return PassFailedException(f"relax-branches: @{function}: {reason}")


def _is_branch(op: Operation | None) -> bool:
    """A branch to a block of its function (one into another function's code names a
    label: the text emitter places it and checks its reach, since only it knows where
    the other function lands)."""
    return isinstance(op, InstructionOpBase) and op.KIND == "branch" \
        and branch_label(op) is None


def _ends_control(block: Block) -> bool:
    """Whether control never falls past ``block``'s end (an island can follow it)."""
    last = block.last_op
    if not isinstance(last, InstructionOpBase):
        return False
    if last.KIND == "terminator":
        return True
    return last.KIND == "branch" and last.mnemonic == "s_branch"


def in_range(delta: int, reach: int) -> bool:
    """Whether a branch reaches ``delta`` bytes from the instruction after it."""
    return -reach <= delta <= reach - 4


@dataclass
class _Round:
    """The function's layout at the start of a round, by slot: slot ``g`` is op ``g`` of
    the function in layout order, and the boundary right after it (where an island can
    go). Offsets count from the function's first byte."""

    ops: list[Operation] = field(default_factory=lambda: list[Operation]())
    #: Offset of each op's first byte and just past its last.
    start: list[int] = field(default_factory=lambda: list[int]())
    end: list[int] = field(default_factory=lambda: list[int]())
    #: Slot of each op.
    slot: dict[Operation, int] = field(default_factory=lambda: dict[Operation, int]())
    #: Slot of each block's first op.
    first: dict[Block, int] = field(default_factory=lambda: dict[Block, int]())
    #: Ends of blocks that control never falls past (islands there cost no path anything).
    natural: list[int] = field(default_factory=lambda: list[int]())
    #: Boundaries between two ops of a block (an island there needs a skip branch).
    skips: list[int] = field(default_factory=lambda: list[int]())
    #: Slots inside a PC-relative span, where no island may go.
    guarded: bytearray = field(default_factory=bytearray)
    #: The branches (last ops of blocks), in layout order.
    branches: list[InstructionOpBase] = field(
        default_factory=lambda: list[InstructionOpBase]())


@dataclass
class _Spot:
    """A candidate place for an island, weighed for one branch: at ``slot``, after the
    first ``position`` islands this round already put there."""

    slot: int
    position: int
    #: Bytes a skip branch over the island adds there (0 where control never falls).
    before: int
    #: How far the island would be from the branch's target.
    remaining: int


class _FunctionRelaxer:
    """Relaxes one function: rounds of islands until every branch reaches."""

    def __init__(self, function: FunctionLikeOp, isa: TargetISA, reach: int) -> None:
        self.function = function
        self.name = function.sym_name.data
        self.isa = isa
        self.reach = reach
        self.builder = InstBuilder(isa.name, isa.wavefront_size)
        #: Island -> the block its chain of islands ends at.
        self.islands: dict[Block, Block] = {}
        #: The islands of each chain's end, in the order they were made.
        self.by_final: dict[Block, list[Block]] = {}
        #: PC-relative operands' measuring points, from each instruction's first byte
        #: (instructions never change, so this is computed once per op).
        self.pc_points: dict[Operation, tuple[int, ...]] = {}
        #: Operand arrays with no symbolic operand (so no PC-relative one), by identity.
        self.plain_operands: dict[int, Attribute] = {}
        self.branch_size = 0
        #: Bytes short of its full reach a link is placed where a place allows; grows
        #: with each sweep that leaves a link broken (see :data:`SLACK`).
        self.margin = 0
        self.steps = 0
        self.rounds = 0
        # The current round's state (see _begin_round).
        self.layout = _Round()
        self.shifts = Shifts(0)
        #: Islands made in this round, in order, at each slot.
        self.placed: dict[int, list[Block]] = {}
        #: Slots where this round cut a block with a skip branch.
        self.skipped: set[int] = set()
        #: The same, ascending: after their islands control never falls, as at a block
        #: that ends in an unconditional transfer.
        self.opened: list[int] = []
        #: This round's islands: island -> its slot.
        self.new_island_slot: dict[Block, int] = {}
        #: Branches (their blocks) the round's backward sweep already holds.
        self.pending_back: set[Block] = set()

    # -- checks and sizes ----------------------------------------------------------------

    def check(self) -> None:
        """The IR must be laid out: conditional branches fall through to the next block,
        branches stay within the function, only instructions (the verifier holds
        ``amdgpu_mc.fallthrough`` to the next block)."""
        blocks = list(self.function.body.blocks)
        position = {block: index for index, block in enumerate(blocks)}
        for index, block in enumerate(blocks):
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            for op in block_ops(block):
                kind = type(op)  # by class first: ``isinstance`` goes through ABCMeta
                if not (is_instruction_class(kind) or kind is FallthroughOp
                        or kind is PackedCodeOp or kind is LabelOp):
                    raise _fail(self.name, f"'{op.name}' in ^bb{index} is not an instruction "
                                "(splice payloads first)")
            last = block.last_op
            if not _is_branch(last):
                continue
            assert isinstance(last, InstructionOpBase)
            for successor in last.successors:
                if successor not in position:
                    raise _fail(self.name, f"{last.mnemonic} in ^bb{index} branches to a "
                                "block outside the function")
            if len(last.successors) > 1 and last.successors[1] is not following:
                raise _fail(self.name, f"{last.mnemonic} in ^bb{index} falls through to a "
                            "block that is not the next one in layout")

    def measure(self) -> None:
        """The size of an island's ``s_branch`` (sizes never depend on branch offsets)."""
        probe = self.builder.branch("s_branch", [self.function.body.blocks.first or Block()])
        try:
            self.branch_size = instruction_size(probe, self.isa)
        except UnsizedError as error:
            raise _fail(self.name, str(error)) from None
        finally:
            probe.erase()

    def _branch(self, target: Block) -> InstructionOpBase:
        return self.builder.branch("s_branch", [target])

    def _lay_out(self) -> _Round:
        """The function's layout by slot, its candidate places and its guarded slots."""
        layout = _Round()
        offset = 0
        for block in self.function.body.blocks:
            ops = list(block_ops(block))
            layout.first[block] = len(layout.ops)
            for op in ops:
                size = 0
                if is_instruction_class(type(op)):
                    try:
                        size = instruction_size(cast(InstructionOpBase, op), self.isa)
                    except UnsizedError as error:
                        raise _fail(self.name, str(error)) from None
                layout.slot[op] = len(layout.ops)
                layout.ops.append(op)
                layout.start.append(offset)
                offset += size
                layout.end.append(offset)
            last_slot = len(layout.ops) - 1
            layout.skips.extend(range(layout.first[block], last_slot))
            if _ends_control(block):
                layout.natural.append(last_slot)
            if _is_branch(block.last_op):
                last = block.last_op
                assert isinstance(last, InstructionOpBase)
                layout.branches.append(last)
        layout.guarded = self._guarded(layout)
        return layout

    def _pc_points(self, op: InstructionOpBase) -> tuple[int, ...]:
        """Where each PC-relative operand of ``op`` is measured from, relative to ``op``'s
        first byte (``literal - addend``, usually the end of an ``s_getpc_b64``)."""
        operands = op.properties["mc_operands"]
        if id(operands) in self.plain_operands:
            return ()
        known = self.pc_points.get(op)
        if known is not None:
            return known
        if not any(isinstance(attr, SymbolOperandAttr)
                   for attr in cast(ArrayAttr[Attribute], operands).data):
            # Operand arrays are shared by the ops of one encoding: most ops are answered
            # by the identity of theirs (the array is kept, so its id stays its own).
            self.plain_operands[id(operands)] = operands
            return ()
        points: list[int] = []
        for attr in op.mc_operands.data:
            reference = attr.data.reference if isinstance(attr, SymbolOperandAttr) else None
            if reference is None or not literal_is_pc_relative(reference.variant):
                continue
            points.append(literal_offset(op, self.isa) - reference.addend)
        self.pc_points[op] = found = tuple(points)
        return found

    def _guarded(self, layout: _Round) -> bytearray:
        """Which slots lie in a span no island may split: between each PC-relative
        operand's instruction and the point it is measured from, ends included where
        bytes would land between the two."""
        spans: list[tuple[int, int]] = []
        plain = self.plain_operands
        for slot, op in enumerate(layout.ops):
            if not is_instruction_class(type(op)) or cast(InstructionOpBase, op).KIND == "branch" \
                    or id(op.properties["mc_operands"]) in plain:
                continue
            offset = layout.start[slot]
            for relative in self._pc_points(cast(InstructionOpBase, op)):
                point = offset + relative
                spans.append((point, offset) if point <= offset else (layout.end[slot], point))
        guarded = bytearray(len(layout.ops))
        if not spans:
            return guarded
        spans.sort()
        # Slot ends ascend: one sweep, with the ends of the spans opened so far in a heap
        # (a span that ended before this slot ends before every later one too).
        index, open_ends = 0, list[int]()
        for slot, boundary in enumerate(layout.end):
            while index < len(spans) and spans[index][0] <= boundary:
                heappush(open_ends, spans[index][1])
                index += 1
            while open_ends and open_ends[0] < boundary:
                heappop(open_ends)
            if open_ends:
                guarded[slot] = 1
        return guarded

    # -- offsets through this round's insertions -----------------------------------------

    def _begin_round(self) -> None:
        self.layout = self._lay_out()
        self.shifts = Shifts(len(self.layout.ops))
        self.placed = {}
        self.skipped = set()
        self.opened = []
        self.new_island_slot = {}
        self.pending_back = set()

    def _key(self, block: Block) -> tuple[int, int]:
        """What an insertion must precede to move ``block``'s start: an island at
        ``position`` of slot ``g`` moves it when ``(g, 2 * position) < key``. A block of
        the round's layout moves with any insertion before its first op; an island of
        this round, with any insertion at an earlier slot or before it at its own."""
        slot = self.new_island_slot.get(block)
        if slot is not None:
            return slot, 2 * self.placed[slot].index(block) + 1
        return self.layout.first[block] - 1, _LAST

    def _start(self, block: Block) -> int:
        """Where ``block`` starts now."""
        slot = self.new_island_slot.get(block)
        if slot is None:
            first = self.layout.first[block]
            return self.layout.start[first] + self.shifts.before(first)
        before = self.layout.end[slot] + self.shifts.before(slot)
        if slot in self.skipped:
            before += self.branch_size
        return before + self.branch_size * self.placed[slot].index(block)

    def _branch_end(self, branch: InstructionOpBase,
                    block: Block) -> tuple[int, tuple[int, int]]:
        """Where ``branch`` (the last op of ``block``) ends now, and its key (as
        :meth:`_key`'s: what an insertion must precede to move it)."""
        if block in self.new_island_slot:
            return self._start(block) + self.branch_size, self._key(block)
        slot = self.layout.slot[branch]
        return self.layout.end[slot] + self.shifts.before(slot), (slot - 1, _LAST)

    def _slot_offset(self, slot: int) -> int:
        """Where slot ``slot`` is now: the end of its op, before anything this round put
        there (ascending with the slot, so slots bisect by it)."""
        return self.layout.end[slot] + self.shifts.before(slot)

    # -- the fixed point -----------------------------------------------------------------

    def run(self) -> int:
        """Add islands until every branch reaches; returns how many were added."""
        self.check()
        if not any(_is_branch(block.last_op) for block in self.function.body.blocks):
            return 0
        if self._reaches():
            return 0
        self.measure()
        while True:
            self._begin_round()
            self._sweep([self._block(branch) for branch in self.layout.branches])
            if not self.placed:
                return len(self.islands)
            self.rounds += 1
            settled = self._all_reach()
            for _ in range(SWEEPS - 1):
                if settled:
                    break
                # Mend, with the round's exact offsets, the links its later islands broke.
                self._widen_margin()
                self._sweep(sorted([*map(self._block, self.layout.branches),
                                    *self.new_island_slot], key=self._end_of))
                settled = self._all_reach()
            self._materialise()
            if settled:
                return len(self.islands)
            self._widen_margin()

    def _reaches(self) -> bool:
        """Whether every branch reaches as the function is laid out now (most functions:
        then no round runs, and one plain layout is all the pass costs). Packed code
        that does not stay packed is unpacked here: an island may go between any two
        instructions, so the rounds see the instructions one by one (and place islands
        exactly as they would in the same code spliced op by op)."""
        try:
            layout = function_layout(self.function, self.isa, packed=True)
        except UnsizedError as error:
            raise _fail(self.name, str(error)) from None
        for block in layout.blocks:
            last = block.last_op
            if _is_branch(last):
                assert last is not None
                target = layout.block_offsets[last.successors[0]]
                if not in_range(target - layout.end(last), self.reach):
                    break
        else:
            return True
        for op in layout.packed:
            unpack(op)
        return False

    def _widen_margin(self) -> None:
        self.margin = min(self.reach // 2, self.margin + self.reach // SLACK) // 4 * 4

    def _all_reach(self) -> bool:
        """Whether every branch, the round's islands' included, reaches its target now
        (the round's offsets are exact: no need to lay the function out to know)."""
        for branch in self.layout.branches:
            block = branch.parent_block()
            assert block is not None
            here, _ = self._branch_end(branch, block)
            if not in_range(self._start(branch.successors[0]) - here, self.reach):
                return False
        for island in self.new_island_slot:
            branch = island.last_op
            assert isinstance(branch, InstructionOpBase)
            here, _ = self._branch_end(branch, island)
            if not in_range(self._start(branch.successors[0]) - here, self.reach):
                return False
        # Each skip branch jumps over its slot's islands.
        return all(in_range(self.branch_size * len(self.placed[slot]), self.reach)
                   for slot in self.skipped)

    @staticmethod
    def _block(branch: InstructionOpBase) -> Block:
        block = branch.parent_block()
        assert block is not None
        return block

    def _end_of(self, block: Block) -> int:
        """Where the branch ending ``block`` ends now."""
        branch = block.last_op
        assert isinstance(branch, InstructionOpBase)
        return self._branch_end(branch, block)[0]

    def _sweep(self, blocks: list[Block]) -> None:
        """Relax the round's branches one link at a time, forward links in ascending
        order of where they start, then backward links in descending order. A link placed
        at its full reach breaks when a later island of the round lands between its
        branch and its island; in these orders later islands land beyond it (a forward
        link's island is met when the sweep reaches it, not at once)."""
        ahead: list[tuple[int, int, Block]] = []
        behind: list[tuple[int, int, Block]] = []
        self.pending_back = set()
        for block in blocks:
            here = self._end_of(block)
            while ahead and ahead[0][0] <= here:
                _, _, island = heappop(ahead)
                self._follow(island, ahead, behind)
            self._follow(block, ahead, behind)
        while ahead:
            _, _, island = heappop(ahead)
            self._follow(island, ahead, behind)
        while behind:
            _, _, island = heappop(behind)
            self._follow(island, ahead, behind)
            while ahead:  # a backward link whose island overshot: finish it at once
                _, _, island = heappop(ahead)
                self._relax_if_needed(island)

    def _follow(self, block: Block, ahead: list[tuple[int, int, Block]],
                behind: list[tuple[int, int, Block]]) -> None:
        """One link of ``block``'s branch, if it does not reach: the island it placed
        (or the branch itself, for a backward link met in the forward sweep) waits in
        ``ahead`` or ``behind`` for its turn."""
        branch = block.last_op
        assert isinstance(branch, InstructionOpBase)
        here, _ = self._branch_end(branch, block)
        delta = self._start(branch.successors[0]) - here
        if in_range(delta, self.reach):
            return
        if delta < 0 and block not in self.pending_back:
            self.pending_back.add(block)
            heappush(behind, (-here, self.steps + len(self.pending_back) * MAX_STEPS, block))
            return
        island = self._relax_once(branch, block)
        if island is None:
            return
        island_branch = island.last_op
        assert isinstance(island_branch, InstructionOpBase)
        end, _ = self._branch_end(island_branch, island)
        self.pending_back.add(island)
        order = self.steps
        if self._start(island_branch.successors[0]) >= end:
            heappush(ahead, (end, order, island))
        else:
            heappush(behind, (-end, order, island))

    def _relax_if_needed(self, block: Block) -> None:
        """Relax ``block``'s branch if it does not reach its target now; then the island,
        if it is itself too far, and so on down the chain."""
        current: Block | None = block
        while current is not None:
            branch = current.last_op
            assert isinstance(branch, InstructionOpBase)
            current = self._relax_once(branch, current)

    def _relax_once(self, branch: InstructionOpBase, block: Block) -> Block | None:
        """Relax ``branch`` (the last op of ``block``) by one link if it does not reach
        its target now: the new island, whose own branch may not reach yet, or None."""
        target = branch.successors[0]
        here, key = self._branch_end(branch, block)
        if in_range(self._start(target) - here, self.reach):
            return None
        if self.steps >= MAX_STEPS:
            raise _fail(self.name, f"branches still out of range after {self.steps} "
                        "relaxations")
        self.steps += 1
        island = self._reusable_island(branch, block, here)
        if island is not None:
            branch.successors = [island, *branch.successors[1:]]
            return None
        spot = self._choose_spot(target, here, key)
        if spot is None:
            raise _fail(self.name, f"{branch.mnemonic} at "
                        f"{here - self.branch_size:#x} is out of range and "
                        "no place within its reach can hold a branch island")
        island = self._place_island(spot, target)
        branch.successors = [island, *branch.successors[1:]]
        return island

    # -- choosing where the island goes --------------------------------------------------

    def _final(self, block: Block) -> Block:
        return self.islands.get(block, block)

    def _reusable_island(self, branch: InstructionOpBase, block: Block,
                         here: int) -> Block | None:
        """An island already going (through its chain) where ``branch`` goes, within
        reach and closer to that target: sharing it costs no bytes."""
        target = branch.successors[0]
        final = self._final(target)
        goal = self._start(final)
        best: tuple[int, Block] | None = None
        for island in self.by_final.get(final, ()):
            if island is target:
                continue
            start = self._start(island)
            if not in_range(start - here, self.reach):
                continue
            if self._chain_contains(island, block):
                continue
            remaining = abs(goal - (start + self.branch_size))
            if remaining < abs(goal - here) and (best is None or remaining < best[0]):
                best = (remaining, island)
        return best[1] if best is not None else None

    def _chain_contains(self, island: Block, block: Block) -> bool:
        """Whether following ``island``'s chain passes through ``block`` (a cycle)."""
        current: Block | None = island
        while current is not None and current in self.islands:
            if current is block:
                return True
            last = current.last_op
            current = last.successors[0] if last is not None and last.successors else None
        return current is block

    def _choose_spot(self, target: Block, here: int,
                     key: tuple[int, int]) -> _Spot | None:
        """The spot closest to ``target`` from which the island still gets there sooner;
        a spot control never falls into first (no cost on any path: the end of a block
        that ends in an unconditional transfer, or the end of an island this round put
        behind a skip branch), a skip spot else. Where the natural island would not reach
        the target itself, a skip spot that gets more than twice as far wins (a skip costs
        one branch on the fall-through path, a link one on the taken path). Ties go to
        the spot first in layout.

        Without that last rule a chain could grow by a few bytes a link: in a kernel
        instrumented at every instruction (rocPRIM's segmented radix sort, 2.4 MB after
        splicing), the only natural spot within reach of many far branches was the end of
        an island the round had opened, and each next link went right after the last one,
        four bytes closer (thousands of islands in one place, and no end in sight)."""
        distance = abs(self._start(target) - here)
        for margin in dict.fromkeys((self.margin, 0)):
            natural = self._closest((self.layout.natural, self.opened), False, target, here,
                                    key, margin)
            skip = self._closest((self.layout.skips,), True, target, here, key, margin)
            if natural is not None and (skip is None or self._natural_is_as_good(
                    natural.remaining, skip.remaining, distance)):
                return natural
            if skip is not None:
                return skip
        return None

    def _natural_is_as_good(self, natural: int, skip: int, distance: int) -> bool:
        """Whether an island at a natural spot ``natural`` bytes from the target serves as
        well as one at a skip spot ``skip`` bytes from it (see :meth:`_choose_spot`)."""
        # A branch reaches ``reach - 4`` bytes forward, ``reach`` back.
        return natural <= self.reach - 4 or 2 * (distance - natural) >= distance - skip

    def _closest(self, lists: tuple[list[int], ...], skip: bool, target: Block, here: int,
                 key: tuple[int, int], margin: int) -> _Spot | None:
        """The best slot of ``lists`` (each ascending) for a branch ending at ``here``
        (moved by insertions before ``key``). How far an island is from the target falls
        towards the target and rises past it, and the slots the branch reaches are
        contiguous, so the best lies next to the target or next to an end of the reach:
        only the slots around those three points are weighed."""
        target_start = self._start(target)
        distance = abs(target_start - here)
        candidates: set[int] = set()
        for slots in lists:
            for anchor in (here - self.reach + margin, target_start, here + self.reach - margin):
                self._around(slots, anchor, candidates)
        target_key = self._key(target)
        best: _Spot | None = None
        size = self.branch_size
        for slot in sorted(candidates):
            if skip and slot in self.skipped:
                continue  # cut already: its islands' places are natural ones
            before = size if skip else 0
            added = before + size
            base = self._slot_offset(slot) + (size if slot in self.skipped else 0) + before
            # Right after the op (or its skip branch), or after any island already there.
            for position in range(len(self.placed.get(slot, ())) + 1):
                insertion = (slot, 2 * position)
                branch_end = here + added if insertion < key else here
                moved = target_start + added if insertion < target_key else target_start
                island = base + size * position
                if not in_range(island - branch_end, self.reach - margin):
                    continue
                remaining = abs(moved - (island + size))
                if remaining < distance and (best is None or remaining < best.remaining):
                    best = _Spot(slot, position, before, remaining)
        return best

    def _around(self, slots: list[int], anchor: int, into: set[int]) -> None:
        """Add to ``into`` the unguarded slots within ``_MARGIN`` bytes of ``anchor`` and
        the nearest one beyond that margin on each side."""
        guarded = self.layout.guarded
        middle = bisect_left(slots, anchor, key=self._slot_offset)
        index = middle - 1
        while index >= 0:
            slot = slots[index]
            index -= 1
            if guarded[slot]:
                continue
            into.add(slot)
            if self._slot_offset(slot) < anchor - _MARGIN:
                break
        index = middle
        while index < len(slots):
            slot = slots[index]
            index += 1
            if guarded[slot]:
                continue
            into.add(slot)
            if self._slot_offset(slot) > anchor + _MARGIN:
                break

    # -- inserting -----------------------------------------------------------------------

    def _place_island(self, spot: _Spot, target: Block) -> Block:
        """An island to ``target`` at ``spot``, counted in this round's offsets; it joins
        the IR when the round ends."""
        island = Block()
        island.add_op(self._branch(target))
        final = self._final(target)
        self.islands[island] = final
        self.by_final.setdefault(final, []).append(island)
        if spot.before:
            self.skipped.add(spot.slot)
            insort(self.opened, spot.slot)
        self.shifts.insert(spot.slot, spot.before + self.branch_size)
        self.placed.setdefault(spot.slot, []).insert(spot.position, island)
        self.new_island_slot[island] = spot.slot
        return island

    def _materialise(self) -> None:
        """Put this round's islands into the IR: after their op, behind a skip branch
        where control falls there. Later slots first, so a block cut twice is cut at its
        later boundary before its earlier one, and each cut moves only what follows it."""
        region = self.function.body
        for slot in sorted(self.placed, reverse=True):
            op = self.layout.ops[slot]
            block = op.parent_block()
            assert block is not None
            if slot in self.skipped:
                following = self._cut_after(op, block)
                block.add_op(self._branch(following))
            previous = block
            for island in self.placed[slot]:
                region.insert_block_after(island, previous)
                previous = island

    def _cut_after(self, op: Operation, block: Block) -> Block:
        """Move the ops after ``op`` to a new block right after ``block`` (or, when only a
        fall-through follows it, drop that and use its destination): where the skip
        branch goes."""
        rest: list[Operation] = []
        current = op.next_op
        while current is not None:
            rest.append(current)
            current = current.next_op
        if len(rest) == 1 and isinstance(rest[0], FallthroughOp):
            following = rest[0].dest
            block.erase_op(rest[0])
            return following
        following = Block()
        for moved in rest:
            moved.detach()
            following.add_op(moved)
        self.function.body.insert_block_after(following, block)
        return following


@dataclass(frozen=True)
class Relaxation:
    """What relaxing one function did."""

    #: Islands added.
    islands: int
    #: Rounds that added islands (each lays the function out once).
    rounds: int


def relax_function(function: FunctionLikeOp, isa: TargetISA,
                   reach: int = HARDWARE_REACH) -> Relaxation:
    """Relax ``function``'s branches."""
    relaxer = _FunctionRelaxer(function, isa, reach)
    islands = relaxer.run()
    return Relaxation(islands, relaxer.rounds)


def relax_branches(code_object: CodeObjectOp, reach: int = HARDWARE_REACH) -> int:
    """Make every branch of ``code_object`` reach its target; returns the islands added."""
    if reach % 4 or not MINIMUM_REACH <= reach <= HARDWARE_REACH:
        raise PassFailedException(f"relax-branches: reach is a multiple of 4 from "
                                  f"{MINIMUM_REACH} to {HARDWARE_REACH}, not {reach}")
    isa = load_target(*code_object.target_key)
    return sum(relax_function(op, isa, reach).islands
               for op in over("relax-branches", [op for op in code_object.body.ops
                                                  if isinstance(op, FunctionLikeOp)], "function"))


@dataclass(frozen=True)
class RelaxBranchesPass(ModulePass):
    """Retarget branches that no longer reach their targets to branch islands (blocks of
    one ``s_branch``), needing no register; ``reach`` (bytes, default the hardware's
    128 KiB) lets tests use small inputs."""

    name = "relax-branches"

    reach: int = HARDWARE_REACH

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in code_objects_in(op):
            relax_branches(code_object, self.reach)
