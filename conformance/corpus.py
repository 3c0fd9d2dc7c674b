"""Extract the inputs of LLVM's AMDGPU MC tests as a deduplicated conformance corpus.

LLVM's tests are written for FileCheck, so every file mixes RUN/CHECK comments, directives,
kernel-descriptor blocks and the lines we actually want: byte sequences (disassembler tests) and
instruction statements (assembler tests). We keep each distinct input once, remembering where it
was first seen so that a mismatch report can point back at the LLVM test that motivated it.
For the GFX9 targets the per-file RUN lines (which target each input was written for) are
ignored: the harness asks llvm-mc what every input means on every target under test. The
RDNA families reuse few GFX9 encodings and their tests are large, so for them a file counts
only when one of its RUN lines names a processor of the same family (``family=`` below): the
rest would mostly measure how both tools reject another family's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: Where the inputs live below an LLVM source root.
ASSEMBLER_TESTS = Path("llvm/test/MC/AMDGPU")
DISASSEMBLER_TESTS = Path("llvm/test/MC/Disassembler/AMDGPU")


@dataclass(frozen=True, slots=True)
class DisasmCase:
    """A byte sequence to disassemble, written as one line of an LLVM test."""

    data: bytes
    origin: str  # "file.txt:LINE" of the first occurrence


@dataclass(frozen=True, slots=True)
class AsmCase:
    """One assembly statement to assemble."""

    statement: str
    origin: str


_BYTE_TOKEN = re.compile(r"0[xX][0-9a-fA-F]{1,2}")
_BYTE_LINE = re.compile(r"\[?\s*0[xX][0-9a-fA-F]{1,2}([\s,]+0[xX][0-9a-fA-F]{1,2})*[\s,]*\]?")


def strip_comment(line: str) -> str:
    """Drop a trailing ``#``, ``;`` or ``//`` comment (the comment styles the tests use)."""
    cut = len(line)
    for marker in ("//", ";", "#"):
        index = line.find(marker)
        if index != -1:
            cut = min(cut, index)
    return line[:cut].strip()


def parse_byte_line(line: str) -> bytes | None:
    """Return the bytes of a disassembler-test line, or None if it is not a byte line.

    A byte line holds hex byte tokens separated by commas and/or blanks, optionally wrapped in
    llvm-mc's ``[...]`` grouping, optionally followed by a comment. Anything else (RUN/CHECK
    comments, stray assembly text) is not an input.
    """
    body = strip_comment(line)
    if not body or _BYTE_LINE.fullmatch(body) is None:
        return None
    return bytes(int(token, 16) for token in _BYTE_TOKEN.findall(body))


#: Directives that open a block whose content is not instruction statements.
_BLOCK_OPENERS: dict[str, str] = {
    ".amdhsa_kernel": ".end_amdhsa_kernel",
    ".amd_kernel_code_t": ".end_amd_kernel_code_t",
    ".amdgpu_metadata": ".end_amdgpu_metadata",
    ".amd_amdgpu_hsa_metadata": ".end_amd_amdgpu_hsa_metadata",
    ".amd_amdgpu_pal_metadata": ".end_amd_amdgpu_pal_metadata",
    ".amdgpu_pal_metadata": ".end_amdgpu_pal_metadata",
    ".macro": ".endm",
    ".rept": ".endr",
    ".irp": ".endr",
    ".irpc": ".endr",
}
_LABEL = re.compile(r"[A-Za-z_.$][\w.$]*:")
_ASSIGNMENT = re.compile(r"[A-Za-z_.$][\w.$]*\s*=")


def _block_end(first_word: str) -> str | None:
    if first_word in _BLOCK_OPENERS:
        return _BLOCK_OPENERS[first_word]
    if first_word.startswith(".if"):
        return ".endif"
    return None


def statements_of(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Yield (line number, statement) for the instruction statements of an assembler test.

    Dropped: comments (``//``, ``;``, and ``#`` at the start of a line), directives and the
    content of directive blocks (kernel descriptors, metadata, macros, conditionals), labels
    and symbol assignments. Those only make sense with their file's context, which the harness
    does not reproduce: every statement is assembled on its own.
    """
    open_blocks: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if raw.lstrip().startswith("#"):
            continue
        text = raw
        for marker in ("//", ";"):
            index = text.find(marker)
            if index != -1:
                text = text[:index]
        text = text.strip()
        if not text:
            continue
        first_word = text.split(maxsplit=1)[0]
        if open_blocks:
            if first_word == open_blocks[-1]:
                open_blocks.pop()
            elif (end := _block_end(first_word)) is not None:
                open_blocks.append(end)
            continue
        if (end := _block_end(first_word)) is not None:
            open_blocks.append(end)
            continue
        label = _LABEL.match(text)
        if label is not None:
            text = text[label.end() :].strip()
            if not text:
                continue
        if text.startswith(".") or _ASSIGNMENT.match(text) is not None:
            continue
        yield number, text


_RUN_MCPU = re.compile(r"-mcpu[= ](gfx[0-9a-z-]+)")
_FAMILY = re.compile(r"gfx(1[0-2]|[6-9])")


def mcpu_family(mcpu: str) -> str:
    """The ISA family a processor name belongs to: ``gfx9``, ``gfx10``, ``gfx11``, ``gfx12``."""
    match = _FAMILY.match(mcpu)
    return f"gfx{match.group(1)}" if match else mcpu


def run_families(text: str) -> set[str]:
    """The families of the processors a test file's RUN lines pass to ``-mcpu``."""
    return {mcpu_family(mcpu) for line in text.splitlines() if "RUN:" in line
            for mcpu in _RUN_MCPU.findall(line)}


def _test_files(root: Path, suffix: str) -> list[Path]:
    if not root.is_dir():
        raise FileNotFoundError(f"LLVM MC tests not found: {root} (see --llvm-src)")
    return sorted(path for path in root.iterdir() if path.suffix == suffix and path.is_file())


def disassembler_corpus(llvm_src: Path, family: str | None = None) -> list[DisasmCase]:
    """Every distinct byte sequence of the AMDGPU disassembler tests, in first-seen order;
    with ``family``, only of the files whose RUN lines target that family."""
    cases: dict[bytes, DisasmCase] = {}
    for path in _test_files(llvm_src / DISASSEMBLER_TESTS, ".txt"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if family is not None and family not in run_families(text):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            data = parse_byte_line(line)
            if data and data not in cases:
                cases[data] = DisasmCase(data, f"{path.name}:{number}")
    return list(cases.values())


def assembler_corpus(llvm_src: Path, family: str | None = None) -> list[AsmCase]:
    """Every distinct instruction statement of the AMDGPU assembler tests, first-seen order;
    with ``family``, only of the files whose RUN lines target that family."""
    cases: dict[str, AsmCase] = {}
    for path in _test_files(llvm_src / ASSEMBLER_TESTS, ".s"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if family is not None and family not in run_families(text):
            continue
        for number, statement in statements_of(text.splitlines()):
            if statement not in cases:
                cases[statement] = AsmCase(statement, f"{path.name}:{number}")
    return list(cases.values())
