"""Where a function's code lies: the size of one instruction op, and the byte offset of
every op and block of a function.

There is one size rule, the emitter's: an instruction takes the bytes the encoder gives it
when the object is written. That is its record's words, plus a trailing literal when an
operand needs one: a kept literal (``#amdgpu_mc.lit``, encoded as a literal even where an
inline constant would do, so lifted code re-encodes to its original bytes), an immediate
that no inline constant holds, or a symbolic operand (a zero literal that a relocation
fills). A branch's offset never changes its size. Emission encodes the MCInst of
:meth:`InstructionOpBase.to_mcinst` (the one op -> MC bridge), and sizes are measured with
it, so the two cannot disagree.

Some code has no size yet: an instruction on virtual registers, an opcode the target lacks,
an op that is not machine code. Asking its size raises :class:`UnsizedError`, which says
why; a layout asked to ignore the ops that are not machine code yet (``instr.payload``
before splicing: they are not application code) gives them no room.

Encodings, hence sizes, are memoised per opcode and operand array (both immutable
attributes, and lifted operand arrays are interned), so a layout is cheap to recompute after
the IR changes, and emission reuses the bytes the layout measured.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.operands import NotMCOperandError, SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeAttr, PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.structure import FallthroughOp, FunctionLikeOp, LabelOp
from luthier.amdgpu_dialects.amdgpu_mc.target_context import target_key
from luthier.amdgpu_dialects.isa.target import InstrDef, TargetISA
from luthier.amdgpu_dialects.mc.decoder import MCInst
from luthier.amdgpu_dialects.mc.encoder import EncodeError, encoder_for
from luthier.amdgpu_dialects.mc.operand_decoders import Literal

#: What a symbolic operand is encoded as until a relocation (or the loader) fills it.
ZERO_LITERAL = Literal(0)
#: Memoised encodings: at most this many entries before the memo starts over (a 320k
#: instruction object has about 80k distinct operand arrays; an entry is about 250 bytes).
_MEMO_LIMIT = 1 << 18


class UnsizedError(ValueError):
    """An op whose size is not known yet; the message says why (without the function's
    name, which the caller adds)."""

    def __init__(self, op: Operation, reason: str) -> None:
        super().__init__(reason)
        self.op = op


def literal_offset(op: InstructionOpBase, isa: TargetISA) -> int:
    """Where ``op``'s trailing literal starts, from its first byte: right after its
    record's own words (the offset of a symbolic operand's relocation)."""
    return isa.by_name[op.opcode.data].size


def _record(op: InstructionOpBase, isa: TargetISA) -> InstrDef:
    """``op``'s ISA record; :class:`UnsizedError` when the target lacks it or the op's
    operands do not fill its slots."""
    desc = isa.by_name.get(op.opcode.data)
    if desc is None:
        raise UnsizedError(op, f"'{op.opcode.data}' is not an instruction of {isa.name}")
    if len(desc.operands) != len(op.mc_operands.data):
        raise UnsizedError(op, f"{op.mnemonic} has {len(op.mc_operands.data)} operands, its "
                               f"record {len(desc.operands)}")
    return desc


#: (target, is a branch, id of opcode, id of operands) -> (opcode, operands, bytes, whether
#: an operand is symbolic). The attributes are kept so that their ids stay theirs while the
#: entry lives.
_encodings: dict[tuple[str, bool, int, int],
                 tuple[StringAttr, ArrayAttr[Attribute], bytes, bool]] = {}


def instruction_encoding(op: InstructionOpBase, isa: TargetISA) -> tuple[bytes, bool]:
    """The bytes ``op`` encodes to with a branch offset of 0 and every symbolic operand a
    zero literal, and whether it has a symbolic operand (whose relocation the caller
    adds); :class:`UnsizedError` when it cannot be encoded yet.

    Memoised like the sizes, which are these bytes' length: emission takes a non-branch
    instruction's bytes from here, so an instruction that the layout has sized is not
    encoded again, and code that repeats an encoding (lifted operand arrays are interned
    per encoding) is encoded once.
    """
    opcode, operands = op.opcode, op.mc_operands
    key = (isa.name, op.KIND == "branch", id(opcode), id(operands))
    known = _encodings.get(key)
    if known is not None and known[0] is opcode and known[1] is operands:
        return known[2], known[3]
    branch = op.KIND == "branch"
    offered = None if branch else _taken_offer(isa, opcode, operands)
    if offered is not None:
        data, symbolic = offered, False
    else:
        desc = _record(op, isa)
        try:
            inst = op.to_mcinst(desc, ZERO_LITERAL, 0)
            data = encoder_for(*target_key(isa.name, isa.wavefront_size)).encode(
                inst, keep_literals=True)
        except (NotMCOperandError, EncodeError) as error:
            raise UnsizedError(op, f"{op.mnemonic}: {error}") from None
        symbolic = bool([attr for attr in operands.data if isinstance(attr, SymbolOperandAttr)])
    if len(_encodings) >= _MEMO_LIMIT:
        _encodings.clear()
    _encodings[key] = (opcode, operands, data, symbolic)
    return data, symbolic


#: (target, id of opcode, id of operands) -> (opcode, operands, the decoded instruction,
#: the bytes it was decoded from): encodings offered by :func:`offer_encoding`, confirmed
#: when first asked for.
_offered: dict[tuple[str, int, int], tuple[StringAttr, ArrayAttr[Attribute], MCInst, bytes]] = {}


def offer_encoding(target: str, opcode: StringAttr, operands: ArrayAttr[Attribute],
                   inst: MCInst, data: bytes) -> None:
    """Offer ``data``, the bytes ``inst`` was decoded from, as the encoding of a non-branch
    op of ``target`` with ``opcode`` and ``operands`` (no symbolic operand; ``inst`` is that
    op's instruction), so that sizing and emitting the op need not encode it again.

    For the lifter, which has the bytes of every instruction it lifts. The offer is taken
    when :func:`instruction_encoding` first asks for the op, and only if the encoder gives
    ``data`` back for ``inst``: this is a cache (what is taken is what the op encodes to),
    and output never depends on whether an offer was made or evicted. Confirming it then,
    not at the lift, leaves the encoding to the worker process that emits the function
    (``luthier-opt --jobs``) and skips what no one emits.
    """
    if len(_offered) >= _MEMO_LIMIT:
        _offered.clear()
    _offered[(target, id(opcode), id(operands))] = (opcode, operands, inst, data)


def _taken_offer(isa: TargetISA, opcode: StringAttr,
                 operands: ArrayAttr[Attribute]) -> bytes | None:
    """The bytes offered for a non-branch op of ``isa`` with ``opcode`` and ``operands``,
    when the encoder confirms them."""
    offer = _offered.pop((isa.name, id(opcode), id(operands)), None)
    if offer is None or offer[0] is not opcode or offer[1] is not operands:
        return None
    try:
        encoder = encoder_for(*target_key(isa.name, isa.wavefront_size))
        confirmed = encoder.encode(offer[2], keep_literals=True) == offer[3]
    except EncodeError:
        return None
    return offer[3] if confirmed else None


@dataclass(frozen=True, slots=True)
class PackedEncoding:
    """What a :class:`~.packed.PackedCode` encodes to on one target."""

    #: Its instructions' bytes, each as :func:`instruction_encoding` gives it.
    data: bytes
    #: Each instruction with a symbolic operand, with its offset in :attr:`data`.
    symbolic: tuple[tuple[int, InstructionOpBase], ...]
    #: Facts later layers derive from this encoding (the emitter's relocations).
    memo: dict[object, object] = field(default_factory=dict[object, object])


def packed_encoding(code: PackedCode, isa: TargetISA) -> PackedEncoding:
    """The bytes of ``code`` on ``isa`` (memoised in the code: every packed op of it
    shares them); :class:`UnsizedError` when an instruction cannot be encoded."""

    def encode() -> PackedEncoding:
        data, positions = code.shared(("zero-literal encoding", isa.name), encode_family)
        ops = code.ops
        return PackedEncoding(data, tuple((offset, ops[index]) for offset, index in positions))

    def encode_family(family: PackedCode) -> tuple[bytes, tuple[tuple[int, int], ...]]:
        # Symbolic operands encode as zero literals, so a variant's bytes are its
        # family's; only which ops carry the relocations is the variant's own.
        data = bytearray()
        positions: list[tuple[int, int]] = []
        for index, op in enumerate(family.ops):
            encoded, has_symbol = instruction_encoding(op, isa)
            if has_symbol:
                positions.append((len(data), index))
            data += encoded
        return bytes(data), tuple(positions)

    return code.derived(_packed_encoding_key(isa), encode)


def _packed_encoding_key(isa: TargetISA) -> tuple[str, str]:
    """Where a code's :class:`PackedEncoding` for ``isa`` sits in its memo (the layout
    looks it up there directly)."""
    return ("encoding", isa.name)


def instruction_size(op: InstructionOpBase, isa: TargetISA) -> int:
    """Bytes ``op`` encodes to when the object is written; :class:`UnsizedError` when it
    cannot be encoded yet."""
    return len(instruction_encoding(op, isa)[0])


@dataclass(frozen=True, slots=True, eq=False)
class FunctionLayout:
    """Where each block and each op of a function lies, in bytes from its first
    instruction (alignment and the function's address do not matter to branches or
    PC-relative operands, which measure distances inside it)."""

    #: The blocks in layout order.
    blocks: tuple[Block, ...]
    #: Offset of each block's first byte.
    block_offsets: dict[Block, int]
    #: Offset of every op directly in a block; an op that takes no room (a fall-through,
    #: or code that is not machine code yet) sits where the next instruction starts.
    offsets: dict[Operation, int]
    #: Bytes of each instruction op.
    sizes: dict[InstructionOpBase, int]
    #: Bytes of the whole function.
    size: int
    #: What each instruction op encodes to (:func:`instruction_encoding`: a branch offset
    #: of 0, symbolic operands as zero literals): emission writes these for every op but
    #: the branches, without encoding again.
    encodings: dict[InstructionOpBase, bytes]
    #: The instruction ops with a symbolic operand (emission adds their relocations).
    symbolic: set[InstructionOpBase]
    #: What each packed op encodes to (when the layout was asked to take them).
    packed: dict[PackedCodeOp, PackedEncoding]

    def end(self, op: Operation) -> int:
        """The offset just past ``op``."""
        if isinstance(op, InstructionOpBase):
            return self.offsets[op] + self.sizes.get(op, 0)
        if isinstance(op, PackedCodeOp):
            return self.offsets[op] + len(self.packed[op].data)
        return self.offsets[op]

    def block_end(self, block: Block) -> int:
        """The offset just past ``block``'s last byte."""
        last = block.last_op
        return self.end(last) if last is not None else self.block_offsets[block]

    def instructions(self) -> Iterator[tuple[InstructionOpBase, int]]:
        """Each instruction op with its offset, in layout order."""
        for op in self.sizes:
            yield op, self.offsets[op]


def function_layout(function: FunctionLikeOp, isa: TargetISA, *,
                    payloads_take_no_room: bool = False,
                    packed: bool = False) -> FunctionLayout:
    """The layout of ``function`` as it would be emitted now.

    Every op directly in a block must be an instruction or a fall-through, else
    :class:`UnsizedError`; with ``payloads_take_no_room``, ops that are not machine code yet
    (payloads, which are not application code) are placed but take no bytes, which is the
    application's own layout. An instruction whose size is not known raises either way.
    Packed ops (:mod:`.packed`) take their code's bytes when the caller says it handles
    them (``packed``: it reads :attr:`FunctionLayout.packed` too), else they are unsized.
    """
    blocks = tuple(function.body.blocks)
    block_offsets: dict[Block, int] = {}
    offsets: dict[Operation, int] = {}
    sizes: dict[InstructionOpBase, int] = {}
    encodings: dict[InstructionOpBase, bytes] = {}
    symbolic: set[InstructionOpBase] = set()
    packed_ops: dict[PackedCodeOp, PackedEncoding] = {}
    offset = 0
    target = isa.name
    encoding_key = _packed_encoding_key(isa)
    # This loop runs for every op of every function, several times per pipeline: the
    # memos (instruction_encoding's, each packed code's) are looked up here, and the ops
    # are read through their properties and links rather than xDSL's accessors.
    for block in blocks:
        block_offsets[block] = offset
        op = block.first_op
        while op is not None:
            offsets[op] = offset
            kind = type(op)
            if is_instruction_class(kind):
                instruction = cast(InstructionOpBase, op)
                properties = op.properties
                opcode, operands = properties["opcode"], properties["mc_operands"]
                known = _encodings.get((target, instruction.KIND == "branch", id(opcode),
                                        id(operands)))
                if known is not None and known[0] is opcode and known[1] is operands:
                    data, has_symbol = known[2], known[3]
                else:
                    data, has_symbol = instruction_encoding(instruction, isa)
                encodings[instruction] = data
                size = sizes[instruction] = len(data)
                offset += size
                if has_symbol:
                    symbolic.add(instruction)
            elif kind is PackedCodeOp:
                if not packed:
                    raise UnsizedError(op, f"'{op.name}' is packed code (this consumer reads "
                                           "instructions one by one: unpack it first)")
                code = cast(PackedCodeAttr, op.properties["code"]).data
                encoding = cast(PackedEncoding | None, code.memo.get(encoding_key))
                if encoding is None:
                    encoding = packed_encoding(code, isa)
                packed_ops[cast(PackedCodeOp, op)] = encoding
                offset += len(encoding.data)
            elif not payloads_take_no_room and not isinstance(op, FallthroughOp | LabelOp):
                raise UnsizedError(op, f"'{op.name}' is not an instruction")
            op = op.next_op
    return FunctionLayout(blocks, block_offsets, offsets, sizes, offset, encodings, symbolic,
                          packed_ops)
