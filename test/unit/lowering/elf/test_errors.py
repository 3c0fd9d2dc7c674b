"""Bad input raises :class:`ElfWriteError` with a one-line reason, from every entry point."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS32_LO,
    R_AMDGPU_REL16,
    R_AMDGPU_REL32,
    R_AMDGPU_REL32_LO,
)
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_WRITE,
    SHT_NOBITS,
    SHT_PROGBITS,
)
from luthier.frontend.codeobj.spec import RelocationTable
from luthier.lowering.elf import (
    ElfWriteError,
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
    link_shared,
    write_relocatable,
)

from .common import OBJECTS, object_spec

WRITERS: list[Callable[[ObjectSpec], bytes]] = [write_relocatable, link_shared]
WRITER_IDS = ["relocatable", "shared"]


#: Whether :func:`_text` gives its relocations as a tuple or as a table (the emitter's
#: form): every message must be the same.
_AS_TABLE: list[bool] = [False]


@pytest.fixture(autouse=True, params=[False, True], ids=["tuple", "table"])
def relocation_form(request: pytest.FixtureRequest) -> None:
    _AS_TABLE[0] = bool(request.param)


def _text(*relocations: RelocationSpec, size: int = 16) -> SectionSpec:
    given = RelocationTable.of(relocations) if _AS_TABLE[0] else relocations
    return SectionSpec(
        ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 256, bytes(size), size, given
    )


def _bss(size: int = 4) -> SectionSpec:
    return SectionSpec(".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 4, b"", size)


def _spec(sections: tuple[SectionSpec, ...], symbols: tuple[SymbolSpec, ...] = ()) -> ObjectSpec:
    return ObjectSpec(0x54C, 64, 3, sections, symbols)


def _sym(
    name: str, section: str | None, value: int = 0, visibility: str = "PROTECTED"
) -> SymbolSpec:
    return SymbolSpec(name, section, value, 4, "OBJECT", "GLOBAL", visibility)


def _raises(call: Callable[[], object], fragment: str) -> None:
    with pytest.raises(ElfWriteError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and fragment in message, message
    assert info.value.reason == message


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_relocation_needs_a_missing_symbol(write: Callable[[ObjectSpec], bytes]) -> None:
    spec = _spec((_text(RelocationSpec(4, R_AMDGPU_REL32_LO.number, "nowhere", 4)),))
    _raises(lambda: write(spec), "undefined symbol 'nowhere'")


def test_relocation_needs_an_undefined_symbol_when_linking() -> None:
    spec = _spec(
        (_text(RelocationSpec(4, R_AMDGPU_REL32_LO.number, "ext", 4)),),
        (SymbolSpec("ext", None, 0, 0, "NOTYPE", "WEAK", "DEFAULT"),),
    )
    write_relocatable(spec)  # an object may reference what another one defines
    _raises(lambda: link_shared(spec), "needs undefined symbol 'ext'")


def test_undefined_global_cannot_be_linked() -> None:
    spec = _spec((_text(),), (_sym("ext", None),))
    _raises(lambda: link_shared(spec), "undefined symbol 'ext'")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
@pytest.mark.parametrize("r_type", [12, 15, 99])
def test_unsupported_relocation_type(write: Callable[[ObjectSpec], bytes], r_type: int) -> None:
    spec = _spec((_text(RelocationSpec(4, r_type, "", 0)),))
    _raises(lambda: write(spec), f"unsupported relocation type {r_type}")


def test_section_too_large_for_rel32() -> None:
    """A variable 4 GiB past the code cannot be reached with a 32-bit PC-relative offset."""
    spec = _spec(
        (_text(RelocationSpec(4, R_AMDGPU_REL32.number, "far", 0)), _bss(1 << 32)),
        (_sym("far", ".bss", (1 << 32) - 4),),
    )
    write_relocatable(spec)
    _raises(lambda: link_shared(spec), "out of 32-bit range")


def test_branch_out_of_rel16_range() -> None:
    spec = _spec(
        (_text(RelocationSpec(0, R_AMDGPU_REL16.number, "far", 0), size=0x40000),),
        (SymbolSpec("far", ".text", 0x3FFF0, 0, "FUNC", "LOCAL", "DEFAULT"),),
    )
    _raises(lambda: link_shared(spec), "out of 16-bit range")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_duplicate_section_names(write: Callable[[ObjectSpec], bytes]) -> None:
    _raises(lambda: write(_spec((_text(), _text()))), "two sections are named '.text'")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_duplicate_symbol_names(write: Callable[[ObjectSpec], bytes]) -> None:
    spec = _spec((_text(), _bss()), (_sym("x", ".bss"), _sym("x", ".text")))
    _raises(lambda: write(spec), "two symbols are named 'x'")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_comment_given_twice(write: Callable[[ObjectSpec], bytes]) -> None:
    base = object_spec(OBJECTS[0])
    _raises(lambda: write(replace(base, comment="again")), "both ObjectSpec.comment")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_relocation_outside_its_section(write: Callable[[ObjectSpec], bytes]) -> None:
    spec = _spec((_text(RelocationSpec(14, R_AMDGPU_REL32_LO.number, "", 0)),))
    _raises(lambda: write(spec), "outside the section")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_symbol_in_unknown_section(write: Callable[[ObjectSpec], bytes]) -> None:
    spec = _spec((_text(),), (_sym("x", ".data"),))
    _raises(lambda: write(spec), "unknown section '.data'")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_inconsistent_section(write: Callable[[ObjectSpec], bytes]) -> None:
    bad_size = replace(_text(), size=8)
    _raises(lambda: write(_spec((bad_size,))), "differs from its data")
    bad_align = replace(_text(), alignment=3)
    _raises(lambda: write(_spec((bad_align,))), "not a power of 2")
    bss_bytes = replace(_bss(), data=b"\0\0\0\0")
    _raises(lambda: write(_spec((bss_bytes,))), "SHT_NOBITS section has data")


@pytest.mark.parametrize("write", WRITERS, ids=WRITER_IDS)
def test_unknown_symbol_binding(write: Callable[[ObjectSpec], bytes]) -> None:
    spec = _spec((_text(),), (replace(_sym("x", ".text"), binding="STRONG"),))
    _raises(lambda: write(spec), "'STRONG'")


def test_pc_relative_against_preemptible_symbol() -> None:
    """A default-visibility global could be replaced at load time: code cannot reach it."""
    spec = _spec(
        (_text(RelocationSpec(4, R_AMDGPU_REL32_LO.number, "g", 4)), _bss()),
        (_sym("g", ".bss", visibility="DEFAULT"),),
    )
    _raises(lambda: link_shared(spec), "preemptible symbol 'g'")


def test_absolute_address_in_code() -> None:
    """lld refuses ABS32_LO/HI in a shared object: the loader cannot patch code."""
    spec = _spec(
        (_text(RelocationSpec(4, R_AMDGPU_ABS32_LO.number, "v", 0)), _bss()), (_sym("v", ".bss"),)
    )
    write_relocatable(spec)
    _raises(lambda: link_shared(spec), "load-time relocation in code")
