#!/usr/bin/env python3
"""Decode/print speed of luthier's MC layer against llvm-objdump-19, on real code objects.

For each code object (by default the committed corpus ``test/corpus/bench/kernels.<target>.co``,
about ten thousand instructions per target) this times, best of ``--runs``:

* luthier decode only: ``Decoder.decode`` over every function symbol's bytes;
* luthier decode + print: the same plus ``InstPrinter.print`` on every instruction;
* ``llvm-objdump-19 -d --mcpu=<target>``, as a subprocess writing to /dev/null.

It reports instructions per second and the ratio luthier / llvm-objdump for decode + print,
and profiles one decode + print run with cProfile to show where the time goes.

Why functions and not the whole section: ``.text`` holds inter-function padding (``s_nop``
runs, sometimes zeros) that is not code anyone lifts; decoding exactly the bytes each
``STT_FUNC`` symbol covers is what the lifter does and keeps the instruction count honest.
llvm-objdump does disassemble the padding, so its rate is computed with its own count.

llvm-objdump's wall time includes its process start (loading LLVM's shared library and the
AMDGPU target), a large share on a ten-thousand-instruction object, while a lifter decodes in
a process that is already running. So the benchmark also runs llvm-objdump once on the same
file named ``--objdump-repeat`` times (it disassembles each copy; start-up is paid once) and
reports its marginal rate, copies beyond the first divided by the extra time; the ratio is
given against both rates. This is a measurement script, not a test: it exits 0
whatever the figures (timings on a shared machine are too noisy to assert on).

    python bench/bench_decode.py                      # the corpus, 5 runs each
    python bench/bench_decode.py --runs 3 --json out.json
    python bench/bench_decode.py --input gfx90a=examples/sample/vector_add.gfx90a.co --runs 1
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import pstats
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from elftools.elf.elffile import ELFFile  # pyright: ignore[reportMissingTypeStubs]

from luthier.amdgpu_dialects.mc.decoder import Decoder, MCInst, decoder_for
from luthier.amdgpu_dialects.mc.printer import InstPrinter, printer_for
from luthier.frontend.codeobj.elf_format import SHF_EXECINSTR

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "test" / "corpus" / "bench"
DEFAULT_TARGETS = ("gfx90a", "gfx942")
OBJDUMP = "llvm-objdump-19"

#: An instruction line of ``llvm-objdump -d``: text, then ``// <address>: <words>``.
OBJDUMP_INSTRUCTION = re.compile(r"^\s+\S.*?//\s*[0-9A-Fa-f]+:(?:\s+[0-9A-Fa-f]{8})+")

#: The folders whose code the benchmark measures.
MC_LAYER = ("frontend/mc", "lowering/mc", "amdgpu_dialects/isa")


@dataclass(frozen=True)
class Function:
    """The bytes of one function symbol and the address they are loaded at."""

    name: str
    address: int
    data: bytes


def read_functions(path: Path) -> list[Function]:
    """Every sized ``STT_FUNC`` symbol of the executable sections, ordered by address."""
    functions: list[Function] = []
    with path.open("rb") as stream:
        elf = cast(Any, ELFFile(stream))
        code: dict[int, tuple[int, bytes]] = {}
        for index in range(int(elf.num_sections())):
            section = elf.get_section(index)
            if int(section["sh_flags"]) & SHF_EXECINSTR:
                code[index] = (int(section["sh_addr"]), bytes(section.data()))
        symtab = elf.get_section_by_name(".symtab")
        if symtab is None:
            raise ValueError(f"{path} has no .symtab section")
        for symbol in symtab.iter_symbols():
            shndx, size = symbol["st_shndx"], int(symbol["st_size"])
            if symbol["st_info"]["type"] != "STT_FUNC" or shndx not in code or size <= 0:
                continue
            base, data = code[shndx]
            start = int(symbol["st_value"]) - base
            functions.append(
                Function(str(symbol.name), int(symbol["st_value"]), data[start : start + size])
            )
    return sorted(functions, key=lambda function: function.address)


def decode_functions(decoder: Decoder, functions: list[Function]) -> list[MCInst]:
    """Decode every function; the loop the lifter runs, with nothing else in it."""
    decode = decoder.decode
    out: list[MCInst] = []
    append = out.append
    for function in functions:
        data, address = function.data, function.address
        offset, end = 0, len(data)
        while offset < end:
            inst = decode(data, offset, address + offset)
            append(inst)
            offset += inst.size
    return out


def decode_and_print(decoder: Decoder, printer: InstPrinter, functions: list[Function]) -> int:
    """Decode and print every function; returns the total text length (keeps it live)."""
    decode, print_inst = decoder.decode, printer.print
    chars = 0
    for function in functions:
        data, address = function.data, function.address
        offset, end = 0, len(data)
        while offset < end:
            inst = decode(data, offset, address + offset)
            chars += len(print_inst(inst))
            offset += inst.size
    return chars


@dataclass(frozen=True)
class Timing:
    """Best wall time and best CPU time (seconds) over several runs.

    Wall time is what a user waits; CPU time (this process's, or the child's for
    llvm-objdump) is what the work costs, and is far less disturbed when other jobs share
    the machine's two cores, so both are kept.
    """

    wall: float
    cpu: float


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def print_all(printer: InstPrinter, instructions: list[MCInst]) -> int:
    """Print already-decoded instructions: the printer's share of decode + print."""
    print_inst = printer.print
    return sum(len(print_inst(inst)) for inst in instructions)


def best_of(
    runs: int,
    action: Callable[[], object],
    child: bool = False,
    setup: Callable[[], object] | None = None,
) -> Timing:
    """The smallest times of ``runs`` calls: the least disturbed by other processes.

    ``child`` measures the CPU time of the subprocesses ``action`` waits for instead of
    this process's own. ``setup`` runs untimed before each call.
    """
    cpu_clock = _children_cpu if child else time.process_time
    wall = cpu = float("inf")
    for _ in range(runs):
        if setup is not None:
            setup()
        gc.collect()
        start_wall, start_cpu = time.perf_counter(), cpu_clock()
        action()
        cpu = min(cpu, cpu_clock() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
    return Timing(wall, cpu)


def objdump_command(objdump: str, mcpu: str, path: Path, copies: int = 1) -> list[str]:
    return [objdump, "-d", f"--mcpu={mcpu}", *[str(path)] * copies]


def count_objdump_instructions(objdump: str, mcpu: str, path: Path) -> int:
    output = subprocess.run(
        objdump_command(objdump, mcpu, path), check=True, capture_output=True, text=True
    ).stdout
    return sum(1 for line in output.splitlines() if OBJDUMP_INSTRUCTION.match(line))


def time_objdump(objdump: str, mcpu: str, path: Path, runs: int, copies: int = 1) -> Timing:
    command = objdump_command(objdump, mcpu, path, copies)

    def run() -> None:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    return best_of(runs, run, child=True)


@dataclass
class ProfileRow:
    """One function of the profile: calls, own time and cumulative time (seconds)."""

    function: str
    calls: int
    own: float
    cumulative: float


@dataclass
class Figures:
    """The times and rates of one code object by one clock (``wall`` or ``cpu``)."""

    clock: str
    decode_seconds: float
    decode_print_seconds: float
    #: Printing the decoded instructions alone.
    print_seconds: float
    decode_rate: float
    decode_print_rate: float
    print_rate: float
    objdump_seconds: float | None = None
    #: One run over ``TargetResult.objdump_copies`` copies of the file.
    objdump_copies_seconds: float | None = None
    objdump_rate: float | None = None
    #: llvm-objdump's rate without its start-up: extra copies over extra time.
    objdump_marginal_rate: float | None = None
    #: luthier decode+print rate / llvm-objdump rate (and / marginal rate).
    ratio: float | None = None
    ratio_marginal: float | None = None

    def add_objdump(self, count: int, copies: int, one: float, many: float | None) -> None:
        self.objdump_seconds = one
        self.objdump_rate = count / one
        self.ratio = self.decode_print_rate / self.objdump_rate
        self.objdump_copies_seconds = many
        if many is not None and many > one:
            self.objdump_marginal_rate = count * (copies - 1) / (many - one)
            self.ratio_marginal = self.decode_print_rate / self.objdump_marginal_rate


@dataclass
class TargetResult:
    """The figures of one code object."""

    target: str
    code_object: str
    functions: int
    instructions: int
    bytes: int
    wall: Figures
    cpu: Figures
    objdump_instructions: int | None = None
    objdump_copies: int = 0
    profile_total_seconds: float = 0.0
    profile_by_own: list[ProfileRow] = field(default_factory=lambda: [])
    profile_by_cumulative: list[ProfileRow] = field(default_factory=lambda: [])


def _label(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    if filename == "~":
        return name
    path = Path(filename)
    try:
        path = path.resolve().relative_to(ROOT)
    except ValueError:
        path = Path(path.name)
    return f"{path}:{line}({name})"


def profile(
    decoder: Decoder, printer: InstPrinter, functions: list[Function], top: int
) -> tuple[float, list[ProfileRow], list[ProfileRow]]:
    """cProfile one decode + print run; the top functions by own and by cumulative time.

    cProfile's overhead per call inflates small functions, so read the shares, not the
    absolute figures.
    """
    decoder.clear_memo()
    printer.clear_memo()
    profiler = cProfile.Profile()
    profiler.enable()
    decode_and_print(decoder, printer, functions)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    # ``Stats.stats`` (function -> call counts and times) is public but not in typeshed.
    raw = cast(dict[tuple[str, int, str], tuple[int, int, float, float, Any]],
               vars(stats)["stats"])
    rows = [
        ProfileRow(_label(key), calls, own, cumulative)
        for key, (_, calls, own, cumulative, _) in raw.items()
    ]
    total = sum(row.own for row in rows)
    interesting = [row for row in rows if "disable" not in row.function]
    by_own = sorted(interesting, key=lambda row: row.own, reverse=True)[:top]
    by_cumulative = sorted(interesting, key=lambda row: row.cumulative, reverse=True)[:top]
    return total, by_own, by_cumulative


def bench_target(
    target: str, path: Path, runs: int, objdump: str | None, copies: int, top: int
) -> TargetResult:
    functions = read_functions(path)
    decoder, printer = decoder_for(target), printer_for(target)
    # One untimed pass fills the per-instruction caches (decode plans, fixups, print
    # programs), which a long-running lifter pays once.
    instructions = decode_functions(decoder, functions)
    decode_and_print(decoder, printer, functions)

    def cold() -> None:
        # The decoder and printer memoise by instruction bytes and operands; every timed
        # run starts with empty memos, so repeats across runs do not flatter the figures
        # (repeats within one code object do count: that is real code).
        decoder.clear_memo()
        printer.clear_memo()

    decode = best_of(runs, lambda: decode_functions(decoder, functions), setup=cold)
    decode_print = best_of(runs, lambda: decode_and_print(decoder, printer, functions),
                           setup=cold)
    printing = best_of(runs, lambda: print_all(printer, instructions), setup=cold)
    count = len(instructions)
    wall, cpu = (
        Figures(clock, d, dp, pr, count / d, count / dp, count / pr)
        for clock, d, dp, pr in (("wall", decode.wall, decode_print.wall, printing.wall),
                                 ("cpu", decode.cpu, decode_print.cpu, printing.cpu))
    )
    result = TargetResult(
        target=target,
        code_object=str(path),
        functions=len(functions),
        instructions=count,
        bytes=sum(len(function.data) for function in functions),
        wall=wall,
        cpu=cpu,
    )
    if objdump is not None:
        objdump_count = count_objdump_instructions(objdump, target, path)
        one = time_objdump(objdump, target, path, runs)
        many = time_objdump(objdump, target, path, runs, copies) if copies > 1 else None
        result.objdump_instructions, result.objdump_copies = objdump_count, copies
        wall.add_objdump(objdump_count, copies, one.wall, many.wall if many else None)
        cpu.add_objdump(objdump_count, copies, one.cpu, many.cpu if many else None)
    total, by_own, by_cumulative = profile(decoder, printer, functions, top)
    result.profile_total_seconds = total
    result.profile_by_own = by_own
    result.profile_by_cumulative = by_cumulative
    return result


def source_revision() -> str:
    """The commit measured, with ``+dirty`` when the MC layer has uncommitted edits.

    Figures are only comparable between runs on the same code; others edit the decoder and
    printer while the benchmark runs, so say which code was measured.
    """
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              check=True, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", *MC_LAYER],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def format_report(results: list[TargetResult], runs: int, revision: str) -> str:
    lines = [
        f"luthier MC decode/print benchmark at {revision} "
        f"(best of {runs}; instructions per second)",
        "",
    ]
    header = (
        f"{'target':<8} {'clock':<5} {'insts':>6} {'decode':>9} {'dec+print':>9} "
        f"{'objdump':>9} {'objdump*':>9} {'ratio':>6} {'ratio*':>6}"
    )
    lines += [header, "-" * len(header)]
    for r in results:
        for f in (r.wall, r.cpu):
            lines.append(
                f"{r.target:<8} {f.clock:<5} {r.instructions:>6} {_rate(f.decode_rate):>9} "
                f"{_rate(f.decode_print_rate):>9} {_rate(f.objdump_rate):>9} "
                f"{_rate(f.objdump_marginal_rate):>9} {_ratio(f.ratio):>6} "
                f"{_ratio(f.ratio_marginal):>6}"
            )
    lines += [
        "",
        "wall: elapsed time; cpu: CPU time of this process (of llvm-objdump for its columns),",
        "  steadier when the machine is busy. objdump: llvm-objdump -d over the file, counted",
        "  with its own instruction count (it also disassembles inter-function padding);",
        "  objdump*: its marginal rate, start-up taken out (one run over N copies of the",
        "  file). ratio(*) = luthier decode+print rate / objdump(*) rate.",
    ]
    for r in results:
        lines += ["", f"== {r.target}: {r.code_object}"]
        lines.append(
            f"   {r.functions} functions, {r.bytes} bytes, {r.instructions} instructions"
        )
        for f in (r.wall, r.cpu):
            lines.append(
                f"   {f.clock}: decode {f.decode_seconds * 1e3:.1f} ms, print alone "
                f"{f.print_seconds * 1e3:.1f} ms ({_rate(f.print_rate)}/s), decode+print "
                f"{f.decode_print_seconds * 1e3:.1f} ms"
            )
        one, many = r.wall.objdump_seconds, r.wall.objdump_copies_seconds
        if one is not None:
            copies = "" if many is None else f"; {r.objdump_copies} copies in {many * 1e3:.1f} ms"
            lines.append(f"   llvm-objdump: {r.objdump_instructions} instructions, "
                         f"{one * 1e3:.1f} ms{copies} (wall)")
        if r.cpu.objdump_seconds is not None:
            many_cpu = r.cpu.objdump_copies_seconds
            copies = "" if many_cpu is None else f"; copies {many_cpu * 1e3:.1f} ms"
            lines.append(f"   llvm-objdump: {r.cpu.objdump_seconds * 1e3:.1f} ms{copies} (cpu)")
        total = r.profile_total_seconds or 1.0
        lines.append(f"   profile of one decode+print run (cProfile, {total * 1e3:.0f} ms):")
        for title, rows in (("own time", r.profile_by_own),
                            ("cumulative time", r.profile_by_cumulative)):
            lines.append(f"     top by {title}:")
            lines.append(f"       {'own%':>6} {'cum%':>6} {'calls':>8}  function")
            for row in rows:
                lines.append(
                    f"       {100 * row.own / total:>6.1f} {100 * row.cumulative / total:>6.1f} "
                    f"{row.calls:>8}  {row.function}"
                )
    return "\n".join(lines)


def parse_inputs(values: list[str]) -> list[tuple[str, Path]]:
    inputs: list[tuple[str, Path]] = []
    for value in values:
        target, sep, path = value.partition("=")
        if not sep:
            raise SystemExit(f"--input wants TARGET=PATH, got {value!r}")
        inputs.append((target, Path(path)))
    return inputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="best of N runs (default 5)")
    parser.add_argument(
        "--input", action="append", default=[], metavar="TARGET=PATH",
        help="a code object and its processor (repeatable; default: the bench corpus)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--top", type=int, default=15, help="profile rows to show")
    parser.add_argument("--objdump", default=OBJDUMP, help="llvm-objdump to compare with")
    parser.add_argument("--no-objdump", action="store_true", help="skip llvm-objdump")
    parser.add_argument(
        "--objdump-repeat", type=int, default=10, metavar="N",
        help="copies of the file in the run that measures llvm-objdump's marginal rate "
        "(default 10; 1 skips it)",
    )
    args = parser.parse_args(argv)
    runs = max(1, cast(int, args.runs))
    inputs = parse_inputs(cast(list[str], args.input)) or [
        (target, CORPUS / f"kernels.{target}.co") for target in DEFAULT_TARGETS
    ]
    objdump: str | None = None
    if not args.no_objdump:
        objdump = shutil.which(cast(str, args.objdump))
        if objdump is None:
            print(f"note: {args.objdump} not found; skipping the comparison", file=sys.stderr)

    results = [
        bench_target(target, path, runs, objdump, max(1, cast(int, args.objdump_repeat)),
                     cast(int, args.top))
        for target, path in inputs
    ]
    revision = source_revision()
    print(format_report(results, runs, revision))
    json_path = cast(Path | None, args.json)
    if json_path is not None:
        document = {"runs": runs, "python": sys.version.split()[0], "revision": revision,
                    "results": [asdict(result) for result in results]}
        json_path.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
