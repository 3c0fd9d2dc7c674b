"""Mergeable sections (``SHF_MERGE``): duplicates removed, laid out as lld lays them out.

lld splits each mergeable input section into pieces (NUL-terminated strings with
``SHF_STRINGS``, ``sh_entsize``-byte constants without), keeps one copy of each, and places
them in 32 shards chosen by the piece's XXH3 hash (bits 27-31 of its low 32 bits), each shard
in order of first appearance, shards one after the other at the section's alignment. Input
sections with the same flags and entry size (and, for strings, alignment) in one output
section form one group; the group takes the place of its first member. Symbols and relocations
that point into a member are moved to where their piece went.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from luthier.frontend.codeobj.elf_format import (
    SHF_MERGE,
    SHF_STRINGS,
    align_up,
)
from luthier.frontend.codeobj.spec import (
    ElfWriteError,
    SectionSpec,
)
from luthier.lowering.elf.xxh3 import xxh3_64

SHARDS = 32


def is_mergeable(section: SectionSpec) -> bool:
    """Whether a shared link merges this input (relocations inside it are not supported)."""
    return bool(section.flags & SHF_MERGE) and section.entry_size > 0 and not section.relocations


def split_pieces(section: SectionSpec) -> list[tuple[int, bytes, bytes]]:
    """``(offset, piece, hashed bytes)`` of each piece of a mergeable section."""
    data, size = section.data, section.entry_size
    pieces: list[tuple[int, bytes, bytes]] = []
    if not section.flags & SHF_STRINGS:
        if len(data) % size:
            raise ElfWriteError(f"section {section.name}: size is not a multiple of {size}")
        return [(i, data[i : i + size], data[i : i + size]) for i in range(0, len(data), size)]
    start = 0
    while start < len(data):
        end = start
        while end < len(data) and data[end : end + size] != bytes(size):
            end += size
        if end >= len(data):
            raise ElfWriteError(f"section {section.name}: string is not NUL-terminated")
        pieces.append((start, data[start : end + size], data[start:end]))
        start = end + size
    return pieces


@dataclass
class MergeGroup:
    """Mergeable inputs that become one piece of an output section."""

    flags: int
    entsize: int
    align: int
    members: list[SectionSpec] = field(default_factory=lambda: list[SectionSpec]())
    extra: list[bytes] = field(default_factory=lambda: list[bytes]())
    """Pieces the linker adds after the inputs' (lld's ``.comment`` string)."""
    data: bytes = b""
    _maps: dict[str, tuple[list[int], list[int]]] = field(
        default_factory=lambda: dict[str, tuple[list[int], list[int]]]()
    )

    def accepts(self, section: SectionSpec) -> bool:
        same = self.flags == section.flags and self.entsize == section.entry_size
        return same and (self.align == section.alignment or not self.flags & SHF_STRINGS)

    def build(self) -> None:
        """Lay the pieces out; afterwards :meth:`output_offset` maps input offsets."""
        shards = [bytearray() for _ in range(SHARDS)]
        seen: list[dict[bytes, int]] = [{} for _ in range(SHARDS)]
        placed: list[tuple[str, int, int, int]] = []  # (member, input offset, shard, offset)
        stringy = bool(self.flags & SHF_STRINGS)
        sources: list[tuple[str, list[tuple[int, bytes, bytes]]]] = [
            (m.name, split_pieces(m)) for m in self.members
        ]
        extra = [(0, p, p[: -self.entsize] if stringy else p) for p in self.extra]
        sources.append(("", extra))
        for name, pieces in sources:
            for offset, piece, hashed in pieces:
                shard = (xxh3_64(hashed) & 0xFFFFFFFF) >> 27
                where = seen[shard].get(piece)
                if where is None:
                    where = align_up(len(shards[shard]), self.align)
                    shards[shard] += bytes(where - len(shards[shard])) + piece
                    seen[shard][piece] = where
                placed.append((name, offset, shard, where))
        starts: list[int] = []
        out = bytearray()
        for shard in shards:
            out += bytes(align_up(len(out), self.align) - len(out))
            starts.append(len(out))
            out += shard
        self.data = bytes(out)
        for name, offset, shard, where in placed:
            if name:
                inputs, outputs = self._maps.setdefault(name, ([], []))
                inputs.append(offset)
                outputs.append(starts[shard] + where)

    def output_offset(self, member: str, offset: int) -> int:
        """Where byte ``offset`` of input ``member`` ended up inside :attr:`data`."""
        inputs, outputs = self._maps.get(member, ([], []))
        index = bisect.bisect_right(inputs, offset) - 1
        if index < 0:
            raise ElfWriteError(f"section {member}: offset {offset:#x} is before its first piece")
        return outputs[index] + offset - inputs[index]
