"""``luthier-run``: run a kernel of a code object in the emulator from the command line.

    luthier-run in.co --kernel vector_add --grid 4 --block 256 \\
        --arg a=rand:1024xf32 --arg b=in.npy --arg c=zeros:1024xf32 --arg 1000 \\
        --out c=c.npy --print c

The input is a code object or IR text (``.mlir``: what ``luthier-opt`` and the
instrumentation passes write). Arguments are given in the kernel's order, one ``--arg``
each, optionally labelled ``LABEL=``. A value is a scalar (``1024``, ``-3``, ``0x10``,
``2.5``, ``inf``: its size comes from the kernel's metadata) or a buffer: ``FILE.npy``
(or ``@FILE``), ``zeros:SHAPExTYPE``, ``iota:SHAPExTYPE`` (0, 1, 2...), ``fill:VALUE:SHAPExTYPE``,
``rand:SHAPExTYPE`` (seeded, ``--seed``); SHAPE is ``N`` or ``NxM...``, TYPE one of f16 f32
f64 i8 i16 i32 i64 u8 u16 u32 u64. Unlabelled arguments are ``arg0``, ``arg1``...
``--out LABEL=FILE.npy`` writes a buffer back, ``--print LABEL`` prints it.

A tool's results live in its globals (``instr.global``, exported as symbols of the
instrumented code object): ``--global NAME`` prints one after the run, as u64 values when
its size is a multiple of 8 (counters), else the widest unsigned type that divides it;
``--global NAME:TYPE`` or ``NAME:TYPE[N]`` reads it as TYPE (the first N values), and
``NAME:opcodes`` as a per-opcode table of u64 counts (``#instr.site<"opcode">`` indexes it),
printed by mnemonic, most counted first. ``--plot FILE`` draws the same as a figure.
``--json`` prints everything the run reports as one JSON object instead of text. Bad input
is reported on one line (``luthier-run: error: ...``) with exit status 1.

A wave stops after ``--max-instructions`` and the launch after ``--max-launch-instructions``
(all waves together), each with one line saying where. A launch that runs for more than
half a second shows its workgroups done / total on stderr while it runs, on a terminal
only (``--progress``: also off a terminal, from the start, and left in place at the end;
``--no-progress``: never).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO, cast

import numpy as np
import numpy.typing as npt

from luthier.amdgpu_dialects.errors import LuthierError, report_internal_error
from luthier.emulator.api import (
    MAX_INSTRUCTIONS,
    MAX_LAUNCH_INSTRUCTIONS,
    KernelArgument,
    RunResult,
    load_program,
    run_kernel,
)
from luthier.lowering.figure import check_path
from luthier.lowering.output import write_atomically
from luthier.lowering.progress import Reporter, Stage, reporting

PROG = "luthier-run"

DTYPES: dict[str, type[np.generic]] = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
    "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
    "u64": np.uint64,
}
_LABEL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
_SHAPED = re.compile(r"((?:\d+x)*\d+)x(" + "|".join(DTYPES) + r")")
_INTEGER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)")
_LEADING_ZERO = re.compile(r"[-+]?0\d+")
_GLOBAL = re.compile(r"([^:\s]+)(?::(?:(opcodes)|(" + "|".join(DTYPES) + r")(?:\[(\d+)\])?))?")


class UsageError(Exception):
    """Bad command-line input (reported on one line)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Run a kernel of an AMDGPU code object in the "
                     "luthier emulator.")
    parser.add_argument("code_object",
                        help="the code object (.co/.hsaco/.o), an offload bundle or host "
                             "binary holding one, or amdgpu_mc IR text (.mlir)")
    parser.add_argument("--kernel", required=True, help="the kernel to run")
    parser.add_argument("--offload-arch", metavar="ARCH",
                        help="the bundle entry to run (gfx90a, gfx942:xnack-, ...) of a "
                             "bundle or host binary")
    parser.add_argument("--grid", required=True, help="workgroups: X[,Y[,Z]] (HIP's gridDim)")
    parser.add_argument("--block", required=True,
                        help="work-items per workgroup: X[,Y[,Z]] (HIP's blockDim)")
    parser.add_argument("--arg", action="append", default=[], metavar="[LABEL=]VALUE",
                        help="a kernel argument, in order (see the module help)")
    parser.add_argument("--out", action="append", default=[], metavar="LABEL=FILE.npy",
                        help="write a buffer argument to a .npy file after the run")
    parser.add_argument("--print", action="append", default=[], metavar="LABEL",
                        dest="print_labels", help="print a buffer argument after the run")
    parser.add_argument("--dynamic-lds", type=int, default=0, metavar="BYTES",
                        help="dynamic LDS (extern __shared__) bytes per workgroup")
    parser.add_argument("--scratch", type=int, default=None, metavar="BYTES",
                        help="scratch bytes per lane (default: the kernel's private "
                        "segment size, 16 KiB with a dynamic stack)")
    parser.add_argument("--max-instructions", type=int, default=MAX_INSTRUCTIONS,
                        metavar="N", help="stop a wave after N instructions")
    parser.add_argument("--max-launch-instructions", type=int,
                        default=MAX_LAUNCH_INSTRUCTIONS, metavar="N",
                        help="stop the launch after N instructions of all its waves "
                        f"(default {MAX_LAUNCH_INSTRUCTIONS})")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="show the workgroups done on stderr even off a terminal")
    shown.add_argument("--no-progress", action="store_true",
                       help="no progress line on stderr, not even on a terminal")
    parser.add_argument("--seed", type=int, default=0, help="seed of rand: buffers")
    parser.add_argument("--counts", action="store_true",
                        help="print each wave's executed-instruction count")
    parser.add_argument("--global", action="append", default=[], metavar="NAME[:TYPE[N]]",
                        dest="globals",
                        help="print a global of the code object after the run (a tool's "
                        "counters): as TYPE, the first N values (default: u64 when its size "
                        "allows); NAME:opcodes reads a per-opcode table by mnemonic")
    parser.add_argument("--json", action="store_true",
                        help="print what the run reports as one JSON object")
    parser.add_argument("--plot", metavar="FILE",
                        help="draw the instructions per wave and the --global values into "
                        "FILE (.png, .svg or .pdf; needs matplotlib: the [plot] extra)")
    return parser


def parse_dim3(text: str, what: str) -> tuple[int, ...]:
    parts = text.split(",")
    if not 1 <= len(parts) <= 3 or not all(part.strip().isdigit() for part in parts):
        raise UsageError(f"--{what} takes X[,Y[,Z]] positive integers, not '{text}'")
    values = tuple(int(part) for part in parts)
    if min(values) <= 0:
        raise UsageError(f"--{what} sizes must be positive, not '{text}'")
    return values


#: The largest buffer a pattern (``zeros:``, ``rand:``...) makes: 1 GiB.
MAX_BUFFER_BYTES = 1 << 30


def _shaped(spec: str, text: str) -> tuple[tuple[int, ...], type[np.generic]]:
    match = _SHAPED.fullmatch(spec)
    if match is None:
        raise UsageError(f"bad buffer shape '{spec}' in '{text}' (expected SHAPExTYPE, such "
                         "as 1024xf32)")
    shape = tuple(int(n) for n in match.group(1).split("x"))
    dtype = DTYPES[match.group(2)]
    size = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    if size > MAX_BUFFER_BYTES:
        raise UsageError(f"buffer '{text}' is {size} bytes, more than the {MAX_BUFFER_BYTES} "
                         "a pattern makes (give a .npy file for more)")
    return shape, dtype


def _integer(text: str, where: str) -> int:
    """An integer written in decimal, hex (``0x``) or binary (``0b``). A decimal with a
    leading zero is refused rather than guessed: C reads ``010`` as octal, Python refuses it,
    and either guess would pass the kernel a value the user did not mean."""
    if _LEADING_ZERO.fullmatch(text):
        part = "" if text == where else f" ('{text}')"
        raise UsageError(f"--arg {where}{part}: a number with a leading 0 is ambiguous "
                         "(octal in C); write it without the 0, or in hex (0x...)")
    return int(text, 0)


def parse_value(text: str, rng: np.random.Generator) -> KernelArgument:
    """One ``--arg`` value (without its label)."""
    if _INTEGER.fullmatch(text):
        return _integer(text, text)
    try:
        return float(text)
    except ValueError:
        pass
    kind, _, rest = text.partition(":")
    if kind in ("zeros", "iota", "rand") and rest:
        shape, dtype = _shaped(rest, text)
        count = int(np.prod(shape))
        if kind == "zeros":
            return np.zeros(shape, dtype)
        if kind == "iota":
            return np.arange(count).astype(dtype).reshape(shape)
        if np.issubdtype(dtype, np.floating):
            return rng.standard_normal(count).astype(dtype).reshape(shape)
        info = np.iinfo(dtype)  # type: ignore[arg-type]
        return rng.integers(info.min, int(info.max) + 1, count, dtype=dtype).reshape(shape)
    if kind == "fill" and rest:
        value_text, _, spec = rest.rpartition(":")
        shape, dtype = _shaped(spec, text)
        try:
            value = _integer(value_text, text) if _INTEGER.fullmatch(value_text) \
                else float(value_text)
        except ValueError:
            raise UsageError(f"bad fill value '{value_text}' in '{text}'") from None
        return np.full(shape, value, dtype)
    path = Path(text[1:] if text.startswith("@") else text)
    if text.startswith("@") or path.suffix == ".npy":
        try:
            loaded = np.load(path, allow_pickle=False)
        except OSError as error:
            raise UsageError(f"cannot load {path}: {error.strerror or error}") from None
        except Exception as error:  # numpy's reader raises many kinds for a bad file
            reason = str(error).strip().splitlines()
            raise UsageError(f"cannot load {path}: not a .npy array "
                             f"({reason[0] if reason else type(error).__name__})") from None
        if not isinstance(loaded, np.ndarray):
            raise UsageError(f"cannot load {path}: not a .npy array")
        return cast(npt.NDArray[Any], loaded)
    raise UsageError(f"'{text}' is neither a number, a .npy file nor a buffer pattern "
                     "(zeros:, iota:, fill:, rand:)")


def parse_args(texts: list[str], seed: int) -> tuple[list[str], list[KernelArgument]]:
    rng = np.random.default_rng(seed)
    labels: list[str] = []
    values: list[KernelArgument] = []
    for position, text in enumerate(texts):
        match = _LABEL.fullmatch(text)
        label, value_text = (match.group(1), match.group(2)) if match else (f"arg{position}",
                                                                            text)
        if label in labels:
            raise UsageError(f"argument label '{label}' given twice")
        labels.append(label)
        values.append(parse_value(value_text, rng))
    return labels, values


def _buffer(labels: list[str], buffers: list[npt.NDArray[Any] | None], label: str,
            globals_: dict[str, bytes]) -> npt.NDArray[Any]:
    if label not in labels:
        hint = f"; '{label}' is a global: read it with --global {label}" \
            if label in globals_ else ""
        raise UsageError(f"no argument labelled '{label}' (labels: "
                         f"{', '.join(labels) or 'none'}){hint}")
    buffer = buffers[labels.index(label)]
    if buffer is None:
        raise UsageError(f"argument '{label}' is a scalar, not a buffer")
    return buffer


@dataclass(frozen=True)
class GlobalRequest:
    """One ``--global``: which global, read as what, how many values; or read as a
    per-opcode table (``NAME:opcodes``)."""

    name: str
    dtype: type[np.generic] | None
    count: int | None
    opcodes: bool = False

    @staticmethod
    def parse(text: str) -> GlobalRequest:
        match = _GLOBAL.fullmatch(text)
        if match is None:
            raise UsageError(f"--global takes NAME, NAME:TYPE, NAME:TYPE[N] (TYPE one of "
                             f"{' '.join(DTYPES)}) or NAME:opcodes, not '{text}'")
        dtype = DTYPES[match.group(3)] if match.group(3) else None
        count = int(match.group(4)) if match.group(4) else None
        return GlobalRequest(match.group(1), dtype, count, match.group(2) is not None)

    def read(self, result: RunResult) -> npt.NDArray[Any] | dict[str, int]:
        """The global's values after the run (by mnemonic for a per-opcode table)."""
        if self.opcodes:
            return result.opcode_counts(self.name)
        return result.global_values(self.name, self.dtype, self.count)

    def shown(self, values: npt.NDArray[Any]) -> npt.NDArray[Any] | np.generic:
        """What is printed: a global of one value (a counter) as that value, unless a
        count was asked for."""
        return cast(np.generic, values[0]) if self.count is None and values.shape == (1,) \
            else values


def _text(request: GlobalRequest, value: npt.NDArray[Any] | dict[str, int]) -> list[str]:
    """The lines that print one global."""
    if isinstance(value, dict):
        width = max((len(name) for name in value), default=0)
        return [f"{request.name}:"] + [f"  {name:<{width}}  {count}"
                                       for name, count in value.items()]
    return [f"{request.name} = {request.shown(value)}"]


def _plot(path: str, kernel: str, result: RunResult,
          read: list[tuple[GlobalRequest, npt.NDArray[Any] | dict[str, int]]]) -> None:
    from luthier.emulator.plot import array_panel, opcode_panel, scalar_panel, wave_panel
    from luthier.lowering.figure import write_figure

    panels = [wave_panel(kernel, result.wave_instructions)]
    scalars: dict[str, float] = {}
    for request, value in read:
        if isinstance(value, dict):
            panels.append(opcode_panel(request.name, value))
        elif value.size == 1:
            scalars[request.name] = float(value[0])
        else:
            panels.append(array_panel(request.name, value))
    if scalars:
        panels.append(scalar_panel(scalars))
    write_figure(path, panels)


def _json_values(array: npt.NDArray[Any] | np.generic) -> object:
    """An array as JSON values: nested lists of numbers, non-finite floats as strings
    (``"nan"``, ``"inf"``, ``"-inf"``), which strict JSON cannot hold as numbers."""
    def plain(value: object) -> object:
        if isinstance(value, list):
            return [plain(item) for item in cast(list[object], value)]
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        return value

    return plain(array.tolist())


#: Seconds a launch runs before its progress line appears on a terminal, so that short
#: runs stay quiet (as luthier-opt's bars do).
PROGRESS_DELAY_SECONDS = 0.5
#: Seconds between redraws of the progress line: a few times a second on a terminal; once a
#: second off a terminal (``--progress``), where every redraw stays in the log.
REDRAW_SECONDS = 0.25
LOGGED_REDRAW_SECONDS = 1.0


class _Line:
    """One stage (the launch's workgroups) as a tqdm line."""

    def __init__(self, line: Any) -> None:
        self.line = line

    def advance(self, n: int = 1) -> None:
        self.line.update(n)

    def close(self) -> None:
        self.line.close()


class ProgressLine:
    """The reporter of ``luthier-run``: the dispatch announces its workgroups as a stage of
    :mod:`luthier.lowering.progress` and this shows it as one tqdm line on ``stream``. On a
    terminal the line appears after :data:`PROGRESS_DELAY_SECONDS` and vanishes when the
    launch ends, so the summary (or an error) is the only thing left; ``always`` (off a
    terminal: a log) shows it from the start and leaves its last state in place."""

    def __init__(self, stream: TextIO, always: bool) -> None:
        self.stream = stream
        self.always = always

    def stage(self, name: str, total: int, unit: str) -> Stage:
        from tqdm import tqdm

        return _Line(tqdm(total=total, desc=name, unit=unit, file=self.stream,
                          leave=self.always, delay=0 if self.always else PROGRESS_DELAY_SECONDS,
                          mininterval=REDRAW_SECONDS if self.stream.isatty()
                          else LOGGED_REDRAW_SECONDS, dynamic_ncols=True))


def progress_reporter(options: argparse.Namespace, stream: TextIO) -> Reporter | None:
    """Whom the launch's progress goes to: ``stream`` on a terminal unless
    ``--no-progress``, anywhere with ``--progress``; else nobody."""
    if options.no_progress or not (options.progress or stream.isatty()):
        return None
    return ProgressLine(stream, options.progress)


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    grid = parse_dim3(options.grid, "grid")
    block = parse_dim3(options.block, "block")
    if options.seed < 0:
        raise UsageError(f"--seed {options.seed}: give a number from 0")
    labels, values = parse_args(options.arg, options.seed)
    outputs: list[tuple[str, Path]] = []
    for text in options.out:
        label, sep, path = text.partition("=")
        if not sep or not path:
            raise UsageError(f"--out takes LABEL=FILE.npy, not '{text}'")
        outputs.append((label, Path(path)))
    requests = [GlobalRequest.parse(text) for text in options.globals]
    if options.plot is not None:
        check_path(options.plot)
    # Compiled before the progress line is installed: it shows the launch, not the lift.
    program = load_program(options.code_object, offload_arch=options.offload_arch,
                           kernel=options.kernel)
    with reporting(progress_reporter(options, sys.stderr)):
        result = run_kernel(program, options.kernel, grid, block, values,
                            dynamic_lds=options.dynamic_lds, scratch_per_lane=options.scratch,
                            max_instructions=options.max_instructions,
                            max_launch_instructions=options.max_launch_instructions)
    printed = {label: _buffer(labels, result.buffers, label, result.globals)
               for label in options.print_labels}
    read = [(request, request.read(result)) for request in requests]
    for label, path in outputs:
        array = _buffer(labels, result.buffers, label, result.globals)
        data = io.BytesIO()
        np.save(data, array)  # to the path as given: np.save would add ".npy" to it
        try:
            write_atomically(path, data.getvalue())
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    if options.plot is not None:
        _plot(options.plot, options.kernel, result, read)
    counts = result.wave_instructions
    if options.json:
        report = {"kernel": options.kernel, "grid": list(grid), "block": list(block),
                  "waves": result.waves, "wave_size": result.wave_size,
                  "instructions": result.instructions, "wave_instructions": counts,
                  "buffers": {label: _json_values(array) for label, array in printed.items()},
                  "globals": {request.name: value if isinstance(value, dict)
                              else _json_values(request.shown(value))
                              for request, value in read}}
        print(json.dumps(report))
        return 0
    print(f"{options.kernel}: {result.waves} waves of {result.wave_size} lanes, "
          f"{result.instructions} instructions (per wave {min(counts)}..{max(counts)})")
    if options.counts:
        for index, count in enumerate(counts):
            print(f"wave {index}: {count}")
    with np.printoptions(threshold=sys.maxsize, linewidth=100):
        for label, array in printed.items():
            print(f"{label} = {array}")
        for request, value in read:
            print("\n".join(_text(request, value)))
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except (UsageError, LuthierError) as error:
        message = " ".join(str(error).split())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 1
    except Exception as error:  # a bug of ours: one line naming the input, not a traceback
        return report_internal_error(PROG, argv, error)


if __name__ == "__main__":
    sys.exit(main())
