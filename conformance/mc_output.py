"""Parse what an llvm-mc-compatible tool prints, without knowing which input produced it.

llvm-mc with ``--show-encoding`` prints one line per instruction on stdout::

    <TAB>s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0) ; encoding: [0x00,0x00,0x8c,0xbf]

(the text is padded with spaces so that ``; encoding:`` starts at column 41, or follows a
single space when the text is longer). An instruction with a fixup is followed by indented
``;   fixup A - offset: ...`` comment lines, and the output starts with directives such as
``.text`` and ``.amdgcn_target "..."``. In disassembly mode the encoding is the instruction
*re-encoded* by LLVM's code emitter, not an echo of the input bytes.

Diagnostics go to stderr as ``<stdin>:LINE:COLUMN: warning: invalid instruction encoding``
(disassembler) or ``<stdin>:LINE:COLUMN: error: <message>`` (assembler), each followed by the
offending source line and a caret line. Those line numbers are what lets the harness attribute a
diagnostic to an input; stdout carries no positions (see :mod:`luthier.conformance.batching`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENCODED = re.compile(r"(?P<text>.*?)\s*; encoding: \[(?P<bytes>[^\]]*)\]\s*$")
_DIAGNOSTIC = re.compile(
    r"^<stdin>:(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning|note|remark): "
    r"(?P<message>.*)$"
)


def normalize_whitespace(text: str) -> str:
    """Collapse blank runs to one space: column padding is presentation, not content."""
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class PrintedInstruction:
    """One instruction line of stdout, with the comment lines that annotate it."""

    text: str  # whitespace-normalized assembly text, without the encoding comment
    encoding: tuple[str, ...] | None  # byte tokens as printed ("0x8c", or "A" for a fixup)
    annotations: tuple[str, ...] = ()  # e.g. "fixup A - offset: 0, value: label, ..."

    @property
    def size(self) -> int | None:
        """Instruction size in bytes, as shown by the printed encoding."""
        return None if self.encoding is None else len(self.encoding)

    def render(self) -> str:
        """The instruction as one readable line, for reports."""
        shown = self.text
        if self.encoding is not None:
            shown += f"  [{','.join(self.encoding)}]"
        for note in self.annotations:
            shown += f"  ; {note}"
        return shown


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One ``<stdin>:LINE:COLUMN: severity: message`` line of stderr."""

    line: int
    column: int
    severity: str
    message: str


@dataclass(frozen=True, slots=True)
class StdoutLine:
    """A stdout line that matters for alignment: an instruction, or an annotation of one."""

    instruction: PrintedInstruction | None  # None for an annotation line
    annotation: str = ""


def parse_instruction_line(line: str) -> PrintedInstruction:
    """Split ``text ; encoding: [..]`` into normalized text and byte tokens."""
    match = _ENCODED.fullmatch(line)
    if match is None:
        return PrintedInstruction(normalize_whitespace(line), None)
    tokens = tuple(token.strip() for token in match["bytes"].split(",") if token.strip())
    return PrintedInstruction(normalize_whitespace(match["text"]), tokens)


def classify_stdout_line(line: str) -> StdoutLine | None:
    """Return what a stdout line is, or None for lines that carry no instruction.

    Directives (``.text``, ``.amdgcn_target``) and blank lines are dropped; lines that start
    with ``;`` annotate the preceding instruction (fixups).
    """
    stripped = line.strip()
    if not stripped or stripped.startswith("."):
        return None
    if stripped.startswith(";"):
        return StdoutLine(None, normalize_whitespace(stripped[1:]))
    return StdoutLine(parse_instruction_line(stripped))


def parse_stdout(stdout: str) -> list[PrintedInstruction]:
    """All instructions of a stdout text, each with its annotation lines attached."""
    instructions: list[PrintedInstruction] = []
    for raw in stdout.splitlines():
        item = classify_stdout_line(raw)
        if item is None:
            continue
        if item.instruction is not None:
            instructions.append(item.instruction)
        elif instructions:
            last = instructions[-1]
            instructions[-1] = PrintedInstruction(
                last.text, last.encoding, (*last.annotations, item.annotation)
            )
    return instructions


def parse_diagnostics(stderr: str) -> list[Diagnostic]:
    """Every ``<stdin>:L:C: severity: message`` line of stderr, in order."""
    diagnostics: list[Diagnostic] = []
    for raw in stderr.splitlines():
        match = _DIAGNOSTIC.match(raw)
        if match is not None:
            diagnostics.append(
                Diagnostic(
                    int(match["line"]),
                    int(match["column"]),
                    match["severity"],
                    match["message"].strip(),
                )
            )
    return diagnostics
