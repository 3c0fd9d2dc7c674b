"""``link_shared`` against what ``ld.lld-19 -shared`` made (committed ``.co``) and makes here."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS64,
    R_AMDGPU_REL32_HI,
    R_AMDGPU_REL32_LO,
    R_AMDGPU_REL64,
)
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.elf_format import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_WRITE,
    SHT_NOBITS,
    SHT_PROGBITS,
)
from luthier.lowering.elf import (
    LLD_COMMENT,
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
    link_shared,
)

from .common import (
    INPUT_CODE_DIFFERENCES,
    LLD,
    OBJDUMP,
    OBJECT_IDS,
    OBJECTS,
    READELF,
    differing_addresses,
    linked_reference,
    object_spec,
    run_tool,
    structural_differences,
    without_csdata,
)
from .sources import SOURCES, assemble


@pytest.mark.parametrize("path", OBJECTS, ids=OBJECT_IDS)
def test_matches_committed_code_object(path: Path, tmp_path: Path) -> None:
    """Byte-identical to the committed ``.co``, except where the ``.o`` input itself differs."""
    reference = linked_reference(path)
    ours = tmp_path / reference.name
    ours.write_bytes(link_shared(without_csdata(object_spec(path))))
    expected = reference.read_bytes()
    allowed = INPUT_CODE_DIFFERENCES.get(path.name)
    if allowed is None:
        assert ours.read_bytes() == expected
    else:
        text = next(s for s in read_code_object(reference).sections if s.name == ".text")
        assert len(ours.read_bytes()) == len(expected)
        assert differing_addresses(ours.read_bytes(), expected, text.offset, text.address) == set(
            allowed
        )
        problems = structural_differences(ours, reference)
        assert all(p.startswith("code of ") for p in problems), problems
        assert len(problems) == len(allowed)
    if allowed is None:
        assert structural_differences(ours, reference) == []


@pytest.mark.parametrize("path", OBJECTS, ids=OBJECT_IDS)
def test_matches_lld_on_the_object(path: Path, tmp_path: Path) -> None:
    """Byte-identical to ``ld.lld-19`` run here on the very same ``.o`` (clang's flags)."""
    lld_out = tmp_path / "lld.co"
    run_tool(LLD, "-m", "elf64_amdgpu", "--no-undefined", "-shared", "-o", lld_out, path)
    assert link_shared(object_spec(path)) == lld_out.read_bytes()


@pytest.mark.parametrize("path", OBJECTS, ids=OBJECT_IDS)
def test_tools_read_the_output(path: Path, tmp_path: Path) -> None:
    """llvm-readelf -a and llvm-objdump -d accept our output and print what they print for lld's."""
    reference = linked_reference(path)
    ours = tmp_path / reference.name
    ours.write_bytes(link_shared(without_csdata(object_spec(path))))
    assert run_tool(READELF, "-a", "-W", ours) == run_tool(READELF, "-a", "-W", reference)
    dump = run_tool(OBJDUMP, "-d", ours)
    if path.name not in INPUT_CODE_DIFFERENCES:
        assert dump == run_tool(OBJDUMP, "-d", reference)
    assert "s_endpgm" in dump


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fresh_assembly_matches_lld(name: str, tmp_path: Path) -> None:
    """GOT entries, relro data, RELATIVE64 and symbolic ABS64 dynamic relocations, hidden,
    weak and absolute symbols, merged input sections: byte-identical to ld.lld-19."""
    obj = assemble(name, tmp_path)
    lld_out = tmp_path / f"{name}.co"
    run_tool(LLD, "-m", "elf64_amdgpu", "--no-undefined", "-shared", "-o", lld_out, obj)
    ours = tmp_path / f"{name}.ours.co"
    ours.write_bytes(link_shared(object_spec(obj)))
    assert ours.read_bytes() == lld_out.read_bytes()
    assert run_tool(READELF, "-a", "-W", ours) == run_tool(READELF, "-a", "-W", lld_out)
    assert run_tool(OBJDUMP, "-d", ours) == run_tool(OBJDUMP, "-d", lld_out)


def _kernel_spec() -> ObjectSpec:
    """A kernel built the way the IR side describes one: code reading a variable through
    s_getpc_b64 + REL32_LO/HI, its descriptor pointing back with REL64, a pointer table."""
    code = bytes.fromhex("001c80be00ff00800000000001ff018200000000000081bf")
    descriptor = bytearray(64)
    return ObjectSpec(
        e_flags=0x54C,
        os_abi=64,
        abi_version=3,
        sections=(
            SectionSpec(
                ".text",
                SHT_PROGBITS,
                SHF_ALLOC | SHF_EXECINSTR,
                256,
                code,
                len(code),
                (
                    RelocationSpec(8, R_AMDGPU_REL32_LO.number, "counter", 4),
                    RelocationSpec(16, R_AMDGPU_REL32_HI.number, "counter", 12),
                ),
            ),
            SectionSpec(
                ".rodata",
                SHT_PROGBITS,
                SHF_ALLOC,
                64,
                bytes(descriptor),
                64,
                (RelocationSpec(16, R_AMDGPU_REL64.number, "k", 16),),
            ),
            SectionSpec(
                ".data.rel.ro",
                SHT_PROGBITS,
                SHF_ALLOC | SHF_WRITE,
                8,
                bytes(8),
                8,
                (RelocationSpec(0, R_AMDGPU_ABS64.number, "k", 0),),
            ),
            SectionSpec(".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 4, b"", 4),
        ),
        symbols=(
            SymbolSpec("k", ".text", 0, len(code), "FUNC", "GLOBAL", "PROTECTED"),
            SymbolSpec("k.kd", ".rodata", 0, 64, "OBJECT", "GLOBAL", "PROTECTED"),
            SymbolSpec("table", ".data.rel.ro", 0, 8, "OBJECT", "GLOBAL", "PROTECTED"),
            SymbolSpec("counter", ".bss", 0, 4, "OBJECT", "GLOBAL", "PROTECTED"),
        ),
        comment="luthier test",
    )


def test_built_spec_links_with_resolved_addresses(tmp_path: Path) -> None:
    """Addresses patched into code and descriptor are the ones the symbols end up at."""
    out = tmp_path / "k.co"
    out.write_bytes(link_shared(_kernel_spec()))
    co = read_code_object(out)
    sym = {s.name: s.value for s in co.symbols if s.table == ".symtab"}
    text = next(s for s in co.sections if s.name == ".text")
    raw = out.read_bytes()
    lo, hi = (struct.unpack_from("<I", raw, text.offset + o)[0] for o in (8, 16))
    assert (hi << 32 | lo) == sym["counter"] - (text.address + 4)
    (kernel,) = co.kernels
    assert kernel.entry_address == sym["k"]
    comment = next(s for s in co.sections if s.name == ".comment")
    assert raw[comment.offset : comment.offset + comment.size] == (
        b"\0" + LLD_COMMENT.encode() + b"\0luthier test\0"
    )
    relocs = run_tool(READELF, "-r", "-W", out)
    assert "R_AMDGPU_RELATIVE64" in relocs and f"{sym['k']:x}" in relocs
    run_tool(OBJDUMP, "-d", out)


def _program_headers(raw: bytes) -> list[tuple[int, int, int, int]]:
    """(p_type, p_vaddr, p_filesz, p_memsz) of every program header."""
    phoff, = struct.unpack_from("<Q", raw, 0x20)
    phnum, = struct.unpack_from("<H", raw, 0x38)
    rows = [struct.unpack_from("<IIQQQQQQ", raw, phoff + 56 * i) for i in range(phnum)]
    return [(row[0], row[3], row[5], row[6]) for row in rows]


def test_unpadded_relro_is_what_lld_before_18_wrote(tmp_path: Path) -> None:
    """``relro_padding=False`` (a relink of an object ld.lld 15 made) leaves the section
    out and moves nothing: every symbol keeps its address, the writable segment ends with
    its data, and ``PT_GNU_RELRO`` still reaches the end of its page."""
    padded, unpadded = tmp_path / "padded.co", tmp_path / "unpadded.co"
    padded.write_bytes(link_shared(_kernel_spec()))
    unpadded.write_bytes(link_shared(_kernel_spec(), relro_padding=False))
    before, after = read_code_object(padded), read_code_object(unpadded)
    assert [s.name for s in before.sections if s.name != ".relro_padding"] \
        == [s.name for s in after.sections]
    assert {(s.name, s.value) for s in before.symbols} == {(s.name, s.value) for s in after.symbols}
    gnu_relro, pt_load = 0x6474E552, 1
    relro = next(h for h in _program_headers(unpadded.read_bytes()) if h[0] == gnu_relro)
    assert (relro[1] + relro[3]) % 0x1000 == 0 and relro[2] < relro[3]
    dynamic = next(s for s in after.sections if s.name == ".dynamic")
    writable = [h for h in _program_headers(unpadded.read_bytes())
                if h[0] == pt_load and h[1] <= dynamic.address < h[1] + h[3]]
    assert len(writable) == 1 and writable[0][3] < relro[3]
    assert relro == next(h for h in _program_headers(padded.read_bytes()) if h[0] == gnu_relro)
