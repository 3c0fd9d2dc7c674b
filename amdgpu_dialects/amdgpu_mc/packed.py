"""Packed machine code: one op standing for a run of instructions that many points share.

Instrumenting every instruction of a library puts the same few allocated payload bodies in
front of tens of thousands of instructions. Materialised, that is twenty-odd instruction ops
per point (over a million for a 55k-instruction object), and every later stage (splicing,
wait states, layout, relaxation, descriptors, emission) walks each of them. A
:class:`PackedCode` holds one such body once, as instruction ops that live in a block of
their own; an :class:`PackedCodeOp` in a function stands for a copy of it, so a point
costs one op and its bytes are encoded once per body.

Packed code is what ``lower-hooks`` gives the payloads when it is asked to (the drivers
do, when the result is written as a code object and nothing else looks at the IR in
between). The stages after it take a packed op for the instructions it holds, and
produce exactly the bytes those instructions would give spliced one by one:

* layout and emission size and write it whole (:func:`~.layout.packed_encoding`: its
  bytes, and where its symbolic operands need relocations);
* wait states look at its instructions, and unpack it (:func:`unpack`) when an ``s_nop``
  must go between two of them;
* branch relaxation unpacks the packed ops of a function whose branches do not all reach
  (an island may go between any two instructions).

It holds straight-line code only: one block of instruction ops on physical registers, no
branch. The ops are never changed (unpacking copies them), and the body is shared by
identity, so nothing may insert into or edit :attr:`PackedCode.ops`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar, cast

from xdsl.ir import Block, Data, Operation
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, prop_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from luthier.amdgpu_dialects.amdgpu_mc.copy import (
    copy_machine_ops,
    insert_new_ops_before,
    successor_blocks,
)
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr

_Fact = TypeVar("_Fact")


class PackedCode:
    """An immutable run of straight-line machine instructions, shared by every packed op
    that stands for it. Identity is equality: two bodies with equal instructions made
    separately are two codes (the caller shares what it knows to be equal).

    A code may be a *variant* of another: the same instructions but for the addends of
    symbolic operands (``table@rel32@lo+4+8*opcode``: the members of a template family,
    one per opcode). Nothing but the relocations reads an addend, so the facts that do not
    (sizes, zero-literal bytes, register units, hazard masks) are found once per family
    (:meth:`shared`) rather than once per variant; a variant holds the very instruction
    ops of its family where their operands are the same."""

    __slots__ = ("ops", "memo", "family")

    def __init__(self, ops: Sequence[InstructionOpBase],
                 variant_of: PackedCode | None = None) -> None:
        #: The instructions, in order; they stay in the block they came from.
        self.ops: tuple[InstructionOpBase, ...] = tuple(ops)
        #: Facts derived from :attr:`ops` by later layers (encodings per target, register
        #: units, hazard masks), keyed by whoever derives them (:meth:`derived`).
        self.memo: dict[object, object] = {}
        #: The first code of this one's family (itself when it is no variant): ``ops``
        #: are its ops, one for one, but for the addends of symbolic operands.
        self.family: PackedCode = self if variant_of is None else variant_of.family
        if len(self.family.ops) != len(self.ops):
            raise ValueError("a variant of packed code has its family's instructions, "
                             f"one for one ({len(self.ops)} against "
                             f"{len(self.family.ops)})")

    def derived(self, key: Hashable, compute: Callable[[], _Fact]) -> _Fact:
        """The fact ``key`` of this code, computed once: every packed op of the code (tens
        of thousands) asks the same question of the same instructions."""
        if key not in self.memo:
            self.memo[key] = compute()
        return cast(_Fact, self.memo[key])

    def shared(self, key: Hashable, compute: Callable[[PackedCode], _Fact]) -> _Fact:
        """The fact ``key`` of this code's family, ``compute`` of its first code, found
        once per family: for facts that read no addend of a symbolic operand (they are the
        same for every variant)."""
        family = self.family
        memo = family.memo
        if key not in memo:
            memo[key] = compute(family)
        return cast(_Fact, memo[key])

    def symbolic_positions(self) -> tuple[int, ...]:
        """The positions of the instructions with a symbolic operand: the only ones a
        variant may hold in place of its family's (found once per family)."""
        return self.shared("symbolic positions", lambda family: tuple(
            index for index, op in enumerate(family.ops)
            if any(isinstance(attr, SymbolOperandAttr) for attr in op.mc_operands.data)))

    @staticmethod
    def of_block(block: Block) -> PackedCode | None:
        """The code of ``block`` (instructions, then one terminator that is not an
        instruction, such as ``instr.return``), or None when it cannot be packed: an op
        that is not an instruction, a branch, a virtual register."""
        ops: list[InstructionOpBase] = []
        last = block.last_op
        for op in block.ops:
            instruction = is_instruction_class(type(op))
            if op is last and not instruction:
                break
            if not instruction:
                return None
            op = cast(InstructionOpBase, op)
            if op.KIND == "branch" or successor_blocks(op) \
                    or VirtRegAttr in map(type, op.mc_operands.data):
                return None
            ops.append(op)
        return PackedCode(ops) if ops else None


@irdl_attr_definition
class PackedCodeAttr(Data[PackedCode]):
    """The code a packed op stands for (printed as its opcodes; built in memory only)."""

    name = "amdgpu_mc.packed_code"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> PackedCode:
        parser.raise_error("#amdgpu_mc.packed_code is built in memory by lower-hooks and "
                           "cannot be parsed (IR that luthier-opt prints never holds it)")

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(
            "<" + ", ".join(f'"{op.opcode.data}"' for op in self.data.ops) + ">")


@irdl_op_definition
class PackedCodeOp(IRDLOperation):
    """``amdgpu_mc.packed``: a copy of a :class:`PackedCode`'s instructions at this place
    in a block (see the module's docstring)."""

    name = "amdgpu_mc.packed"

    code = prop_def(PackedCodeAttr)

    #: Identity hashing without a Python call (as :class:`~.instructions.InstructionOpBase`).
    __hash__ = object.__hash__

    @classmethod
    def of(cls, code: PackedCodeAttr) -> PackedCodeOp:
        """A detached packed op for ``code`` (one attribute shared by every op of the
        code), copied from a first one made by ``Operation.create`` (one packed op is made
        per instrumented point, and the copy skips the checks the first one passed)."""
        if not _PROTOTYPE:
            _PROTOTYPE.append(cls.create(properties={"code": code}))
        op = copy_machine_ops(_PROTOTYPE)[0]
        op.properties["code"] = code
        assert isinstance(op, PackedCodeOp)
        return op


#: The packed op :meth:`PackedCodeOp.of` copies.
_PROTOTYPE: list[PackedCodeOp] = []


def unpack(op: PackedCodeOp) -> list[InstructionOpBase]:
    """Replace ``op`` in its block by copies of its instructions; returns the copies."""
    block = op.parent_block()
    assert block is not None, "a packed op outside a block has nothing to unpack into"
    copies = copy_machine_ops(op.code.data.ops)
    insert_new_ops_before(op, copies)
    block.erase_op(op)
    return [copy for copy in copies if isinstance(copy, InstructionOpBase)]


def unpack_all(ops: Sequence[Operation]) -> int:
    """Unpack every packed op of ``ops``; returns how many there were."""
    packed = [op for op in ops if isinstance(op, PackedCodeOp)]
    for op in packed:
        unpack(op)
    return len(packed)
