"""Shared pieces of the assembler tests: the LLVM tools as oracles, and object comparison.

Every expectation comes from llvm-mc-19 (or ld.lld-19) run on the same input at test time;
nothing here hard-codes an expected byte.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from luthier.frontend.codeobj import CodeObject, Section, read_elf
from luthier.lowering.elf.relocatable import assemble_relocatable

ROOT = Path(__file__).resolve().parents[4]
CORPUS = ROOT / "test" / "corpus" / "kernels"
LLVM_MC = "llvm-mc-19"
LLD = "ld.lld-19"
OBJCOPY = "llvm-objcopy-19"
CLANG = "clang-19"
#: The flags test/corpus/kernels/build.sh compiles the corpus with.
CLANG_FLAGS = (
    "-x",
    "hip",
    "--offload-device-only",
    "-nogpulib",
    "-nogpuinc",
    "-O2",
    "--no-gpu-bundle-output",
)


def require(tool: str) -> str:
    """Path of an LLVM tool, or skip the test with the reason."""
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (scripts/setup.sh installs LLVM 19)")
    return path


def llvm_mc(source: Path, processor: str, output: Path) -> subprocess.CompletedProcess[str]:
    """``llvm-mc-19 -filetype=obj`` on ``source`` (the result, errors included)."""
    return subprocess.run(
        [
            require(LLVM_MC),
            "-triple=amdgcn-amd-amdhsa",
            f"-mcpu={processor}",
            "-filetype=obj",
            "-o",
            str(output),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def llvm_mc_object(text: str, processor: str, tmp: Path, name: str = "input.s") -> bytes:
    """What llvm-mc-19 makes of ``text`` (which it must accept)."""
    source = tmp / name
    source.write_text(text)
    output = tmp / (name + ".o")
    result = llvm_mc(source, processor, output)
    assert result.returncode == 0, result.stderr
    return output.read_bytes()


def llvm_mc_first_error(text: str, processor: str, tmp: Path, name: str) -> str:
    """llvm-mc-19's first ``error:`` line for ``text`` (which it must reject)."""
    source = tmp / name
    source.write_text(text)
    result = llvm_mc(source, processor, tmp / (name + ".o"))
    assert result.returncode != 0, "llvm-mc accepted the input"
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert errors, result.stderr
    return errors[0].replace(str(source), name)


def assert_same_object(ours: bytes, reference: bytes) -> None:
    """Section contents, symbols and relocations first (readable failures), then the bytes.

    Both objects go through the product's reader, :func:`read_elf`."""
    mine, theirs = read_elf(ours, "ours.o"), read_elf(reference, "llvm-mc.o")
    assert_same_contents(mine, theirs)
    assert ours == reference


def assert_same_contents(mine: CodeObject, theirs: CodeObject) -> None:
    assert [s.name for s in mine.sections] == [s.name for s in theirs.sections]
    for ours_section, their_section in zip(mine.sections, theirs.sections, strict=True):
        name = ours_section.name
        assert _contents(mine, ours_section) == _contents(theirs, their_section), (
            f"{name}: contents differ"
        )
        assert (
            ours_section.type,
            ours_section.flags,
            ours_section.alignment,
            ours_section.size,
            ours_section.entry_size,
        ) == (
            their_section.type,
            their_section.flags,
            their_section.alignment,
            their_section.size,
            their_section.entry_size,
        ), f"{name}: header fields"
    assert _relocations(mine) == _relocations(theirs)
    assert mine.symbols == theirs.symbols
    assert (mine.e_flags, mine.os_abi, mine.abi_version) == (
        theirs.e_flags,
        theirs.os_abi,
        theirs.abi_version,
    )


def _contents(code_object: CodeObject, section: Section) -> bytes:
    if not section.has_file_bytes:
        return b""
    return code_object.data[section.offset : section.offset + section.size]


def _relocations(code_object: CodeObject) -> list[tuple[str | None, int, str, str, int]]:
    """Relocations by patched section, offset, type name, symbol and addend."""
    return [
        (r.target_section, r.offset, r.type_name, r.symbol, r.addend)
        for r in code_object.relocations
    ]


def check_against_llvm_mc(text: str, processor: str, tmp: Path) -> bytes:
    """Assemble ``text`` with both assemblers and require identical objects; gives ours."""
    reference = llvm_mc_object(text, processor, tmp)
    ours = assemble_relocatable(text, "input.s")
    assert_same_object(ours, reference)
    return ours
