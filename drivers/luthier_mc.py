"""``luthier-mc``: llvm-mc's interface over luthier's AMDGPU MC layer.

``luthier-mc --disassemble --mcpu=gfx90a [--show-encoding] < bytes.txt`` reads llvm-mc's
disassembler input and prints what ``llvm-mc-19`` prints, so the two can be diffed.
``luthier-mc --mcpu=gfx90a --show-encoding < file.s`` assembles.

Diagnostics are one line each, ``<file>:<line>:<column>: error|warning: <message>``, on
stderr. The exit status is 1 when any input was rejected (llvm-mc returns 0 for some
rejected inputs; a script should not have to read stderr to know), 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TextIO

from luthier.amdgpu_dialects.errors import report_internal_error
from luthier.amdgpu_dialects.isa.target import TABLE_TARGETS, UnknownTargetError, load_target
from luthier.amdgpu_dialects.mc.decoder import DecodeError, Decoder, MCInst, decoder_for
from luthier.amdgpu_dialects.mc.encoder import EncodeError, Encoder, encoder_for
from luthier.amdgpu_dialects.mc.hex_input import ByteChunk, HexInputError, parse_hex_input
from luthier.amdgpu_dialects.mc.printer import InstPrinter, printer_for

ENCODING_COLUMN = 40
SUPPORTED_TRIPLES = ("amdgcn-amd-amdhsa", "amdgcn", "amdgcn--", "amdgcn-amd-", "amdgcn-amd-amdpal",
                     "amdgcn-amd-mesa3d", "amdgcn-unknown-unknown")


class UsageError(Exception):
    """A command-line mistake (exit status 2)."""


def format_with_encoding(text: str, encoding: bytes) -> str:
    """``\\t<text>`` padded to llvm-mc's comment column, then ``; encoding: [...]``."""
    pad = " " * max(1, ENCODING_COLUMN - len(text))
    return f"\t{text}{pad}; encoding: [{','.join(f'0x{b:02x}' for b in encoding)}]"


class Disassembly:
    """Disassembles llvm-mc input text, writing instructions and diagnostics."""

    def __init__(self, target: str, show_encoding: bool, out: TextIO, err: TextIO,
                 source_name: str, wavefront_size: int | None = None) -> None:
        self.decoder: Decoder = decoder_for(target, wavefront_size)
        self.printer: InstPrinter = printer_for(target, wavefront_size)
        self.encoder: Encoder = encoder_for(target, wavefront_size)
        self.show_encoding = show_encoding
        self.out = out
        self.err = err
        self.source_name = source_name
        self.failed = False

    def run(self, text: str) -> None:
        try:
            chunks = parse_hex_input(text)
        except HexInputError as error:
            self.diagnostic(error.line, error.column, "error", str(error))
            return
        self.out.write("\t.text\n")
        for chunk in chunks:
            self._chunk(chunk)

    def _chunk(self, chunk: ByteChunk) -> None:
        data = bytes(chunk.data)
        offset = 0
        while offset < len(data):
            try:
                inst = self.decoder.decode(data, offset)
            except DecodeError:
                line, column = chunk.positions[offset]
                self.diagnostic(line, column, "warning", "invalid instruction encoding")
                if chunk.grouped:
                    return
                offset += min(4, len(data) - offset)
                continue
            self.emit(inst, data[offset : offset + inst.size])
            offset += inst.size

    def emit(self, inst: MCInst, encoding: bytes) -> None:
        text = self.printer.print(inst)
        if self.show_encoding:
            # llvm-mc shows its canonical re-encoding of what it decoded, not the input:
            # undefined bits that were set in the input are written canonically.
            with contextlib.suppress(EncodeError):
                encoding = self.encoder.encode(replace(inst, unmodelled=0))
            self.out.write(format_with_encoding(text, encoding) + "\n")
        else:
            self.out.write(f"\t{text}\n")

    def diagnostic(self, line: int, column: int, severity: str, message: str) -> None:
        self.failed = True
        self.err.write(f"{self.source_name}:{line}:{column}: {severity}: {message}\n")


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="luthier-mc",
        description="Assemble and disassemble AMDGPU code with llvm-mc's interface.",
    )
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    parser.add_argument("--disassemble", "-disassemble", action="store_true",
                        help="disassemble strings of hex bytes")
    parser.add_argument("--show-encoding", "-show-encoding", action="store_true",
                        help="show instruction encodings")
    parser.add_argument("--mcpu", "-mcpu", default=None, metavar="CPU",
                        help=f"target processor ({', '.join(TABLE_TARGETS)})")
    parser.add_argument("--mattr", "-mattr", default="", metavar="FEATURES",
                        help="target features, as llvm-mc takes them: +wavefrontsize64 "
                             "(or +wavefrontsize32) chooses the wave size")
    parser.add_argument("--triple", "-triple", default="amdgcn-amd-amdhsa", metavar="TRIPLE")
    parser.add_argument("--arch", "-arch", default="amdgcn", metavar="ARCH")
    parser.add_argument("-o", dest="output", default="-", metavar="FILE",
                        help="output file ('-' for stdout)")
    return parser


#: The -mattr features luthier-mc knows, and the wave size each one asks for.
_WAVE_FEATURES = {"+wavefrontsize64": 64, "+wavefrontsize32": 32}


def _wavefront_size(features: str) -> int | None:
    """The wave size ``-mattr`` asks for (None: the processor's default); UsageError for a
    feature luthier-mc does not know."""
    size: int | None = None
    for feature in filter(None, (part.strip() for part in features.split(","))):
        if feature in _WAVE_FEATURES:
            size = _WAVE_FEATURES[feature]
        elif feature not in ("-wavefrontsize64", "-wavefrontsize32"):
            raise UsageError(f"unsupported feature '{feature}' (luthier-mc knows "
                             f"{', '.join(_WAVE_FEATURES)})")
    return size


def _check_target(args: argparse.Namespace) -> str:
    if args.arch != "amdgcn":
        raise UsageError(f"unsupported architecture '{args.arch}' (only amdgcn)")
    if not str(args.triple).startswith("amdgcn"):
        raise UsageError(f"unsupported triple '{args.triple}' (only amdgcn triples)")
    if args.mcpu is None:
        raise UsageError("--mcpu is required (one of " + ", ".join(TABLE_TARGETS) + ")")
    return str(args.mcpu)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`luthier-mc ... | head`): stop quietly, like llvm-mc.
        _silence_stdout()
        return 0
    except OSError as error:
        sys.stderr.write(f"luthier-mc: error: cannot write output: {error.strerror}\n")
        _silence_stdout()
        return 1
    except Exception as error:  # a bug of ours: one line naming the input, not a traceback
        return report_internal_error("luthier-mc", argv, error)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _main(argv: Sequence[str] | None) -> int:
    args = _argument_parser().parse_args(argv)
    try:
        target = _check_target(args)
        wavefront_size = _wavefront_size(str(args.mattr))
        load_target(target, wavefront_size)
    except (UsageError, UnknownTargetError) as error:
        sys.stderr.write(f"luthier-mc: error: {error}\n")
        return 2
    source_name = "<stdin>" if args.input == "-" else str(args.input)
    try:
        if args.input == "-":
            text = sys.stdin.read()
        else:
            with open(args.input, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
    except OSError as error:
        sys.stderr.write(f"luthier-mc: error: {args.input}: {error.strerror}\n")
        return 1
    # With -o, output is kept in memory and written only if everything succeeded, so a
    # rejected input never leaves a partial file behind.
    buffer = io.StringIO()
    out: TextIO = sys.stdout if args.output == "-" else buffer
    if args.disassemble:
        job = Disassembly(target, args.show_encoding, out, sys.stderr, source_name,
                          wavefront_size)
        job.run(text)
        status = 1 if job.failed else 0
    else:
        from luthier.drivers.mc_assemble import run_assembler

        status = run_assembler(text, target, args.show_encoding, out, sys.stderr, source_name,
                               wavefront_size)
    if args.output != "-" and status == 0:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(buffer.getvalue())
        except OSError as error:
            sys.stderr.write(f"luthier-mc: error: {args.output}: {error.strerror}\n")
            return 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
