"""Basic blocks of one function from its decoded instructions (plain Python, no IR yet).

A block starts at the function entry, at every branch target and after every branch or
terminator; it ends in a branch (successors: the target, then the next block for a
conditional branch), a terminator (none), or falls through into the next block. Branch
targets must be instruction boundaries inside the function, or in the code of another
function the lifter lifts (hand-written code sharing a tail: the block then names a label
there instead of its taken target); anything else means the bytes are not what we think
they are, and the lifter refuses rather than guess.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from luthier.amdgpu_dialects.amdgpu_mc.mnemonics import INSTRUCTION_KINDS
from luthier.amdgpu_dialects.mc.decoder import MCInst
from luthier.frontend.lift.errors import LiftError


@dataclass(slots=True)
class DecodedInst:
    """A decoded instruction at ``address``, with its printed mnemonic (the op it becomes)
    and that op's kind (``branch``, ``terminator``, ``call``...: ``INSTRUCTION_KINDS``).

    ``mc`` may be shared by every instruction with the same bytes
    (:meth:`~luthier.amdgpu_dialects.mc.decoder.Decoder.decode_shared`): read it only."""

    mc: MCInst
    address: int
    mnemonic: str
    kind: str
    #: The address just past the instruction.
    end: int

    @classmethod
    def of(cls, mc: MCInst, address: int, mnemonic: str) -> DecodedInst:
        return cls(mc, address, mnemonic, INSTRUCTION_KINDS[mnemonic], address + mc.size)


@dataclass(slots=True)
class BasicBlock:
    start: int
    instructions: list[DecodedInst] = field(default_factory=lambda: list[DecodedInst]())
    #: Start addresses of the successor blocks: taken target first, then fall-through.
    successors: list[int] = field(default_factory=lambda: list[int]())
    #: True when the block ends without a branch or terminator (explicit fall-through).
    falls_through: bool = False
    #: The label its branch goes to in another function's code (its taken target is not
    #: among ``successors`` then).
    label: str | None = None


#: The kinds of instruction after which a block ends.
_ENDS_BLOCK = frozenset(("branch", "terminator"))

#: The label of an address in another function's code (None: in no function we lift).
LabelOf = Callable[[int], str | None]


def _no_label(address: int) -> None:
    return None


def branch_target(inst: DecodedInst) -> int:
    """The address a SOPP branch goes to: next instruction + 4 * signed simm16."""
    raw = inst.mc.operands[0]
    assert isinstance(raw, int)
    offset = raw - 0x10000 if raw & 0x8000 else raw
    return inst.end + 4 * offset


def build_blocks(function: str, instructions: list[DecodedInst],
                 label_of: LabelOf = _no_label,
                 entries: Collection[int] = ()) -> list[BasicBlock]:
    """Split ``instructions`` (in address order, contiguous) into basic blocks; a branch
    outside the function goes to ``label_of(target)``, if that names one. A block also
    starts at each of ``entries`` (where other functions' branches land)."""
    if not instructions:
        raise LiftError(function, "the function has no instructions")
    start, end = instructions[0].address, instructions[-1].end
    index_of = {inst.address: index for index, inst in enumerate(instructions)}
    leaders = {start, *entries}
    labels: dict[int, str] = {}
    for inst in [inst for inst in instructions if inst.kind in _ENDS_BLOCK]:
        if inst.kind == "branch":
            target = branch_target(inst)
            if not start <= target < end:
                label = label_of(target)
                if label is None:
                    raise LiftError(f"{function}+{inst.address - start:#x}",
                                    f"{inst.mnemonic} targets {target:#x}, outside the "
                                    f"function [{start:#x}, {end:#x}) and every other one")
                labels[inst.address] = label
                if inst.end < end:
                    leaders.add(inst.end)
                continue
            if target not in index_of:
                raise LiftError(f"{function}+{inst.address - start:#x}",
                                f"{inst.mnemonic} targets {target:#x}, which is not the "
                                "start of an instruction")
            leaders.add(target)
        if inst.end < end:
            leaders.add(inst.end)
    # Leaders between instruction boundaries (another function's entries that are not)
    # start no block; _check_labels refuses them.
    firsts = sorted(index_of[leader] for leader in leaders if leader in index_of)
    blocks = [BasicBlock(instructions[first].address, instructions[first:following])
              for first, following in zip(firsts, [*firsts[1:], len(instructions)], strict=True)]
    for index, block in enumerate(blocks):
        last = block.instructions[-1]
        following = blocks[index + 1].start if index + 1 < len(blocks) else None
        if last.kind == "branch":
            block.label = labels.get(last.address)
            if block.label is None:
                block.successors.append(branch_target(last))
            if last.mnemonic != "s_branch":
                if following is None:
                    raise LiftError(f"{function}+{last.address - start:#x}",
                                    f"{last.mnemonic} at the end of the function would fall "
                                    "through past its end")
                block.successors.append(following)
        elif last.kind != "terminator":
            if following is None:
                raise LiftError(f"{function}+{last.address - start:#x}",
                                f"the function ends with {last.mnemonic}, which falls "
                                "through past its end")
            block.successors.append(following)
            block.falls_through = True
    return blocks
