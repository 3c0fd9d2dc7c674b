"""Template families: shapes whose lowered code differs only in symbol addends.

A hook that indexes a tool global by a constant of the point (opcode_histogram's
``#instr.site<"opcode">``) is one shape per constant, so ``lower-hooks`` compiled and
allocated it once per opcode. Selection moves such a constant into the global's address
(:func:`~luthier.lowering.isel.arith.lower_add_sub`), so the templates of those shapes are
one code but for the addends of their symbolic operands (``table@rel32@lo+4+8*opcode``).
Nothing before the encoder reads an addend:

* the allocator sees registers and operand slots; a symbolic operand is a literal whatever
  its addend, so its decisions, and their record, are the same for every member;
* ``verify-payloads``' symbolic execution does not model a symbolic operand (its value is
  unknown), and its problems name registers and mnemonics, never an operand's text;
* the layout's sizes count a symbolic operand as one literal dword.

So a family's members share the first member's codes and allocations (and the verifier's
execution of each allocated body); a point of a member then gets that allocation's code
with its own addends put back (:meth:`Specializer.specialize`), which is the code the
member's own allocation would have given (``test/unit/passes/instrument/test_templates.py``
compares with the passes, which lower every payload alone).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar, cast

from xdsl.ir import Attribute, Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.copy import block_of, copy_machine_ops, successor_blocks
from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    is_instruction_class,
    operand_array,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeAttr, PackedCodeOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp

#: The symbolic operands of a member's template -> the member's, at the same places.
Addends = Mapping[SymbolOperandAttr, SymbolOperandAttr]
ShapeT = TypeVar("ShapeT", bound=Hashable)


@dataclass(frozen=True)
class Member(Generic[ShapeT]):
    """A shape lowered as another's code (``leader``) with other addends."""

    leader: ShapeT
    addends: Addends


def _addend_free(payload: PayloadOp) -> tuple[Hashable, list[SymbolOperandAttr]]:
    """``payload``'s code as a value with every ``symbol@variant+addend`` operand reduced
    to its symbol and variant, and those operands in order."""
    symbols: list[SymbolOperandAttr] = []
    index = {block: position for position, block in enumerate(payload.body.blocks)}
    key: list[Hashable] = []
    for block in payload.body.blocks:
        for op in block.ops:
            properties: tuple[tuple[str, Hashable], ...] = tuple(op.properties.items())
            if is_instruction_class(type(op)):
                stripped: list[Hashable] = []
                for attr in cast(InstructionOpBase, op).mc_operands.data:
                    reference = attr.data.reference \
                        if isinstance(attr, SymbolOperandAttr) else None
                    if reference is None:
                        stripped.append(attr)
                    else:
                        symbols.append(cast(SymbolOperandAttr, attr))
                        stripped.append((reference.symbol, reference.variant))
                properties = tuple((name, tuple(stripped) if name == "mc_operands" else value)
                                   for name, value in properties)
            key.append((op.name, properties, tuple(op.attributes.items()),
                        tuple(index.get(successor, -1) for successor in successor_blocks(op))))
        key.append(None)  # the end of a block
    return tuple(key), symbols


class FamilyIndex(Generic[ShapeT]):
    """The families of the shapes added so far, in the order they were added: a shape's
    family depends only on the shapes before it, so a ``--jobs`` worker adds each chunk's
    new shapes and keeps every earlier decision (and its :class:`Member`, whose addends
    key the :class:`Specializer`'s variants)."""

    def __init__(self) -> None:
        self._leaders: dict[Hashable, tuple[ShapeT, list[SymbolOperandAttr]]] = {}
        self._seen: set[ShapeT] = set()
        #: The shapes that are an earlier shape's code up to addends.
        self.members: dict[ShapeT, Member[ShapeT]] = {}

    def add(self, shape: ShapeT, body: PayloadOp) -> None:
        """``shape``, whose lowered code is ``body`` (nothing if it was added before)."""
        if shape in self._seen:
            return
        self._seen.add(shape)
        key, symbols = _addend_free(body)
        found = self._leaders.get(key)
        if found is None:
            self._leaders[key] = (shape, symbols)
            return
        leader, theirs = found
        addends: dict[SymbolOperandAttr, SymbolOperandAttr] = {}
        if all(addends.setdefault(old, new) == new
               for old, new in zip(theirs, symbols, strict=True)):
            self.members[shape] = Member(leader, {old: new for old, new in addends.items()
                                                  if old != new})


def families(
        templates: Iterable[tuple[ShapeT, PayloadOp]]) -> dict[ShapeT, Member[ShapeT]]:
    """The shapes of ``templates`` (in order) that are an earlier shape's code up to
    addends, each with that shape (the family's first) and the addends to put back. A
    shape whose addends do not map one to one (the leader has one addend where the member
    has two) stays alone."""
    index = FamilyIndex[ShapeT]()
    for shape, body in templates:
        index.add(shape, body)
    return index.members


def _substituted(operands: tuple[Attribute, ...], addends: Addends) -> tuple[Attribute, ...]:
    return tuple(addends.get(attr, attr) if isinstance(attr, SymbolOperandAttr) else attr
                 for attr in operands)


@dataclass
class Specializer:
    """Gives a member's point its own addends, once per (packed code, member)."""

    #: (packed code, the member's addends) -> the member's packed code, and the block
    #: that holds the instructions it does not share with its family.
    variants: dict[tuple[int, int], tuple[PackedCodeAttr, Block]] = field(
        default_factory=dict[tuple[int, int], tuple[PackedCodeAttr, Block]])
    #: How many variants were made.
    made: int = 0
    #: What the ids of :attr:`variants`' keys name, kept alive with them.
    _alive: list[tuple[PackedCodeAttr, Addends]] = field(
        default_factory=list[tuple[PackedCodeAttr, Addends]])

    def specialize(self, payload: PayloadOp, addends: Addends) -> None:
        """Put ``addends`` into ``payload``'s code (a packed op's code, or its own ops)."""
        if not addends:
            return
        block = payload.body.first_block
        first = block.first_op if block is not None else None
        if isinstance(first, PackedCodeOp):
            first.properties["code"] = self._variant(first.code, addends)
            return
        for op in payload.body.walk():
            if is_instruction_class(type(op)):
                instruction = cast(InstructionOpBase, op)
                operands = instruction.mc_operands.data
                changed = _substituted(operands, addends)
                if changed != operands:
                    instruction.properties["mc_operands"] = operand_array(changed)

    def _variant(self, code: PackedCodeAttr, addends: Addends) -> PackedCodeAttr:
        key = (id(code), id(addends))
        found = self.variants.get(key)
        if found is not None:
            return found[0]
        # Only the instructions with a symbolic operand can change; the others are the
        # code's own ops (packed instructions are never edited, so they may be shared).
        instructions = list(code.data.ops)
        copies: list[Operation] = []
        for index in code.data.symbolic_positions():
            operands = instructions[index].mc_operands.data
            if any(attr in addends for attr in operands
                   if isinstance(attr, SymbolOperandAttr)):
                copy = cast(InstructionOpBase, copy_machine_ops([instructions[index]])[0])
                copy.properties["mc_operands"] = operand_array(_substituted(operands, addends))
                instructions[index] = copy
                copies.append(copy)
        # The copies, like every packed instruction, stay in a block (a detached one).
        holder = block_of(copies)
        variant = PackedCodeAttr(PackedCode(instructions, variant_of=code.data))
        # The key holds ids: keep the code and the addends alive with the variant.
        self.variants[key] = (variant, holder)
        self._alive.append((code, addends))
        self.made += 1
        return variant
