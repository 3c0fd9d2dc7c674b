"""What the writers do with what a relink carries from a linked input: sections written as
they were (never merged again), sections bound to a layout kept or left out, and undefined
symbols of a link without ``--no-undefined`` (checked against ``ld.lld-19``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from luthier.frontend.codeobj import read_elf
from luthier.frontend.codeobj.carried import layout_digest
from luthier.frontend.codeobj.elf_format import SHF_ALLOC, SHF_MERGE, SHF_STRINGS, SHT_PROGBITS
from luthier.lowering.elf import (
    ElfWriteError,
    ObjectSpec,
    SectionSpec,
    SymbolSpec,
    link_shared,
    link_shared_object,
    write_relocatable,
)

from .common import CORPUS, LLD, LLVM_MC, READELF, object_spec, run_tool, without_csdata

OBJECT = CORPUS / "calls.gfx90a.o"
#: Strings in an order lld's merge would not keep (it shards them by hash).
STRINGS = b"zeta\0alpha\0mid\0alpha2\0"

#: Undefined globals nothing refers to (kept by a link without ``--no-undefined``), beside a
#: weak one and a defined, protected kernel-like function.
UNDEFINED = """
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
\t.text
\t.globl undefined_plain
\t.globl undefined_object
\t.type undefined_object,@object
\t.protected undefined_protected
\t.globl undefined_protected
\t.weak undefined_weak
\t.globl f
\t.p2align 8
\t.type f,@function
\t.protected f
f:
\ts_endpgm
.Lfe:
\t.size f, .Lfe-f
"""


def _spec() -> ObjectSpec:
    return without_csdata(object_spec(OBJECT))


def _with(spec: ObjectSpec, *sections: SectionSpec) -> ObjectSpec:
    return replace(spec, sections=(*spec.sections, *sections))


def _section(data: bytes, name: str) -> bytes:
    code_object = read_elf(data, "<out>")
    section = code_object.section(name)
    assert section is not None, name
    return data[section.offset:section.offset + section.size]


def _debug(name: str, data: bytes, layout: str | None) -> SectionSpec:
    return SectionSpec(name, SHT_PROGBITS, 0, 1, data, len(data), verbatim=True, layout=layout)


def _layout(data: bytes) -> str:
    """The digest of the symbol layout of the linked ``data``, as the lifter computes it."""
    code_object = read_elf(data, "<out>")
    return layout_digest(
        (s.name, s.value, s.size) for s in code_object.symbols
        if s.table == ".symtab" and isinstance(s.section_index, int) and s.section_index
        and s.name and s.name != "_DYNAMIC"
        and code_object.sections[s.section_index].flags & SHF_ALLOC)


def test_a_verbatim_mergeable_section_keeps_its_bytes() -> None:
    """``.debug_str`` of a linked file is not merged again: ``.debug_info`` holds offsets
    into it. The same section given as an input of a link is merged (reordered)."""
    strings = SectionSpec(".debug_str", SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, 1, STRINGS,
                          len(STRINGS), entry_size=1)
    merged = link_shared(_with(_spec(), strings))
    kept = link_shared(_with(_spec(), replace(strings, verbatim=True)))
    assert _section(kept, ".debug_str") == STRINGS
    assert sorted(_section(merged, ".debug_str").split(b"\0")) == sorted(STRINGS.split(b"\0"))
    assert _section(merged, ".debug_str") != STRINGS


def test_a_section_bound_to_the_layout_is_kept_where_the_layout_is_the_same() -> None:
    plain = link_shared(_spec())
    layout = _layout(plain)
    linked = link_shared_object(_with(_spec(), _debug(".debug_line", b"\1\2\3", layout)))
    assert linked.stale_sections == ()
    assert _section(linked.data, ".debug_line") == b"\1\2\3"
    # Non-allocated sections come after everything allocated: the rest is unchanged.
    assert read_elf(linked.data, "<out>").segments == read_elf(plain, "<out>").segments


def test_a_section_bound_to_another_layout_is_left_out_and_named() -> None:
    plain = link_shared(_spec())
    linked = link_shared_object(_with(
        _spec(), _debug(".debug_line", b"\1\2\3", "0" * 32),
        _debug(".debug_str", b"kept\0", None)))
    assert linked.stale_sections == (".debug_line",)
    code_object = read_elf(linked.data, "<out>")
    assert code_object.section(".debug_line") is None
    assert _section(linked.data, ".debug_str") == b"kept\0"
    assert code_object.segments == read_elf(plain, "<out>").segments


def test_a_relocatable_object_refuses_a_layout() -> None:
    with pytest.raises(ElfWriteError, match="holds a linked object's addresses"):
        write_relocatable(_with(_spec(), _debug(".debug_line", b"\1", "0" * 32)))


def test_an_allocated_section_cannot_be_bound_to_the_layout() -> None:
    bound = replace(_debug(".luthier", b"\1", "0" * 32), flags=SHF_ALLOC)
    with pytest.raises(ElfWriteError, match="allocated section cannot depend"):
        link_shared(_with(_spec(), bound))


def test_undefined_globals_are_refused_by_default() -> None:
    symbol = SymbolSpec("nowhere", None, 0, 0, "NOTYPE", "GLOBAL", "DEFAULT")
    spec = replace(_spec(), symbols=(*_spec().symbols, symbol))
    with pytest.raises(ElfWriteError, match="undefined symbol 'nowhere'"):
        link_shared(spec)


def test_undefined_globals_link_as_lld_links_them_without_no_undefined(tmp_path: Path) -> None:
    """``no_undefined=False``: the undefined symbols are exported, undefined ones first in
    ``.dynsym``, as ``ld.lld-19 -shared`` without ``--no-undefined`` does, byte for byte."""
    source = tmp_path / "undefined.s"
    source.write_text(UNDEFINED)
    obj = tmp_path / "undefined.o"
    run_tool(LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-filetype=obj", source,
             "-o", obj)
    lld_out = tmp_path / "lld.co"
    run_tool(LLD, "-m", "elf64_amdgpu", "-shared", "-o", lld_out, obj)
    ours = tmp_path / "ours.co"
    ours.write_bytes(link_shared(replace(object_spec(obj), no_undefined=False)))
    assert ours.read_bytes() == lld_out.read_bytes()
    symbols = [line.split()[3:] for line in run_tool(READELF, "--dyn-syms", "-W", ours)
               .splitlines() if " UND " in line]
    assert symbols == [
        ["NOTYPE", "LOCAL", "DEFAULT", "UND"],
        ["NOTYPE", "GLOBAL", "DEFAULT", "UND", "undefined_plain"],
        ["OBJECT", "GLOBAL", "DEFAULT", "UND", "undefined_object"],
        ["NOTYPE", "GLOBAL", "PROTECTED", "UND", "undefined_protected"],
        ["NOTYPE", "WEAK", "DEFAULT", "UND", "undefined_weak"],
    ]
