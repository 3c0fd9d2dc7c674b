"""The types of LLVM's textual IR that hook files use, and their sizes.

Sizes and alignments follow the AMDGPU data layout clang-19 writes (integers aligned to
their size up to 8 bytes; pointers 8 bytes, 4 in the LDS, private and region address
spaces): a tool global's ``instr.global`` size is its type's allocation size, and a
``getelementptr`` an offset in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.frontend.codeobj.elf_format import align_up


class LLVMTextError(LuthierError):
    """Text that is not LLVM IR as this reader knows it; the message names the line."""


# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IntType:
    bits: int

    def __str__(self) -> str:
        return f"i{self.bits}"


@dataclass(frozen=True)
class FloatType:
    """``float`` (32 bits) or ``double`` (64): the IEEE types hooks compute with."""

    bits: int

    def __str__(self) -> str:
        return "float" if self.bits == 32 else "double"


@dataclass(frozen=True)
class PtrType:
    addrspace: int = 0

    def __str__(self) -> str:
        return "ptr" if not self.addrspace else f"ptr addrspace({self.addrspace})"


@dataclass(frozen=True)
class ArrayType:
    count: int
    element: Type

    def __str__(self) -> str:
        return f"[{self.count} x {self.element}]"


@dataclass(frozen=True)
class StructType:
    fields: tuple[Type, ...]
    packed: bool = False

    def __str__(self) -> str:
        inner = ", ".join(str(f) for f in self.fields)
        return f"<{{ {inner} }}>" if self.packed else f"{{ {inner} }}"


@dataclass(frozen=True)
class OtherType:
    """A type the importer has no use for (``void``, ``label``, ``half``, vectors)."""

    name: str

    def __str__(self) -> str:
        return self.name


Type = IntType | FloatType | PtrType | ArrayType | StructType | OtherType
VOID = OtherType("void")


def type_alignment(type_: Type) -> int:
    """ABI alignment in bytes (AMDGPU's data layout: integers and pointers by size)."""
    match type_:
        case IntType(bits):
            return max(1, min(8, (bits + 7) // 8))
        case FloatType(bits):
            return bits // 8
        case PtrType(addrspace):
            return 4 if addrspace in (2, 3, 5, 6) else 8
        case ArrayType(_, element):
            return type_alignment(element)
        case StructType(fields, packed):
            return 1 if packed or not fields else max(type_alignment(f) for f in fields)
        case OtherType(name):
            raise LLVMTextError(f"the size of {name} is not known here")


def type_size(type_: Type) -> int:
    """Allocation size in bytes (LLVM's ``getTypeAllocSize`` for these types)."""
    match type_:
        case IntType(bits):
            return align_up((bits + 7) // 8, type_alignment(type_))
        case FloatType(bits):
            return bits // 8
        case PtrType(addrspace):
            return 4 if addrspace in (2, 3, 5, 6) else 8
        case ArrayType(count, element):
            return count * type_size(element)
        case StructType(fields, _):
            return align_up(struct_offsets(type_)[-1], type_alignment(type_)) \
                if fields else 0
        case OtherType(name):
            raise LLVMTextError(f"the size of {name} is not known here")


def struct_offsets(type_: StructType) -> list[int]:
    """Each field's byte offset, then the end of the last field."""
    offsets: list[int] = []
    offset = 0
    for field_type in type_.fields:
        if not type_.packed:
            offset = align_up(offset, type_alignment(field_type))
        offsets.append(offset)
        offset += type_size(field_type)
    return [*offsets, offset]


def gep_offset(element: Type, indices: list[int], line: int = 0) -> int:
    """The byte offset of ``getelementptr element, base, indices...`` (constant indices)."""
    if not indices:
        return 0
    offset = indices[0] * type_size(element)
    current = element
    for index in indices[1:]:
        if isinstance(current, ArrayType):
            offset += index * type_size(current.element)
            current = current.element
        elif isinstance(current, StructType):
            offset += struct_offsets(current)[index]
            current = current.fields[index]
        else:
            raise LLVMTextError(f"line {line}: getelementptr indexes into {current}")
    return offset
