"""Merged sections: the XXH3 hash lld shards by, and piece placement."""

from __future__ import annotations

from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_MERGE,
    SHF_STRINGS,
    SHT_PROGBITS,
)
from luthier.frontend.codeobj.spec import (
    SectionSpec,
)
from luthier.lowering.elf.merge import MergeGroup
from luthier.lowering.elf.xxh3 import xxh3_64


def test_xxh3_of_empty_input() -> None:
    """The published XXH3-64 value of the empty input (seed 0)."""
    assert xxh3_64(b"") == 0x2D06800538D394C2


def test_duplicates_share_one_copy() -> None:
    data = b"abc\0hello\0abc\0"
    flags = SHF_ALLOC | SHF_MERGE | SHF_STRINGS
    section = SectionSpec(".rodata.str1.1", SHT_PROGBITS, flags, 1, data, len(data), (), 1)
    group = MergeGroup(flags, 1, 1, [section])
    group.build()
    assert sorted(group.data.split(b"\0")[:-1]) == [b"abc", b"hello"]
    first, last = (group.output_offset(section.name, o) for o in (0, 10))
    assert first == last and group.data[first : first + 4] == b"abc\0"
    hello = group.output_offset(section.name, 4 + 2)  # inside a piece: offset kept
    assert group.data[hello : hello + 3] == b"llo"
