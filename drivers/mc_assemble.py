"""Assembly mode of ``luthier-mc`` (text -> encodings), laid out like llvm-mc's output.

Each line is handled on its own: comments and blank lines vanish, labels are echoed,
``.text``/``.amdgcn_target`` are understood, every instruction is parsed, printed back in
canonical syntax and, with ``--show-encoding``, followed by its bytes. A line that cannot
be assembled yields one ``<file>:<line>:<col>: error: <message>`` line and the run goes on,
so one bad statement costs one diagnostic, as with llvm-mc. An unexpected internal failure
on a line is reported the same way rather than ending the run.
"""

from __future__ import annotations

import re
from typing import TextIO

from luthier.amdgpu_dialects.mc.asm_expr import Fixup
from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.mc.asm_text import strip_comment
from luthier.amdgpu_dialects.mc.encoder import EncodeError, encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

_LABEL = re.compile(r"^\s*([A-Za-z_.$][\w.$]*|\d+)\s*:(?!:)")
_HANDLED_DIRECTIVES = frozenset({".text", ".amdgcn_target"})


def encoding_lines(text: str, encoding: bytes, fixups: list[Fixup]) -> list[str]:
    """llvm-mc's ``; encoding: [...]`` line, with ``A`` for bytes a fixup will fill, and one
    ``;   fixup A - ...`` line per fixup."""
    from luthier.drivers.luthier_mc import ENCODING_COLUMN

    tokens = [f"0x{byte:02x}" for byte in encoding]
    notes: list[str] = []
    for number, fixup in enumerate(fixups):
        letter = chr(ord("A") + number)
        for offset in range(fixup.offset, min(len(tokens), fixup.offset + fixup.size)):
            tokens[offset] = letter
        notes.append(" " * ENCODING_COLUMN + f";   fixup {letter} - offset: {fixup.offset}, "
                     f"value: {fixup.expr.text()}, kind: {fixup.kind}")
    pad = " " * max(1, ENCODING_COLUMN - len(text))
    return [f"\t{text}{pad}; encoding: [{','.join(tokens)}]", *notes]


def run_assembler(
    text: str, target: str, show_encoding: bool, out: TextIO, err: TextIO, source_name: str,
    wavefront_size: int | None = None,
) -> int:
    """Assemble ``text`` for ``target`` (in ``wavefront_size``, or the processor's default);
    returns the exit status."""
    parser = parser_for(target, wavefront_size)
    printer = printer_for(target, wavefront_size)
    encoder = encoder_for(target, wavefront_size)
    failed = False
    out.write("\t.text\n")
    out.write(f'\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n')

    def error(line_number: int, column: int, message: str) -> None:
        nonlocal failed
        failed = True
        err.write(f"{source_name}:{line_number}:{column + 1}: error: {message}\n")

    for line_number, raw_line in enumerate(text.splitlines(), start=1):
        line = strip_comment(raw_line).rstrip()
        column = 0
        label = _LABEL.match(line)
        while label is not None:
            out.write(f"{label.group(1)}:\n")
            column = label.end()
            label = None
        statement = line[column:]
        if not statement.strip():
            continue
        word = statement.split(None, 1)[0]
        if word.startswith("."):
            if word not in _HANDLED_DIRECTIVES:
                error(line_number, column + len(statement) - len(statement.lstrip()),
                      f"unsupported directive '{word}'")
            continue
        try:
            matched = parser.parse_statement(statement, column)
            inst = matched.inst
            printed = printer.print(inst)
            for fixup in matched.fixups:
                printed = printed.replace(fixup.placeholder_text, fixup.expr.text(), 1)
            encoding = encoder.encode(inst) if show_encoding else b""
        except AsmParseError as problem:
            error(line_number, problem.column, problem.message)
            continue
        except EncodeError as problem:
            error(line_number, column, f"cannot encode instruction: {problem}")
            continue
        except Exception as problem:  # noqa: BLE001 - one bad line must not end the run
            error(line_number, column, f"internal error: {type(problem).__name__}: {problem}")
            continue
        if show_encoding:
            out.write("\n".join(encoding_lines(printed, encoding, matched.fixups)) + "\n")
        else:
            out.write(f"\t{printed}\n")
    return 1 if failed else 0
