"""Encode ``.text``: functions in order, aligned with their padding.

Where each instruction and block lies comes from the one layout of the dialect
(:func:`~luthier.amdgpu_dialects.amdgpu_mc.layout.function_layout`: sizes never depend on
branch offsets), and the layout's own encodings are what is written: an instruction is
encoded once, when the layout sizes it (and once per distinct opcode and operand array,
which the layout memoises), except a branch, encoded again with its offset. Symbolic
operands are encoded as a zero literal plus a relocation at the literal's offset, as an
assembler does. A packed op (:mod:`~luthier.amdgpu_dialects.amdgpu_mc.packed`) is written
as the bytes its shared code encodes to, with its instructions' relocations at its place.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import cast

from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, branch_label
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    ZERO_LITERAL,
    FunctionLayout,
    PackedEncoding,
    UnsizedError,
    function_layout,
    literal_offset,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import NotMCOperandError, SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionLikeOp, LabelOp, padding_bytes
from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.amdgpu_dialects.mc.encoder import EncodeError, Encoder
from luthier.amdgpu_dialects.mc.relocations import literal_relocation
from luthier.frontend.codeobj.spec import RelocationColumns, RelocationTable
from luthier.lowering.emit.errors import EmitError
from luthier.lowering.progress import over


@dataclass
class FunctionPlacement:
    name: str
    offset: int
    size: int
    op: FunctionLikeOp


@dataclass(frozen=True)
class EncodedFunction:
    """A function's bytes and relocations, encoded apart from the others (by a worker
    process that lowered it): the relocations' offsets count from the function's start,
    since where it lands in ``.text`` is decided when the functions are put together; so
    do its labels and its branches to other functions' labels (:class:`CrossBranches`)."""

    data: bytes
    relocations: RelocationTable
    labels: tuple[tuple[str, int], ...] = ()
    branches: tuple[tuple[int, str], ...] = ()


def kept_functions(kept: Mapping[str, bytes]) -> dict[str, EncodedFunction]:
    """The functions a lift kept as their bytes (``LiftResult.kept``), to be written as
    given: they have nothing to relocate, label or patch."""
    no_relocations = RelocationColumns().table()
    return {name: EncodedFunction(code, no_relocations) for name, code in kept.items()}


@dataclass
class CrossBranches:
    """Branches into other functions' code (``amdgpu_mc.label``): written with offset 0,
    patched once every function has its place. A SOPP branch holds its signed word offset
    from the next instruction in its low 16 bits, on every target."""

    #: Offset in ``.text`` of each label.
    labels: dict[str, int] = field(default_factory=lambda: dict[str, int]())
    #: (offset in ``.text`` of the branch, label, function, for messages).
    branches: list[tuple[int, str, str]] = field(
        default_factory=lambda: list[tuple[int, str, str]]())

    def patch(self, data: bytearray) -> None:
        for at, label, function in self.branches:
            target = self.labels.get(label)
            if target is None:
                raise EmitError(f"{function}: a branch goes to label \"{label}\", which no "
                                "function has")
            words = (target - (at + 4)) // 4
            if not -(1 << 15) <= words < (1 << 15):
                raise EmitError(f"{function}: the branch at .text+{at:#x} cannot reach label "
                                f"\"{label}\" (more than 128 KiB away)")
            data[at:at + 2] = (words & 0xFFFF).to_bytes(2, "little")


@dataclass
class TextSection:
    data: bytes
    relocations: RelocationColumns = field(default_factory=RelocationColumns)
    functions: list[FunctionPlacement] = field(default_factory=lambda: list[FunctionPlacement]())


def _align(offset: int, alignment: int) -> int:
    return (offset + alignment - 1) // alignment * alignment


class TextEncoder:
    def __init__(self, isa: TargetISA, encoder: Encoder) -> None:
        self.isa = isa
        self.encoder = encoder

    def _relocate(self, op: InstructionOpBase, function: str, offset: int,
                  relocations: RelocationColumns) -> None:
        for attr in op.mc_operands.data:
            if not isinstance(attr, SymbolOperandAttr):
                continue
            reference = attr.data.reference
            relocation = literal_relocation(reference.variant, True) \
                if reference is not None else None
            if reference is None or relocation is None:
                raise EmitError(
                    f"{function}: cannot encode symbolic operand {attr.data.text()}")
            relocations.add(offset + literal_offset(op, self.isa), relocation.number,
                            reference.symbol, reference.addend)

    def _encode_branch(self, op: InstructionOpBase, function: str, offset: int,
                       relocations: RelocationColumns, branch_offset: int) -> bytes:
        """A branch's bytes, encoded now: its offset is not in the memoised encoding."""
        desc = self.isa.by_name[op.opcode.data]  # the layout checked the record
        self._relocate(op, function, offset, relocations)
        try:
            inst = op.to_mcinst(desc, ZERO_LITERAL, branch_offset & 0xFFFF)
            return self.encoder.encode(inst, keep_literals=True)
        except (NotMCOperandError, EncodeError) as error:
            raise EmitError(f"{function}: {op.mnemonic}: {error}") from None

    def encode_function(self, op: FunctionLikeOp, start: int,
                        relocations: RelocationColumns,
                        cross: CrossBranches | None = None) -> bytes:
        """``op``'s bytes at ``start``; its labels and branches to other functions' labels
        go to ``cross`` (which refuses them when not given)."""
        name = op.sym_name.data
        try:
            layout = function_layout(op, self.isa, packed=True)
        except UnsizedError as error:
            raise EmitError(f"{name}: {error}") from None
        out = bytearray()
        encodings, symbolic = layout.encodings, layout.symbolic
        for inner, at in self._in_order(layout):
            if isinstance(inner, PackedCodeOp):
                # Shared code, encoded once: its bytes, and its relocations here.
                encoding = layout.packed[inner]
                relocations.extend(self._code_relocations(encoding, name), start + at)
                out += encoding.data
                continue
            if inner.KIND != "branch":
                # The layout's bytes: an unchanged instruction is not encoded again.
                if inner in symbolic:
                    self._relocate(inner, name, start + at, relocations)
                out += encodings[inner]
                continue
            label = branch_label(inner)
            if label is not None:
                if cross is None:
                    raise EmitError(f"{name}: {inner.mnemonic} goes to label "
                                    f"\"{label.data}\" in another function")
                cross.branches.append((start + at, label.data, name))
                out += self._encode_branch(inner, name, start + at, relocations, 0)
                continue
            target = layout.block_offsets[inner.successors[0]]
            branch = (target - (at + 4)) // 4
            if not -(1 << 15) <= branch < (1 << 15):
                raise EmitError(f"{name}: {inner.mnemonic} at {at:#x} cannot reach "
                                "its target (more than 128 KiB away)")
            data = self._encode_branch(inner, name, start + at, relocations, branch)
            assert len(data) == layout.sizes[inner], (name, inner.mnemonic)
            out += data
        if cross is not None:
            for label_op, at in _labels(layout):
                label = label_op.label.data
                if label in cross.labels:
                    raise EmitError(f"{name}: label \"{label}\" is defined twice")
                cross.labels[label] = start + at
        return bytes(out)

    def encode_apart(self, op: FunctionLikeOp) -> EncodedFunction:
        """``op`` encoded as if it started at offset 0 (see :class:`EncodedFunction`)."""
        relocations = RelocationColumns()
        cross = CrossBranches()
        data = self.encode_function(op, 0, relocations, cross)
        return EncodedFunction(data, relocations.table(), tuple(cross.labels.items()),
                               tuple((at, label) for at, label, _ in cross.branches))

    def _code_relocations(self, encoding: PackedEncoding, function: str) -> RelocationTable:
        """The relocations of a packed code, from its start (found once per code)."""
        known = encoding.memo.get("relocations")
        if known is None:
            found = RelocationColumns()
            for offset, user in encoding.symbolic:
                self._relocate(user, function, offset, found)
            known = encoding.memo["relocations"] = found.table()
        return cast(RelocationTable, known)

    @staticmethod
    def _in_order(layout: FunctionLayout) -> Iterator[tuple[InstructionOpBase | PackedCodeOp,
                                                            int]]:
        """The instructions and packed ops of ``layout``, in layout order."""
        if not layout.packed:
            yield from layout.instructions()
            return
        offsets, sizes, packed = layout.offsets, layout.sizes, layout.packed
        for block in layout.blocks:
            for op in block_ops(block):
                if op in sizes:
                    assert isinstance(op, InstructionOpBase)
                    yield op, offsets[op]
                elif op in packed:
                    assert isinstance(op, PackedCodeOp)
                    yield op, offsets[op]


def _labels(layout: FunctionLayout) -> Iterator[tuple[LabelOp, int]]:
    """The labels of a function and their offsets (none in compiled code: a look at the
    first op of each block would not do, a label may be anywhere)."""
    for block in layout.blocks:
        for op in block.ops:
            if type(op) is LabelOp:
                yield op, layout.offsets[op]


def encode_text(functions: list[FunctionLikeOp], isa: TargetISA, encoder: Encoder,
                padding: int, leading: int = 0,
                encoded: Mapping[str, EncodedFunction] | None = None,
                leading_data: bytes = b"") -> TextSection:
    """``.text`` of ``functions`` in order, after ``leading_data`` and ``leading`` bytes
    of ``s_nop 0``; a function named in ``encoded`` is written as the bytes given there
    (its op's body is not read), its relocations moved to where it lands."""
    text = TextSection(b"")
    data = bytearray(leading_data + padding_bytes("s_nop", leading))
    text_encoder = TextEncoder(isa, encoder)
    cross = CrossBranches()
    for function in over("emit", functions, "function"):
        start = _align(len(data), function.code_alignment)
        data += padding_bytes(function.fill, start - len(data))
        given = encoded.get(function.sym_name.data) if encoded is not None else None
        if given is not None:
            code = given.data
            text.relocations.extend(given.relocations, start)
            cross.labels.update((label, start + at) for label, at in given.labels)
            cross.branches += [(start + at, label, function.sym_name.data)
                               for at, label in given.branches]
        else:
            code = text_encoder.encode_function(function, start, text.relocations, cross)
        text.functions.append(FunctionPlacement(function.sym_name.data, start, len(code),
                                                function))
        data += code
        data += function.trailing_bytes
    data += padding_bytes("s_nop", padding)
    cross.patch(data)
    text.data = bytes(data)
    return text
