"""Relocations as columns (:class:`RelocationTable`, the emitter's form for ``.text``) write
the same bytes and give the same errors as the same relocations as records."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS64,
    R_AMDGPU_GOTPCREL32_HI,
    R_AMDGPU_GOTPCREL32_LO,
    R_AMDGPU_NONE,
    R_AMDGPU_REL32_HI,
    R_AMDGPU_REL32_LO,
)
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_WRITE,
    SHT_NOBITS,
    SHT_PROGBITS,
)
from luthier.frontend.codeobj.spec import RelocationColumns, RelocationTable
from luthier.lowering.elf import (
    ElfWriteError,
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
    link_shared,
    write_relocatable,
)

from .common import OBJECT_IDS, OBJECTS, object_spec

WRITERS: list[Callable[[ObjectSpec], bytes]] = [write_relocatable, link_shared]
WRITER_IDS = ["relocatable", "shared"]


def _as_tables(spec: ObjectSpec) -> ObjectSpec:
    return replace(spec, sections=tuple(
        replace(section, relocations=RelocationTable.of(section.relocations))
        for section in spec.sections))


def test_table_keeps_every_relocation_in_order() -> None:
    given = [RelocationSpec(8, R_AMDGPU_REL32_LO.number, "b", 4),
             RelocationSpec(16, R_AMDGPU_REL32_HI.number, "a", 12),
             RelocationSpec(0, R_AMDGPU_NONE.number, "", -3),
             RelocationSpec(24, R_AMDGPU_REL32_LO.number, "b", 1 << 40)]
    table = RelocationTable.of(given)
    assert list(table) == given
    assert len(table) == 4 and table.symbols == ("b", "a", "")
    assert table.pairs() == {(10, 0), (11, 1), (0, 2)}
    assert not RelocationTable()


def test_columns_move_and_renumber_a_table() -> None:
    first = RelocationTable.of([RelocationSpec(4, R_AMDGPU_REL32_LO.number, "x", 0)])
    second = RelocationTable.of([RelocationSpec(4, R_AMDGPU_REL32_LO.number, "y", 1),
                                 RelocationSpec(12, R_AMDGPU_REL32_HI.number, "x", 2)])
    columns = RelocationColumns()
    columns.extend(first, 0)
    columns.extend(second, 100)
    columns.add(200, R_AMDGPU_REL32_HI.number, "y", 3)
    assert list(columns.table()) == [RelocationSpec(4, 10, "x", 0), RelocationSpec(104, 10, "y", 1),
                                     RelocationSpec(112, 11, "x", 2),
                                     RelocationSpec(200, 11, "y", 3)]


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
@pytest.mark.parametrize("path", OBJECTS, ids=OBJECT_IDS)
def test_corpus_objects_write_the_same_bytes(write: Callable[[ObjectSpec], bytes],
                                             path: Path) -> None:
    spec = object_spec(path)
    assert any(section.relocations for section in spec.sections)
    assert write(_as_tables(spec)) == write(spec)


def _spec(text: tuple[RelocationSpec, ...], data: tuple[RelocationSpec, ...] = ()) -> ObjectSpec:
    sections = (
        SectionSpec(".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 256, bytes(64), 64, text),
        SectionSpec(".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8, bytes(16), 16, data),
        SectionSpec(".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 8, b"", 64),
    )
    symbols = (SymbolSpec("counter", ".bss", 8, 8, "OBJECT", "GLOBAL", "HIDDEN"),
               SymbolSpec("other", ".bss", 40, 8, "OBJECT", "GLOBAL", "PROTECTED"),
               SymbolSpec("shared", ".bss", 48, 8, "OBJECT", "GLOBAL", "DEFAULT"),
               SymbolSpec("f", ".text", 0, 64, "FUNC", "GLOBAL", "PROTECTED"))
    return ObjectSpec(0x54C, 64, 3, sections, symbols)


def _pc_pair(at: int, symbol: str, addend: int) -> tuple[RelocationSpec, RelocationSpec]:
    return (RelocationSpec(at, R_AMDGPU_REL32_LO.number, symbol, addend),
            RelocationSpec(at + 8, R_AMDGPU_REL32_HI.number, symbol, addend + 8))


@pytest.mark.parametrize("text", [
    # The halves computed inline, against two symbols, with negative and large addends.
    (*_pc_pair(4, "counter", 4), *_pc_pair(20, "other", -(1 << 33)),
     *_pc_pair(36, "counter", 1 << 34)),
    # Through .got (the entries are given in first-use order), beside plain halves.
    (RelocationSpec(4, R_AMDGPU_GOTPCREL32_LO.number, "shared", 4),
     RelocationSpec(12, R_AMDGPU_GOTPCREL32_HI.number, "shared", 12),
     RelocationSpec(20, R_AMDGPU_GOTPCREL32_LO.number, "counter", 4), *_pc_pair(28, "other", 4)),
    # One dropped: the table is scanned one by one.
    (*_pc_pair(4, "counter", 4), RelocationSpec(20, R_AMDGPU_NONE.number, "", 0)),
], ids=["halves", "got", "none"])
def test_linked_bytes_agree(text: tuple[RelocationSpec, ...]) -> None:
    data = (RelocationSpec(0, R_AMDGPU_ABS64.number, "counter", 0),
            RelocationSpec(8, R_AMDGPU_ABS64.number, "shared", 0))
    records = _spec(text, data)
    linked = link_shared(records)
    assert link_shared(_as_tables(records)) == linked
    assert linked != link_shared(_spec((), data))  # the relocations changed the code


def test_a_table_left_to_the_loader_is_linked_one_by_one() -> None:
    """Writable data whose relocations the loader applies: the same ``.rela.dyn``."""
    text = _pc_pair(4, "counter", 4)
    data = (RelocationSpec(0, R_AMDGPU_ABS64.number, "counter", 0),
            RelocationSpec(8, R_AMDGPU_ABS64.number, "shared", 0))
    records = _spec(text, data)
    assert link_shared(_as_tables(records)) == link_shared(records)


def test_an_error_names_the_first_relocation_of_its_pair() -> None:
    text = (*_pc_pair(4, "counter", 4), RelocationSpec(24, R_AMDGPU_REL32_LO.number, "shared", 0),
            RelocationSpec(40, R_AMDGPU_REL32_LO.number, "shared", 0))
    for spec in (_spec(text), _as_tables(_spec(text))):
        with pytest.raises(ElfWriteError, match=r"^\.text\+0x18: R_AMDGPU_REL32_LO cannot be used "
                                                r"against preemptible symbol 'shared'"):
            link_shared(spec)
