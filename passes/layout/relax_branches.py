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
so the pass repeats until every branch reaches (a fixed point). Application instructions
keep their ops and order; a function whose branches all reach is not touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    FunctionLayout,
    UnsizedError,
    function_layout,
    instruction_size,
    literal_offset,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FallthroughOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.isa.target import TargetISA, load_target
from luthier.amdgpu_dialects.mc.relocations import literal_is_pc_relative
from luthier.lowering.progress import over

#: Bytes a SOPP branch reaches backward from the instruction after it (2**15 words); it
#: reaches ``HARDWARE_REACH - 4`` forward.
HARDWARE_REACH = 4 << 15
#: The smallest ``reach`` option: room for a skip branch, an island and some code.
MINIMUM_REACH = 16
#: Relaxations one function may need before the pass gives up (a safety net: each one
#: moves a branch strictly closer to its target, so this is never reached in practice).
MAX_STEPS = 100_000


def _fail(function: str, reason: str) -> PassFailedException:
    return PassFailedException(f"relax-branches: @{function}: {reason}")


def _is_branch(op: Operation | None) -> bool:
    return isinstance(op, InstructionOpBase) and op.KIND == "branch"


def _ends_control(block: Block) -> bool:
    """Whether control never falls past ``block``'s end (an island can follow it)."""
    last = block.last_op
    if not isinstance(last, InstructionOpBase):
        return False
    if last.KIND == "terminator":
        return True
    return last.KIND == "branch" and last.mnemonic == "s_branch" and len(last.successors) == 1


def in_range(delta: int, reach: int) -> bool:
    """Whether a branch reaches ``delta`` bytes from the instruction after it."""
    return -reach <= delta <= reach - 4


@dataclass(frozen=True)
class _Spot:
    """Where an island can go: before op ``index`` of ``block`` (``index`` = the number of
    ops: after the block), at byte ``offset``; ``skip`` when control reaches the spot, so
    an ``s_branch`` over the island must come first."""

    block: Block
    index: int
    offset: int
    skip: bool


@dataclass
class _Layout:
    """The function's layout (counted from its first byte), with each block's layout
    index and op count."""

    code: FunctionLayout
    blocks: tuple[Block, ...]
    index: dict[Block, int] = field(default_factory=lambda: dict[Block, int]())
    start: dict[Block, int] = field(default_factory=lambda: dict[Block, int]())
    end: dict[Block, int] = field(default_factory=lambda: dict[Block, int]())
    #: Ops in each block (a spot after the block is at this index).
    count: dict[Block, int] = field(default_factory=lambda: dict[Block, int]())


@dataclass(frozen=True)
class _Guard:
    """Bytes inserted anywhere in ``[low, high]`` would change a PC-relative operand."""

    low: int
    high: int


class _FunctionRelaxer:
    """Relaxes one function: islands added until every branch reaches, the layout
    measured again after each."""

    def __init__(self, function: FunctionLikeOp, isa: TargetISA, reach: int) -> None:
        self.function = function
        self.name = function.sym_name.data
        self.isa = isa
        self.reach = reach
        self.builder = InstBuilder(isa.name)
        #: Island -> the block its chain of islands ends at.
        self.islands: dict[Block, Block] = {}
        self.branch_size = 0

    # -- checks and sizes ----------------------------------------------------------------

    def check(self) -> None:
        """The IR must be laid out: conditional branches fall through to the next block,
        branches stay within the function, only instructions (the verifier holds
        ``amdgpu_mc.fallthrough`` to the next block)."""
        blocks = list(self.function.body.blocks)
        position = {block: index for index, block in enumerate(blocks)}
        for index, block in enumerate(blocks):
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            for op in block.ops:
                if not isinstance(op, InstructionOpBase | FallthroughOp):
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

    def layout(self) -> _Layout:
        try:
            code = function_layout(self.function, self.isa)
        except UnsizedError as error:
            raise _fail(self.name, str(error)) from None
        layout = _Layout(code, code.blocks)
        for index, block in enumerate(code.blocks):
            layout.index[block] = index
            layout.start[block] = code.block_offsets[block]
            layout.end[block] = code.block_end(block)
            layout.count[block] = sum(1 for _ in block.ops)
        return layout

    def guards(self, layout: _Layout) -> list[_Guard]:
        """The spans no island may split: between each PC-relative operand's instruction
        and the point it is measured from (``literal - addend``, usually the end of an
        ``s_getpc_b64``), ends included where bytes would land between the two."""
        guards: list[_Guard] = []
        for op, offset in layout.code.instructions():
            if op.KIND == "branch":
                continue
            for attr in op.mc_operands.data:
                reference = attr.data.reference if isinstance(attr, SymbolOperandAttr) else None
                if reference is None or not literal_is_pc_relative(reference.variant):
                    continue
                point = offset + literal_offset(op, self.isa) - reference.addend
                guards.append(_Guard(point, offset) if point <= offset
                              else _Guard(layout.code.end(op), point))
        return guards

    # -- the fixed point -----------------------------------------------------------------

    def run(self) -> int:
        """Add islands until every branch reaches; returns how many were added."""
        self.check()
        if not any(_is_branch(block.last_op) for block in self.function.body.blocks):
            return 0
        self.measure()
        steps = 0
        while True:
            layout = self.layout()
            branch = self._out_of_range(layout)
            if branch is None:
                return len(self.islands)
            if steps >= MAX_STEPS:
                raise _fail(self.name, f"branches still out of range after {steps} "
                            "relaxations")
            self._relax(branch, layout)
            steps += 1

    def _out_of_range(self, layout: _Layout) -> InstructionOpBase | None:
        """The first branch in layout order that does not reach its target."""
        for block in layout.blocks:
            last = block.last_op
            if not _is_branch(last):
                continue
            assert isinstance(last, InstructionOpBase)
            delta = layout.start[last.successors[0]] - layout.end[block]
            if not in_range(delta, self.reach):
                return last
        return None

    def _relax(self, branch: InstructionOpBase, layout: _Layout) -> None:
        block = branch.parent_block()
        assert block is not None
        target = branch.successors[0]
        island = self._reusable_island(branch, block, layout)
        if island is None:
            spot = self._choose_spot(block, target, layout)
            if spot is None:
                raise _fail(self.name, f"{branch.mnemonic} at "
                            f"{layout.code.offsets[branch]:#x} is out of range and "
                            "no place within its reach can hold a branch island")
            island = self._insert_island(spot, target)
        branch.successors = [island, *branch.successors[1:]]

    # -- choosing where the island goes --------------------------------------------------

    def _final(self, block: Block) -> Block:
        return self.islands.get(block, block)

    def _reusable_island(self, branch: InstructionOpBase, block: Block,
                         layout: _Layout) -> Block | None:
        """An island already going (through its chain) where ``branch`` goes, within
        reach and closer to that target: sharing it costs no bytes."""
        target = branch.successors[0]
        final = self._final(target)
        goal = layout.start[final]
        here = layout.end[block]
        best: tuple[int, Block] | None = None
        for island, destination in self.islands.items():
            if destination is not final or island is target:
                continue
            if not in_range(layout.start[island] - here, self.reach):
                continue
            if self._chain_contains(island, block):
                continue
            remaining = abs(goal - layout.end[island])
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

    def _choose_spot(self, block: Block, target: Block, layout: _Layout) -> _Spot | None:
        """The spot closest to ``target`` from which the island still gets there sooner;
        a spot control never falls into first (no cost on any path), a skip spot else."""
        guards = self.guards(layout)
        natural = [spot for spot in self._natural_spots(layout) if self._allowed(spot, guards)]
        chosen = self._closest(natural, block, target, layout)
        if chosen is not None:
            return chosen
        skips = [spot for spot in self._skip_spots(block, layout)
                 if self._allowed(spot, guards)]
        return self._closest(skips, block, target, layout)

    @staticmethod
    def _allowed(spot: _Spot, guards: list[_Guard]) -> bool:
        return not any(guard.low <= spot.offset <= guard.high for guard in guards)

    def _natural_spots(self, layout: _Layout) -> list[_Spot]:
        return [_Spot(block, layout.count[block], layout.end[block], False)
                for block in layout.blocks if _ends_control(block)]

    def _skip_spots(self, branch_block: Block, layout: _Layout) -> list[_Spot]:
        """Every boundary between two ops of a block within reach of the branch (the end
        of a block that falls through counts: its fall-through becomes the skip)."""
        here = layout.end[branch_block]
        low, high = here - self.reach - 2 * self.branch_size, here + self.reach
        spots: list[_Spot] = []
        for block in layout.blocks:
            if layout.end[block] < low or layout.start[block] > high:
                continue
            ops = list(block.ops)
            for index, op in enumerate(ops[:-1]):
                offset = layout.code.end(op)
                if low <= offset <= high:
                    spots.append(_Spot(block, index + 1, offset, True))
        return spots

    def _closest(self, spots: list[_Spot], block: Block, target: Block,
                 layout: _Layout) -> _Spot | None:
        here = layout.end[block]
        distance = abs(layout.start[target] - here)
        best: tuple[int, _Spot] | None = None
        for spot in spots:
            remaining = self._remaining(spot, block, target, layout)
            if remaining is not None and remaining < distance \
                    and (best is None or remaining < best[0]):
                best = (remaining, spot)
        return best[1] if best is not None else None

    def _remaining(self, spot: _Spot, block: Block, target: Block,
                   layout: _Layout) -> int | None:
        """How far the island at ``spot`` is from ``target``, or None when the branch in
        ``block`` would not reach the island: both measured after the insertion, which
        moves everything after the spot."""
        before = self.branch_size if spot.skip else 0
        added = before + self.branch_size
        spot_key = (layout.index[spot.block], spot.index)
        branch_end = layout.end[block]
        if (layout.index[block], layout.count[block]) > spot_key:
            branch_end += added
        target_start = layout.start[target]
        if layout.index[target] > spot_key[0]:
            target_start += added
        island = spot.offset + before
        if not in_range(island - branch_end, self.reach):
            return None
        return abs(target_start - (island + self.branch_size))

    # -- inserting -----------------------------------------------------------------------

    def _insert_island(self, spot: _Spot, target: Block) -> Block:
        region = self.function.body
        island = Block()
        island.add_op(self._branch(target))
        self.islands[island] = self._final(target)
        if spot.skip:
            ops = list(spot.block.ops)
            last = ops[spot.index]
            if spot.index == len(ops) - 1 and isinstance(last, FallthroughOp):
                following = last.dest
                spot.block.erase_op(last)
            else:
                following = Block()
                for op in ops[spot.index:]:
                    op.detach()
                    following.add_op(op)
                region.insert_block_after(following, spot.block)
            spot.block.add_op(self._branch(following))
        region.insert_block_after(island, spot.block)
        return island


def relax_function(function: FunctionLikeOp, isa: TargetISA, reach: int = HARDWARE_REACH) -> int:
    """Relax ``function``'s branches; returns how many islands were added."""
    return _FunctionRelaxer(function, isa, reach).run()


def relax_branches(code_object: CodeObjectOp, reach: int = HARDWARE_REACH) -> int:
    """Make every branch of ``code_object`` reach its target; returns the islands added."""
    if reach % 4 or not MINIMUM_REACH <= reach <= HARDWARE_REACH:
        raise PassFailedException(f"relax-branches: reach is a multiple of 4 from "
                                  f"{MINIMUM_REACH} to {HARDWARE_REACH}, not {reach}")
    isa = load_target(code_object.processor)
    return sum(relax_function(op, isa, reach)
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
        for code_object in op.walk():
            if isinstance(code_object, CodeObjectOp):
                relax_branches(code_object, self.reach)
