"""LLVM's view of a code object (llvm-readelf-19, llvm-objdump-19), parsed for comparison.

The reader must agree with the tools users already trust; these helpers run them and turn
their text into plain Python values. Each returns None when its tool is missing, so a test can
skip with a reason rather than fail.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

READELF = "llvm-readelf-19"
OBJDUMP = "llvm-objdump-19"
CLANG = "clang-19"
BUNDLER = "clang-offload-bundler-19"
LINKER = "ld.lld-19"
STRIP = "llvm-strip-19"


def have(tool: str) -> bool:
    return shutil.which(tool) is not None


def run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


@dataclass(frozen=True)
class ReadelfHeader:
    abi_version: int
    elf_type: str
    flags_value: int
    flag_names: frozenset[str]


def header(path: Path) -> ReadelfHeader:
    text = run(READELF, "--file-headers", str(path))
    fields = {
        key.strip(): value.strip()
        for key, value in (line.split(":", 1) for line in text.splitlines() if ":" in line)
    }
    flags = [part.strip() for part in fields["Flags"].split(",")]
    return ReadelfHeader(
        abi_version=int(fields["ABI Version"]),
        elf_type=fields["Type"].split()[0],
        flags_value=int(flags[0], 16),
        flag_names=frozenset(flags[1:]),
    )


@dataclass(frozen=True)
class ReadelfSection:
    index: int
    name: str
    address: int
    offset: int
    size: int
    link: int
    info: int
    alignment: int


_SECTION_ROW = re.compile(r"^\s*\[\s*(\d+)\]\s(.*)$")
_HEX16 = re.compile(r"^[0-9a-f]{16}$")


def sections(path: Path) -> list[ReadelfSection]:
    out: list[ReadelfSection] = []
    for line in run(READELF, "--wide", "--section-headers", str(path)).splitlines():
        match = _SECTION_ROW.match(line)
        if match is None or match.group(1) == "Nr":
            continue
        tokens = match.group(2).split()
        at = next(i for i, token in enumerate(tokens) if _HEX16.match(token))
        name = " ".join(tokens[: at - 1])
        address, offset, size = (int(tokens[at + k], 16) for k in range(3))
        link, info, align = (int(token) for token in tokens[-3:])
        out.append(ReadelfSection(int(match.group(1)), name, address, offset, size, link, info,
                                  align))  # fmt: skip
    return out


@dataclass(frozen=True)
class ReadelfSegment:
    type: str
    offset: int
    virtual_address: int
    file_size: int
    memory_size: int
    alignment: int


def segments(path: Path) -> list[ReadelfSegment]:
    out: list[ReadelfSegment] = []
    rows = False
    for line in run(READELF, "--wide", "--program-headers", str(path)).splitlines():
        tokens = line.split()
        if tokens[:2] == ["Type", "Offset"]:
            rows = True
            continue
        if not rows:
            continue
        if not tokens or not tokens[1].startswith("0x"):
            break
        out.append(
            ReadelfSegment(
                tokens[0],
                int(tokens[1], 16),
                int(tokens[2], 16),
                int(tokens[4], 16),
                int(tokens[5], 16),
                int(tokens[-1], 16),
            )
        )
    return out


@dataclass(frozen=True)
class ReadelfSymbol:
    table: str
    index: int
    value: int
    size: int
    type: str
    binding: str
    visibility: str
    ndx: str
    name: str


_TABLE = re.compile(r"^Symbol table '([^']+)'")
_SYMBOL_ROW = re.compile(
    r"^\s*(\d+):\s+([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+(\w+)\s+(\w+)\s+(\w+)\s+(\S+)\s?(.*)$"
)


def symbols(path: Path) -> list[ReadelfSymbol]:
    out: list[ReadelfSymbol] = []
    table = ""
    for line in run(READELF, "--wide", "--symbols", str(path)).splitlines():
        if (match := _TABLE.match(line)) is not None:
            table = match.group(1)
            continue
        if (match := _SYMBOL_ROW.match(line)) is None:
            continue
        index, value, size, kind, bind, vis, ndx, name = match.groups()
        out.append(ReadelfSymbol(table, int(index), int(value, 16), int(size, 0), kind, bind,
                                 vis, ndx, name.strip()))  # fmt: skip
    return out


@dataclass(frozen=True)
class ReadelfRelocation:
    section: str
    offset: int
    type_name: str
    symbol: str
    addend: int


_RELOC_SECTION = re.compile(r"^Relocation section '([^']+)'")


def relocations(path: Path) -> list[ReadelfRelocation]:
    out: list[ReadelfRelocation] = []
    section = ""
    for line in run(READELF, "--wide", "--relocations", str(path)).splitlines():
        if (match := _RELOC_SECTION.match(line)) is not None:
            section = match.group(1)
            continue
        tokens = line.split()
        if len(tokens) < 3 or not _HEX16.match(tokens[0]):
            continue
        offset, type_name = int(tokens[0], 16), tokens[2]
        symbol, addend = "", 0
        rest = tokens[3:]
        if len(rest) >= 4 and _HEX16.match(rest[0]):
            symbol = " ".join(rest[1:-2])
            addend = int(rest[-1], 16) * (-1 if rest[-2] == "-" else 1)
        elif rest:
            addend = int(rest[-1], 16)
        out.append(ReadelfRelocation(section, offset, type_name, symbol, addend))
    return out


def metadata_yaml(path: Path) -> object | None:
    """The AMDGPU metadata llvm-readelf prints as YAML, loaded; None without PyYAML."""
    try:
        import yaml  # pyright: ignore[reportMissingModuleSource, reportMissingTypeStubs]
    except ImportError:
        return None
    text = run(READELF, "--notes", str(path))
    start = text.index("---")
    end = text.index("\n...", start)
    return cast(Any, yaml).safe_load(text[start:end])


def kernel_descriptor_directives(path: Path) -> dict[str, dict[str, int]]:
    """``.amdhsa_*`` directive values per kernel, from llvm-objdump's descriptor disassembly."""
    text = run(OBJDUMP, "-D", "--section=.rodata", str(path))
    out: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    for line in text.splitlines():
        tokens = line.split()
        if tokens[:1] == [".amdhsa_kernel"]:
            current = out.setdefault(tokens[1], {})
        elif tokens[:1] == [".end_amdhsa_kernel"]:
            current = None
        elif current is not None and len(tokens) == 2 and tokens[0].startswith(".amdhsa_"):
            current[tokens[0]] = int(tokens[1], 0)
    return out


def section_hex(path: Path, name: str) -> bytes:
    """A section's bytes from ``llvm-objdump -s``."""
    data = bytearray()
    for line in run(OBJDUMP, "-s", f"--section={name}", str(path)).splitlines()[3:]:
        tokens = line.split()
        if not tokens or not re.fullmatch(r"[0-9a-f]+", tokens[0]):
            continue
        for word in tokens[1:5]:
            if not re.fullmatch(r"[0-9a-f]{2,8}", word):
                break
            data += bytes.fromhex(word)
    return bytes(data)
