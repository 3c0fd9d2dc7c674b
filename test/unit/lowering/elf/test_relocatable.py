"""``write_relocatable`` against the corpus (llvm-mc's layout), read back by ``read_elf``."""

from __future__ import annotations

from pathlib import Path

import pytest

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS64,
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
from luthier.lowering.elf import (
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
    write_relocatable,
)

from .common import OBJDUMP, OBJECT_IDS, OBJECTS, READELF, object_spec, run_tool
from .sources import SOURCES, assemble


@pytest.mark.parametrize("path", OBJECTS, ids=OBJECT_IDS)
def test_round_trip_is_byte_identical(path: Path) -> None:
    """Every corpus object (clang's and llvm-mc's) comes back exactly as it was."""
    assert write_relocatable(object_spec(path)) == path.read_bytes()


def _small_spec() -> ObjectSpec:
    """A kernel-less object as the IR side would describe it: code reaching a variable
    PC-relatively, a pointer table, no section symbols (the writer adds what it needs)."""
    code = bytes.fromhex("001c80be00ff00800000000001ff018200000000000081bf")
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
                ".data",
                SHT_PROGBITS,
                SHF_ALLOC | SHF_WRITE,
                8,
                bytes(8),
                8,
                (RelocationSpec(0, R_AMDGPU_ABS64.number, ".text", 0),),
            ),
            SectionSpec(".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 4, b"", 4),
        ),
        symbols=(
            SymbolSpec("helper", ".text", 0, len(code), "FUNC", "LOCAL", "DEFAULT"),
            SymbolSpec("table", ".data", 0, 8, "OBJECT", "GLOBAL", "PROTECTED"),
            SymbolSpec("counter", ".bss", 0, 4, "OBJECT", "GLOBAL", "PROTECTED"),
        ),
        comment="luthier test",
    )


def test_built_spec_reads_back() -> None:
    """A spec built by hand survives a write and a read, with the section symbol added."""
    data = write_relocatable(_small_spec())
    again = object_spec(data)
    assert [s.name for s in again.sections] == [".text", ".data", ".bss", ".comment"]
    assert again.sections[-1].data == b"\0luthier test\0"
    assert [(s.name, s.type, s.binding) for s in again.symbols] == [
        ("helper", "FUNC", "LOCAL"),
        (".text", "SECTION", "LOCAL"),
        ("table", "OBJECT", "GLOBAL"),
        ("counter", "OBJECT", "GLOBAL"),
    ]
    assert again.sections[0].relocations == _small_spec().sections[0].relocations
    assert write_relocatable(again) == data


def test_tools_accept_built_spec(tmp_path: Path) -> None:
    """llvm-readelf and llvm-objdump read a hand-built object and see its relocations."""
    out = tmp_path / "small.o"
    out.write_bytes(write_relocatable(_small_spec()))
    text = run_tool(READELF, "-a", "-W", out)
    assert "R_AMDGPU_REL32_LO" in text and "counter + 4" in text
    assert "R_AMDGPU_ABS64" in text and ".text + 0" in text
    dump = run_tool(OBJDUMP, "-d", "-r", "--mcpu=gfx942", out)
    assert "s_getpc_b64" in dump and "R_AMDGPU_REL32_HI\tcounter+0xc" in dump


@pytest.mark.parametrize("path", OBJECTS, ids=OBJECT_IDS)
def test_tools_see_the_same_object(path: Path, tmp_path: Path) -> None:
    """llvm-readelf -a and llvm-objdump -d -r print the same for our bytes as for the file."""
    out = tmp_path / path.name
    out.write_bytes(write_relocatable(object_spec(path)))
    assert run_tool(READELF, "-a", "-W", out) == run_tool(READELF, "-a", "-W", path)
    assert run_tool(OBJDUMP, "-d", "-r", out) == run_tool(OBJDUMP, "-d", "-r", path)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_matches_llvm_mc_on_fresh_assembly(name: str, tmp_path: Path) -> None:
    """Objects llvm-mc assembles here (GOT, relro data, hidden, weak, absolute symbols, notes,
    a cross-section branch) round-trip too."""
    obj = assemble(name, tmp_path)
    assert write_relocatable(object_spec(obj)) == obj.read_bytes()
