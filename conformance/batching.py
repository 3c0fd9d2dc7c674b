"""Lay out many inputs in one tool run, and give each input its own share of the output.

Why markers: llvm-mc prints decoded instructions on stdout without any position, and a
disassembler input can decode to zero, one or several instructions, so stdout alone cannot be
cut into per-input pieces. stderr has line numbers but is a separate stream whose interleaving
with stdout is lost to buffering. So every input line is followed by a *marker* line, and the
marker after input ``i`` is different for every ``i`` (``s_nop 0x4000+i``)::

    [0x00,0x00,0x8c,0xbf]        <- input 0 (line 1)
    [0x00,0x40,0x80,0xbf]        <- marker 0 (line 2): "s_nop 0x4000"
    [0x01,0x00,0x00,0x7e]        <- input 1 (line 3)
    [0x01,0x40,0x80,0xbf]        <- marker 1 (line 4): "s_nop 0x4001"

What each marker prints is learned from a probe run of the same tool, so a tool is cut along
its own rendering. Distinct markers make a stray marker text detectable: an input that prints
some marker's text shows up as a marker out of sequence (a complete run must show exactly
markers 0..n-1, in order, and nothing after). Input ``i`` sits on line ``2*i + 1``, which is
how a diagnostic on stderr is attributed to it.

Disassembler inputs are wrapped in llvm-mc's ``[...]`` grouping: a group is decoded on its own
(so a truncated instruction cannot swallow the marker) and decoding stops at the first invalid
instruction of the group instead of resynchronizing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from luthier.conformance.mc_output import (
    PrintedInstruction,
    parse_diagnostics,
    parse_stdout,
)


class Mode(StrEnum):
    """What a tool is asked to do with a batch."""

    DISASSEMBLE = "disassemble"
    ASSEMBLE = "assemble"

    @property
    def flags(self) -> tuple[str, ...]:
        """The llvm-mc flags that select this mode (``--triple``/``--mcpu`` come on top)."""
        if self is Mode.DISASSEMBLE:
            return ("--disassemble", "--show-encoding")
        return ("--show-encoding",)


#: Markers are ``s_nop`` (or ``s_movk_i32 s0``) with immediates from here on; a batch can hold
#: at most MAX_BATCH inputs so that all its markers differ.
MARKER_BASE = 0x4000
MAX_BATCH = 0x4000


class MarkerFamily(StrEnum):
    """Instructions with a 16-bit immediate that every target accepts, as marker sources. A
    second family exists for a tool that prints s_nop's immediate differently (say masked to
    the 4 bits the hardware uses), which would make its markers indistinct."""

    S_NOP = "s_nop"
    S_MOVK = "s_movk_i32"

    def line(self, mode: Mode, index: int) -> str:
        """The input line of marker ``index``."""
        immediate = MARKER_BASE + index
        if mode is Mode.ASSEMBLE:
            return (
                f"s_nop 0x{immediate:x}"
                if self is MarkerFamily.S_NOP
                else (f"s_movk_i32 s0, 0x{immediate:x}")
            )
        opcode = (0x80, 0xBF) if self is MarkerFamily.S_NOP else (0x00, 0xB0)
        return disassembler_line(bytes([immediate & 0xFF, immediate >> 8, *opcode]))


def disassembler_line(data: bytes) -> str:
    """The input line for one byte sequence, as an llvm-mc ``[...]`` group."""
    return "[" + ",".join(f"0x{byte:02x}" for byte in data) + "]"


_BYTE_TOKEN = re.compile(r"0[xX][0-9a-fA-F]+|\d+")


def diagnostic_position(mode: Mode, line: str, column: int) -> int | None:
    """Where a diagnostic points inside its input: a byte index (disassembler) or column.

    A disassembler warning points at the first byte of the instruction that failed to decode;
    translating the column into a byte index makes the position independent of how the tool
    under test lays out its input echo. None if the column is on no byte token.
    """
    if mode is Mode.ASSEMBLE:
        return column
    for index, token in enumerate(_BYTE_TOKEN.finditer(line)):
        if token.start() + 1 == column:
            return index
    return None


def group_size(line: str) -> int:
    """How many bytes a disassembler input line holds."""
    return len(_BYTE_TOKEN.findall(line))


@dataclass(frozen=True, slots=True)
class ItemDiagnostic:
    """A diagnostic attributed to one input."""

    severity: str
    message: str
    position: int | None  # see diagnostic_position


@dataclass(frozen=True, slots=True)
class Failure:
    """The tool did not produce a trustworthy answer for an input."""

    kind: str  # "crash", "timeout" or "unusable" (the tool failed the probe)
    detail: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """Everything one tool said about one input."""

    instructions: tuple[PrintedInstruction, ...] = ()
    diagnostics: tuple[ItemDiagnostic, ...] = ()
    failure: Failure | None = None


def batch_input(lines: Sequence[str], markers: Sequence[str]) -> str:
    """The stdin text for a batch: input ``i`` followed by marker ``i``."""
    return "".join(f"{line}\n{marker}\n" for line, marker in zip(lines, markers, strict=False))


@dataclass(frozen=True, slots=True)
class Alignment:
    """Per-input outcomes recovered from one batch run."""

    outcomes: list[Outcome]  # for the leading inputs whose output is known to be complete
    complete: bool  # True if every input of the batch got an outcome and nothing is left over


def _diagnostics_by_line(
    mode: Mode, stderr: str, lines: Sequence[str], *, marked: bool
) -> tuple[dict[int, list[ItemDiagnostic]], list[int]]:
    """Group diagnostics by input index; also return the lines that belong to no input."""
    by_item: dict[int, list[ItemDiagnostic]] = {}
    stray_lines: list[int] = []
    for diagnostic in parse_diagnostics(stderr):
        if marked:
            item, remainder = divmod(diagnostic.line - 1, 2)
            if remainder != 0 or not 0 <= item < len(lines):
                stray_lines.append(diagnostic.line)
                continue
        else:
            item = 0
        position = diagnostic_position(mode, lines[item], diagnostic.column)
        by_item.setdefault(item, []).append(
            ItemDiagnostic(diagnostic.severity, diagnostic.message, position)
        )
    return by_item, stray_lines


def align_single(mode: Mode, line: str, stdout: str, stderr: str) -> Outcome:
    """The outcome of a run whose stdin was a single input (no marker): all output is its."""
    by_item, _ = _diagnostics_by_line(mode, stderr, [line], marked=False)
    return Outcome(tuple(parse_stdout(stdout)), tuple(by_item.get(0, [])))


def align_batch(
    mode: Mode,
    lines: Sequence[str],
    marker_outputs: Sequence[PrintedInstruction],
    stdout: str,
    stderr: str,
) -> Alignment:
    """Cut the output of a marked batch (see :func:`batch_input`) into per-input outcomes.

    ``marker_outputs[i]`` is what the tool prints for marker ``i``. The leading inputs whose
    marker was printed in sequence are returned even when the batch as a whole is not complete:
    after a crash they are the part of the batch that need not be run again. Trust stops at the
    first anomaly: a marker out of sequence, a diagnostic on a marker line, or an input that
    printed nothing and said nothing (which is what an input printing exactly its own marker's
    text would look like).
    """
    count = len(lines)
    markers = marker_outputs[:count]
    known_markers = set(markers)
    segments: list[list[PrintedInstruction]] = [[]]
    anomaly = False
    for instruction in parse_stdout(stdout):
        closed = len(segments) - 1
        if closed < count and instruction == markers[closed]:
            segments.append([])
        elif instruction in known_markers:
            anomaly = True
            break
        else:
            segments[-1].append(instruction)
    markers_seen = len(segments) - 1
    by_item, stray_lines = _diagnostics_by_line(mode, stderr, lines, marked=True)
    trusted = markers_seen
    if stray_lines:
        # A diagnostic on a marker line means an input ran into its marker.
        trusted = min(trusted, (min(stray_lines) - 1) // 2)
    complete = trusted == count and not anomaly and not segments[-1] and not stray_lines
    if not complete:
        silent = [i for i in range(trusted) if not segments[i] and i not in by_item]
        trusted = min([trusted, *silent])
    outcomes = [
        Outcome(tuple(segments[item]), tuple(by_item.get(item, []))) for item in range(trusted)
    ]
    return Alignment(outcomes, complete)
