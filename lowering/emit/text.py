"""Lay out and encode ``.text``: functions in order, aligned with ``s_nop 0`` padding.

Two passes: the first encodes every instruction with placeholder branch offsets to learn
sizes (an instruction's size depends only on its opcode and whether it has a literal) and
block addresses; the second patches branch offsets. Symbolic operands are encoded as a zero
literal plus a relocation at the literal's offset, as an assembler does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    NotMCOperandError,
    SymbolOperandAttr,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    FallthroughOp,
    FunctionOp,
    KernelOp,
    padding_bytes,
)
from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.amdgpu_dialects.mc.encoder import EncodeError, Encoder
from luthier.amdgpu_dialects.mc.operand_decoders import Literal
from luthier.frontend.codeobj.spec import VARIANT_RELOCATIONS, RelocationSpec
from luthier.lowering.emit.errors import EmitError


@dataclass
class FunctionPlacement:
    name: str
    offset: int
    size: int
    op: KernelOp | FunctionOp


@dataclass
class TextSection:
    data: bytes
    relocations: list[RelocationSpec] = field(default_factory=lambda: list[RelocationSpec]())
    functions: list[FunctionPlacement] = field(default_factory=lambda: list[FunctionPlacement]())


@dataclass
class EncodedFunction:
    """A function's instructions encoded with zero branch offsets: each with its offset and
    bytes, each block's offset, and the offset just past the last instruction."""

    block_offsets: dict[Block, int] = field(default_factory=lambda: dict[Block, int]())
    instructions: list[tuple[InstructionOpBase, int, bytes]] = field(
        default_factory=lambda: list[tuple[InstructionOpBase, int, bytes]]())
    end: int = 0


def _align(offset: int, alignment: int) -> int:
    return (offset + alignment - 1) // alignment * alignment


class TextEncoder:
    def __init__(self, isa: TargetISA, encoder: Encoder) -> None:
        self.isa = isa
        self.encoder = encoder

    def _encode(self, op: InstructionOpBase, function: str, offset: int,
                relocations: list[RelocationSpec], branch_offset: int = 0) -> bytes:
        desc = self.isa.by_name.get(op.opcode.data)
        if desc is None:
            raise EmitError(f"{function}: '{op.opcode.data}' is not an instruction of "
                            f"{self.isa.name}")
        for attr in op.mc_operands.data:
            if isinstance(attr, SymbolOperandAttr):
                reference = attr.reference
                relocation = VARIANT_RELOCATIONS.get(reference.variant) \
                    if reference is not None else None
                if reference is None or relocation is None:
                    raise EmitError(f"{function}: cannot encode symbolic operand {attr.data}")
                relocations.append(RelocationSpec(offset + desc.size, relocation,
                                                  reference.symbol, reference.addend))
        try:
            inst = op.to_mcinst(desc, Literal(0), branch_offset & 0xFFFF)
        except NotMCOperandError as error:
            raise EmitError(f"{function}: {op.mnemonic}: {error}") from None
        try:
            return self.encoder.encode(inst, keep_literals=True)
        except EncodeError as error:
            raise EmitError(f"{function}: {op.mnemonic}: {error}") from None

    def instruction_size(self, op: InstructionOpBase, function: str) -> int:
        """Bytes ``op`` encodes to (with a zero branch offset: sizes do not depend on it)."""
        return len(self._encode(op, function, 0, []))

    def encode_blocks(self, op: KernelOp | FunctionOp, start: int,
                      relocations: list[RelocationSpec]) -> EncodedFunction:
        """Pass 1: encode every instruction with a zero branch offset, learning where each
        block starts. Relocation offsets are final already: no size depends on a branch
        offset, which is also why branch relaxation can measure code with this."""
        name = op.sym_name.data
        encoded = EncodedFunction()
        offset = start
        blocks = list(op.body.blocks)
        for index, block in enumerate(blocks):
            encoded.block_offsets[block] = offset
            for inner in block.ops:
                if isinstance(inner, FallthroughOp):
                    if index + 1 >= len(blocks) or inner.dest is not blocks[index + 1]:
                        raise EmitError(f"{name}: amdgpu_mc.fallthrough must name the next "
                                        "block (insert a branch to reach another one)")
                    continue
                if not isinstance(inner, InstructionOpBase):
                    raise EmitError(f"{name}: '{inner.name}' is not an instruction")
                data = self._encode(inner, name, offset, relocations)
                encoded.instructions.append((inner, offset, data))
                offset += len(data)
        encoded.end = offset
        return encoded

    def encode_function(self, op: KernelOp | FunctionOp, start: int,
                        relocations: list[RelocationSpec]) -> bytes:
        name = op.sym_name.data
        encoded = self.encode_blocks(op, start, relocations)
        # Pass 2: re-encode the branches, now that every block has its offset.
        out = bytearray()
        for inner, at, data in encoded.instructions:
            if inner.KIND == "branch":
                target = encoded.block_offsets[inner.successors[0]]
                branch = (target - (at + 4)) // 4
                if not -(1 << 15) <= branch < (1 << 15):
                    raise EmitError(f"{name}: {inner.mnemonic} at {at - start:#x} cannot reach "
                                    "its target (more than 128 KiB away)")
                # Its relocations (none for SOPP branches today) were recorded in pass 1.
                data = self._encode(inner, name, at, [], branch)
            out += data
        return bytes(out)


def function_layout(function: KernelOp | FunctionOp, isa: TargetISA,
                    encoder: Encoder) -> EncodedFunction:
    """Where ``function``'s blocks and instructions lie, counted from its first byte (branch
    offsets are relative, so alignment does not matter); branches hold zero offsets.
    Raises EmitError for what cannot be encoded."""
    return TextEncoder(isa, encoder).encode_blocks(function, 0, [])


def encode_text(functions: list[KernelOp | FunctionOp], isa: TargetISA, encoder: Encoder,
                padding: int, leading: int = 0) -> TextSection:
    text = TextSection(b"")
    data = bytearray(padding_bytes("s_nop", leading))
    for function in functions:
        alignment = function.alignment.value.data if function.alignment is not None else 4
        start = _align(len(data), alignment)
        fill = function.padding_fill.data if function.padding_fill is not None else "s_nop"
        data += padding_bytes(fill, start - len(data))
        code = TextEncoder(isa, encoder).encode_function(function, start, text.relocations)
        text.functions.append(FunctionPlacement(function.sym_name.data, start, len(code),
                                                function))
        data += code
    data += padding_bytes("s_nop", padding)
    text.data = bytes(data)
    return text
