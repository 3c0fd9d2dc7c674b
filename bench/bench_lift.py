#!/usr/bin/env python3
"""Lift speed, the identity round trip and memory of luthier against llvm-objdump-19.

Inputs (``--input PATH``, repeatable, chooses others): the largest gfx90a object of the
third-party corpus (``build/thirdparty/codeobjects/``, fetched by
``test/corpus/thirdparty/fetch.sh``: rocrand, about 55 thousand instructions;
``test/corpus/bench/kernels.gfx90a.co`` with a note when it is missing), the largest gfx90a
object of the large set when it was fetched (``fetch.sh --large``: rocSPARSE, 533 thousand
instructions, the largest real object we have), and a generated object of about 320
thousand instructions (``test/corpus/bench/big_object.py``, built with
clang-19 on first use into ``build/bench/``, not committed; ``--no-big`` skips it). For each,
in one process:

* ``read``: ``read_code_object`` (ELF, notes, metadata, kernel descriptors);
* ``lift``: ``lift_code_object`` (decode, print mnemonics, CFG recovery, symbolization, op
  creation). The first run is reported apart as ``cold``: it also loads the decoder and
  printer tables. The ``warm`` figure is the median of ``--runs`` more runs, each starting
  with the decoder and printer memos cleared (repeats within the object still count). It
  lifts as ``luthier-opt`` does, with ``LiftOptions.freeze_result`` (the IR is not scanned
  by the collector when collection resumes; the bench gives it back between runs);
* ``emit``: ``emit_code_object`` on the lifted module, and whether its bytes equal the input
  (or, for another toolchain's object, whether every function and descriptor does);
* memory: the peak of ``tracemalloc`` over one read + lift (a separate run: tracing slows it
  down), per instruction, and the growth of the process's maximum RSS over the cold run;
* the identity round trip as a user runs it, ``luthier-opt --lift X.co -o Y.co`` (as
  ``python -m luthier.drivers.luthier_opt``, without a shell wrapper), in a child process:
  its CPU time (median of ``--runs``, start-up included) and maximum RSS;
* ``llvm-objdump-19 -d --mcpu=<processor>`` on the same file, by the child's CPU time
  (median of ``--runs``), with its own instruction count (it also disassembles padding).

Targets: a warm lift at >= 100k instructions per second (CPU), a round trip within 2x
llvm-objdump's CPU time, and a tracemalloc peak under 1 KiB per instruction; each is
reported PASS or MISS. This is a measurement script, not a test: it exits 0 whatever the
figures. ``--profile`` adds a cProfile of one warm lift, top entries by cumulative time
grouped roughly by stage.

How time grows with size (``--scaling``, on by default without ``--input``): the same lift
and round-trip figures, one run each, on objects from about 2 thousand to 320 thousand
instructions (corpus kernels, the bench kernels, rocRAND, the generated object at a quarter
and at full size), with microseconds per instruction and the slope of log(time) over
log(instructions) between the smallest and the largest (1.0 is linear).

If the whole object cannot be lifted (``LiftError``, e.g. bytes outside any function symbol),
the kernels are lifted by name instead (``LiftOptions.kernels``), which skips that check; the
output says so, and emission is then not expected to reproduce the input.

    python bench/bench_lift.py                        # rocRAND + the big object + scaling
    python bench/bench_lift.py --runs 1 --profile --no-big --no-scaling
    python bench/bench_lift.py --input test/corpus/kernels/elementwise.gfx90a.co --runs 1
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import math
import os
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.compare import compare_code_objects
from luthier.frontend.codeobj.model import CodeObject
from luthier.frontend.lift import LiftError, LiftOptions, LiftResult, lift_code_object
from luthier.lowering.emit import emit_code_object

ROOT = Path(__file__).resolve().parents[1]
THIRDPARTY = ROOT / "build" / "thirdparty" / "codeobjects"
#: The large set (``test/corpus/thirdparty/fetch.sh --large``: rocSPARSE), on demand.
THIRDPARTY_LARGE = ROOT / "build" / "thirdparty-large"
#: Instruction counts the large set's objects are picked near for the scaling table.
LARGE_SCALING_SIZES = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000)
FALLBACK = ROOT / "test" / "corpus" / "bench"
OBJDUMP = "llvm-objdump-19"
#: The generator of the >= 300k-instruction object (built on demand, cached in build/).
BIG_OBJECT = FALLBACK / "big_object.py"
#: Corpus objects at the small end of the scaling table.
SCALING_SMALL = (ROOT / "test" / "corpus" / "kernels" / "scratch.gfx90a.co",
                 FALLBACK / "kernels.gfx90a.co")

#: An instruction line of ``llvm-objdump -d``: text, then ``// <address>: <words>``.
OBJDUMP_INSTRUCTION = re.compile(r"^\s+\S.*?//\s*[0-9A-Fa-f]+:(?:\s+[0-9A-Fa-f]{8})+")

#: Targets the figures are compared with.
TARGET_RATE = 100_000.0
TARGET_ROUND_TRIP_RATIO = 2.0
TARGET_BYTES_PER_INST = 1024.0

#: Profile groups, first match wins: (group, substrings of the profiled function's label).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("decode", ("amdgpu_dialects/mc/",)),
    ("mnemonic/printing", ("amdgpu_dialects/mc/",)),
    ("CFG", ("frontend/lift/cfg.py",)),
    ("symbolization", ("frontend/lift/pcrel.py",)),
    ("metadata attrs", ("amdgpu_mc/metadata.py",)),
    ("op creation", ("xdsl/", "amdgpu_dialects/")),
    ("read", ("frontend/codeobj/",)),
    ("lift driver", ("frontend/lift/",)),
)


def default_input() -> Path:
    """The largest gfx90a code object of the third-party corpus, else the bench corpus."""
    candidates = sorted(THIRDPARTY.rglob("*.gfx90a.co"), key=lambda path: path.stat().st_size)
    if candidates:
        return candidates[-1]
    fallback = FALLBACK / "kernels.gfx90a.co"
    print(f"note: no third-party code objects under {THIRDPARTY.relative_to(ROOT)} (run "
          f"test/corpus/thirdparty/fetch.sh); using {fallback.relative_to(ROOT)}",
          file=sys.stderr)
    return fallback


def large_set() -> list[tuple[int, Path]]:
    """The gfx90a ``xnack-`` objects of the large set with their instruction counts (from
    its MANIFEST.txt), smallest first; empty when it was not fetched."""
    manifest = THIRDPARTY_LARGE / "MANIFEST.txt"
    if not manifest.exists():
        return []
    found: list[tuple[int, Path]] = []
    for line in manifest.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 7 and fields[0].startswith("codeobjects/") \
                and fields[2] == "gfx90a:xnack-" and fields[6].isdigit():
            found.append((int(fields[6]), THIRDPARTY_LARGE / fields[0]))
    return sorted(found)


def largest_of_large_set() -> Path | None:
    """The large set's largest gfx90a object (by instructions); None, with a note, when the
    set was not fetched."""
    found = large_set()
    if not found:
        print("note: the large set is not fetched (bash test/corpus/thirdparty/fetch.sh "
              "--large: rocSPARSE, objects up to 533 thousand instructions); measuring "
              "without it", file=sys.stderr)
        return None
    return found[-1][1]


def large_scaling_inputs() -> list[Path]:
    """Objects of the large set near each of :data:`LARGE_SCALING_SIZES` instructions."""
    found = large_set()
    chosen: list[Path] = []
    for size in LARGE_SCALING_SIZES if found else ():
        path = min(found, key=lambda entry: abs(math.log(entry[0] / size)))[1]
        if path not in chosen:
            chosen.append(path)
    return chosen


def big_object(kernels: int | None = None) -> Path | None:
    """The generated big object (``kernels`` of its kernels; all by default), built with
    clang-19 on first use; None, with a note, when it cannot be built."""
    try:
        completed = subprocess.run(
            [sys.executable, str(BIG_OBJECT)] + ([] if kernels is None
                                                 else ["--kernels", str(kernels)]),
            check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as error:
        print(f"note: {BIG_OBJECT.relative_to(ROOT)} failed ({error.stderr.strip()}); "
              "skipping the big object", file=sys.stderr)
        return None
    return Path(completed.stdout.strip())


def lift(code_object: CodeObject, kernels_only: bool) -> LiftResult:
    """Lift as ``luthier-opt`` does, with ``freeze_result``: the IR goes to the collector's
    permanent generation instead of being scanned when collection resumes (see
    :func:`collect` for giving it back between runs)."""
    names = tuple(kernel.function.name for kernel in code_object.kernels) \
        if kernels_only else ()
    return lift_code_object(code_object, LiftOptions(kernels=names, freeze_result=True))


def collect() -> None:
    """Give frozen IR back to the collector and collect it (between measured runs)."""
    gc.unfreeze()
    gc.collect()


def clear_memos(processor: str) -> None:
    decoder_for(processor, real_true16=True).clear_memo()
    printer_for(processor).clear_memo()


@dataclass
class Run:
    """One read + lift + emit: wall and CPU seconds of each stage."""

    read_wall: float
    read_cpu: float
    lift_wall: float
    lift_cpu: float
    emit_wall: float
    emit_cpu: float


def timed(action: Callable[[], object]) -> tuple[Any, float, float]:
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    value = action()
    return value, time.perf_counter() - start_wall, time.process_time() - start_cpu


@dataclass
class Result:
    code_object: str
    processor: str
    kernels_only: bool
    lift_error: str | None
    instructions: int
    emitted: str
    cold: Run
    warm: list[Run]
    rss_growth_bytes: int
    tracemalloc_peak_bytes: int
    objdump_instructions: int | None = None
    objdump_cpu: float | None = None
    round_trip_cpu: float | None = None
    round_trip_max_rss_bytes: int | None = None
    round_trip_identical: bool | None = None
    profile_total_seconds: float = 0.0
    profile_groups: dict[str, float] = field(default_factory=lambda: dict[str, float]())
    profile_rows: list[tuple[str, str, int, float]] = field(
        default_factory=lambda: list[tuple[str, str, int, float]]())

    def median(self, name: str) -> float:
        return statistics.median(cast(float, getattr(run, name)) for run in self.warm)


def one_run(path: Path, kernels_only: bool, warm: bool) -> tuple[Run, LiftResult, bytes]:
    collect()
    code_object, read_wall, read_cpu = timed(lambda: read_code_object(path))
    if warm:
        clear_memos(cast(CodeObject, code_object).processor)
    result, lift_wall, lift_cpu = timed(lambda: lift(code_object, kernels_only))
    result = cast(LiftResult, result)
    emitted: Any
    try:
        emitted, emit_wall, emit_cpu = timed(lambda: emit_code_object(result.module))
    except Exception as error:  # noqa: BLE001 - any emission failure is a figure to report
        emitted, emit_wall, emit_cpu = f"error: {type(error).__name__}: {error}", 0.0, 0.0
    return (Run(read_wall, read_cpu, lift_wall, lift_cpu, emit_wall, emit_cpu), result,
            emitted if isinstance(emitted, bytes) else str(emitted).encode())


def _label(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    if filename == "~":
        return name
    path = Path(filename)
    try:
        text = str(path.resolve().relative_to(ROOT))
    except ValueError:
        parts = path.parts
        text = "/".join(parts[parts.index("xdsl"):]) if "xdsl" in parts else path.name
    return f"{text}:{line}({name})"


def _group(label: str) -> str:
    for group, needles in GROUPS:
        if any(needle in label for needle in needles):
            return group
    return "other"


def profile(path: Path, kernels_only: bool, processor: str, top: int, result: Result) -> None:
    """cProfile one warm read + lift; a group's time is its largest cumulative entry."""
    collect()
    code_object = read_code_object(path)
    clear_memos(processor)
    profiler = cProfile.Profile()
    profiler.enable()
    lift(code_object, kernels_only)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    raw = cast(dict[tuple[str, int, str], tuple[int, int, float, float, Any]],
               vars(stats)["stats"])
    rows = [(_label(key), calls, own, cumulative)
            for key, (_, calls, own, cumulative, _) in raw.items()]
    rows = [row for row in rows if "disable" not in row[0] and not row[0].startswith("bench/")]
    result.profile_total_seconds = sum(row[2] for row in rows)
    for label, _, _, cumulative in rows:
        group = _group(label)
        result.profile_groups[group] = max(result.profile_groups.get(group, 0.0), cumulative)
    by_cumulative = sorted(rows, key=lambda row: row[3], reverse=True)[:top]
    result.profile_rows = [(_group(label), label, calls, cumulative)
                           for label, calls, _, cumulative in by_cumulative]


#: GNU time: a small parent for children whose peak memory is measured (a child forked
#: from this big process starts with a share of its pages in its RSS; ``ru_maxrss``
#: survives ``exec``).
TIME = "/usr/bin/time"


def child(command: list[str], keep_output: bool = True) -> tuple[float, int | None, bytes]:
    """Run ``command``: the child's CPU seconds (user + system), its maximum RSS in bytes
    (None without GNU time) and its standard output; ``CalledProcessError`` when it fails.
    Output goes through files so that the child is reaped here by ``wait4``, which reports
    its CPU time. Python's bytecode cache is allowed (``PYTHONDONTWRITEBYTECODE`` is
    dropped), as for an installed package: else a module edited since its cache was
    written would be compiled again in every timed run."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as scratch:
        rss_file = Path(scratch) / "rss"
        timed_command = [TIME, "-f", "%M", "-o", str(rss_file), *command] \
            if os.access(TIME, os.X_OK) else command
        with (Path(scratch) / "out").open("w+b") as out, \
                (Path(scratch) / "err").open("w+b") as err:
            process = subprocess.Popen(timed_command,
                                       stdout=out if keep_output else subprocess.DEVNULL,
                                       stderr=err, env=env)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            output, errors = out.read(), err.read()
        if process.returncode != 0:
            raise subprocess.CalledProcessError(process.returncode, command, output, errors)
        rss = int(rss_file.read_text().split()[-1]) * 1024 if rss_file.exists() else None
    return usage.ru_utime + usage.ru_stime, rss, output


def run_objdump(objdump: str, processor: str, path: Path, runs: int = 1) -> tuple[int, float]:
    """llvm-objdump's instruction count and the median CPU time of the child."""
    times: list[float] = []
    output = b""
    for _ in range(runs):
        cpu, _, output = child([objdump, "-d", f"--mcpu={processor}", str(path)])
        times.append(cpu)
    count = sum(1 for line in output.decode().splitlines() if OBJDUMP_INSTRUCTION.match(line))
    return count, statistics.median(times)


def run_round_trip(path: Path, runs: int = 1) -> tuple[float, int, bool]:
    """``luthier-opt --lift X -o Y`` in a child: median CPU seconds, largest maximum RSS
    (0 when unknown), and whether Y equals what emitting in this process gives."""
    times: list[float] = []
    peak = 0
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "round_trip.co"
        command = [sys.executable, "-m", "luthier.drivers.luthier_opt", "--lift", str(path),
                   "-o", str(output), "--no-progress"]
        child(command, keep_output=False)  # untimed: writes the bytecode cache
        for _ in range(runs):
            cpu, rss, _ = child(command, keep_output=False)
            times.append(cpu)
            peak = max(peak, rss or 0)
        identical = output.read_bytes() == emit_code_object(
            lift(read_code_object(path), False).module)
    return statistics.median(times), peak, identical


def bench(path: Path, runs: int, objdump: str | None, top: int | None) -> Result:
    data = path.read_bytes()
    probe = read_code_object(path)
    processor = probe.processor
    kernels_only, lift_error = False, None
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        cold, lifted, emitted = one_run(path, False, warm=False)
    except LiftError as error:
        kernels_only, lift_error = True, str(error)
        print(f"note: the whole object does not lift ({error}); lifting its "
              f"{len(probe.kernels)} kernels by name instead", file=sys.stderr)
        cold, lifted, emitted = one_run(path, True, warm=False)
    rss_growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) * 1024
    count = lifted.instruction_count
    if emitted == data:
        emitted_text = "byte-identical to the input"
    elif emitted.startswith(b"error: "):
        emitted_text = emitted.decode()
    else:
        # Another toolchain's layout and debug sections do not come back; what must is
        # each function, descriptor and the metadata (see frontend/codeobj/compare.py).
        comparison = compare_code_objects(read_code_object(data, name=str(path)),
                                          read_code_object(emitted, name="emitted"))
        emitted_text = (f"a different file ({len(emitted)} bytes vs {len(data)}); functions "
                        f"{comparison.identical_functions}/{comparison.functions} and "
                        f"descriptors {comparison.identical_descriptors}/"
                        f"{comparison.descriptors} identical, metadata "
                        f"{'equivalent' if comparison.metadata_equivalent else 'DIFFERS'}")
    del lifted
    warm = [one_run(path, kernels_only, warm=True)[0] for _ in range(runs)]

    collect()
    clear_memos(processor)
    tracemalloc.start()
    code_object = read_code_object(path)
    traced = lift(code_object, kernels_only)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del traced, code_object

    result = Result(str(path), processor, kernels_only, lift_error, count, emitted_text, cold,
                    warm, rss_growth, peak)
    if objdump is not None:
        result.objdump_instructions, result.objdump_cpu = run_objdump(objdump, processor, path,
                                                                      runs)
    if not kernels_only:
        (result.round_trip_cpu, result.round_trip_max_rss_bytes,
         result.round_trip_identical) = run_round_trip(path, runs)
    if top is not None:
        profile(path, kernels_only, processor, top, result)
    return result


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def format_report(r: Result, runs: int) -> str:
    n = r.instructions
    rel = Path(r.code_object).resolve()
    if rel.is_relative_to(ROOT):
        rel = rel.relative_to(ROOT)
    lines = [
        f"luthier lift benchmark: {rel} ({r.processor}, {n} instructions"
        f"{', kernels only' if r.kernels_only else ''})",
        f"cold = first run (loads decoder/printer tables); warm = median of {runs} runs, "
        "memos cleared before each",
        "",
        f"{'stage':<11} {'wall ms':>9} {'cpu ms':>9} {'inst/s (cpu)':>13}",
    ]
    stages = (("read", "read"), ("lift", "lift"), ("emit", "emit"))
    for title, name in stages:
        for label, wall, cpu in (
            ("cold", cast(float, getattr(r.cold, f"{name}_wall")),
             cast(float, getattr(r.cold, f"{name}_cpu"))),
            ("warm", r.median(f"{name}_wall"), r.median(f"{name}_cpu")),
        ):
            rate = f"{n / cpu:,.0f}" if cpu > 0 else "-"
            lines.append(f"{title + ' ' + label:<11} {wall * 1e3:>9.1f} {cpu * 1e3:>9.1f} "
                         f"{rate:>13}")
    warm_rate = n / r.median("lift_cpu")
    warm_total = n / (r.median("read_cpu") + r.median("lift_cpu"))
    per_inst = r.tracemalloc_peak_bytes / n
    lines += [
        "",
        f"lift rate (warm, cpu): {warm_rate:,.0f} inst/s; read + lift: {warm_total:,.0f} inst/s",
        f"emit: {r.emitted}",
        f"peak memory (tracemalloc, read + lift): {r.tracemalloc_peak_bytes / 2**20:.1f} MiB, "
        f"{per_inst:,.0f} B/inst",
        f"RSS growth (ru_maxrss over the cold run): {r.rss_growth_bytes / 2**20:.1f} MiB, "
        f"{r.rss_growth_bytes / n:,.0f} B/inst",
    ]
    if r.objdump_cpu is not None and r.objdump_instructions:
        objdump_rate = r.objdump_instructions / r.objdump_cpu
        lines.append(
            f"llvm-objdump: {r.objdump_instructions} instructions in {r.objdump_cpu * 1e3:.1f} "
            f"ms cpu, {objdump_rate:,.0f} inst/s; ratio ours/llvm-objdump: "
            f"{warm_rate / objdump_rate:.3f} (lift), {warm_total / objdump_rate:.3f} "
            "(read + lift)")
    else:
        lines.append("llvm-objdump: skipped")
    ratio: float | None = None
    if r.round_trip_cpu is not None and r.round_trip_max_rss_bytes is not None:
        same = "the same bytes as" if r.round_trip_identical else "NOT the same bytes as"
        lines.append(
            f"round trip (luthier-opt --lift X -o Y, child, median of {runs}): "
            f"{r.round_trip_cpu * 1e3:.0f} ms cpu, {n / r.round_trip_cpu:,.0f} inst/s, max RSS "
            + (f"{r.round_trip_max_rss_bytes / 2**20:.0f} MiB" if r.round_trip_max_rss_bytes
               else f"unknown (no {TIME})")
            + f"; output: {same} emission "
            "in this process")
        if r.objdump_cpu:
            ratio = r.round_trip_cpu / r.objdump_cpu
            lines.append(f"round trip / llvm-objdump cpu: {ratio:.1f}x")
    else:
        lines.append("round trip: skipped (kernels only)")
    lines += [
        f"target lift rate >= {TARGET_RATE:,.0f} inst/s: {_verdict(warm_rate >= TARGET_RATE)}",
        f"target round trip <= {TARGET_ROUND_TRIP_RATIO:.0f}x llvm-objdump cpu: "
        + (_verdict(ratio <= TARGET_ROUND_TRIP_RATIO) if ratio is not None else "-"),
        f"target peak memory < {TARGET_BYTES_PER_INST:.0f} B/inst: "
        f"{_verdict(per_inst < TARGET_BYTES_PER_INST)}",
    ]
    if r.profile_rows:
        total = r.profile_total_seconds or 1.0
        lines += ["", f"where the time goes (cProfile of one warm lift, {total * 1e3:.0f} ms; "
                  "a group's share is its largest cumulative entry, groups nest):"]
        for group, seconds in sorted(r.profile_groups.items(), key=lambda item: -item[1]):
            lines.append(f"  {group:<18} {100 * seconds / total:>5.1f}%")
        lines += ["", f"  {'cum%':>6} {'calls':>8}  {'group':<18} function"]
        for group, label, calls, cumulative in r.profile_rows:
            lines.append(f"  {100 * cumulative / total:>6.1f} {calls:>8}  {group:<18} {label}")
    return "\n".join(lines)


@dataclass
class ScalingRow:
    """One object of the scaling table: instructions and CPU seconds of each figure."""

    code_object: str
    instructions: int
    lift_cpu: float
    round_trip_cpu: float
    objdump_cpu: float | None


def scaling_inputs(main_inputs: list[Path], with_big: bool) -> list[Path]:
    """Objects from about 2 thousand to 320 thousand instructions (533 thousand with the
    large set, whose objects from 1 thousand up are added), smallest first."""
    paths = [path for path in SCALING_SMALL if path.exists()]
    paths += list(THIRDPARTY.rglob("librocrand.xnack-.gfx90a.co"))
    paths += large_scaling_inputs()
    if with_big:
        paths += [path for path in (big_object(12), big_object()) if path is not None]
    for path in main_inputs:
        if path not in paths:
            paths.append(path)
    return paths


def scaling_row(path: Path, objdump: str | None, known: dict[Path, Result]) -> ScalingRow:
    """The figures of ``path``: from the main run when it was an input, else one run each
    (after one cold lift, so that tables and memos are loaded)."""
    result = known.get(path)
    if result is not None and result.round_trip_cpu is not None:
        return ScalingRow(str(path), result.instructions, result.median("lift_cpu"),
                          result.round_trip_cpu, result.objdump_cpu)
    code_object = read_code_object(path)
    lift(code_object, False)
    clear_memos(code_object.processor)
    collect()
    lifted, _, lift_cpu = timed(lambda: lift(code_object, False))
    count = cast(LiftResult, lifted).instruction_count
    del lifted
    round_trip_cpu, _, _ = run_round_trip(path)
    objdump_cpu = run_objdump(objdump, code_object.processor, path)[1] \
        if objdump is not None else None
    return ScalingRow(str(path), count, lift_cpu, round_trip_cpu, objdump_cpu)


def _slope(small: ScalingRow, large: ScalingRow, name: str) -> str:
    """d log(time) / d log(instructions) between two rows (1.0: linear)."""
    if large.instructions <= small.instructions:
        return "-"
    ratio = cast(float, getattr(large, name)) / cast(float, getattr(small, name))
    return f"{math.log(ratio) / math.log(large.instructions / small.instructions):.2f}"


def format_scaling(rows: list[ScalingRow]) -> str:
    lines = ["", "how time grows with size (cpu; lift warm, one run; round trip = "
             "luthier-opt --lift X -o Y, start-up included):",
             f"  {'instructions':>12} {'lift ms':>9} {'us/inst':>8} {'round trip ms':>14} "
             f"{'us/inst':>8} {'objdump ms':>11} {'ratio':>6}  object"]
    for row in rows:
        name = Path(row.code_object).name
        objdump = f"{row.objdump_cpu * 1e3:>11.0f}" if row.objdump_cpu else f"{'-':>11}"
        ratio = f"{row.round_trip_cpu / row.objdump_cpu:>5.1f}x" if row.objdump_cpu \
            else f"{'-':>6}"
        lines.append(
            f"  {row.instructions:>12,} {row.lift_cpu * 1e3:>9.0f} "
            f"{row.lift_cpu / row.instructions * 1e6:>8.2f} {row.round_trip_cpu * 1e3:>14.0f} "
            f"{row.round_trip_cpu / row.instructions * 1e6:>8.2f} {objdump} {ratio}  {name}")
    if len(rows) >= 2:
        first, before_last, last = rows[0], rows[-2], rows[-1]
        lines.append(
            f"  growth exponent (1.0 = linear), smallest -> largest: lift "
            f"{_slope(first, last, 'lift_cpu')}, round trip {_slope(first, last, 'round_trip_cpu')}"
            f"; between the two largest: lift {_slope(before_last, last, 'lift_cpu')}, round "
            f"trip {_slope(before_last, last, 'round_trip_cpu')}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="warm runs, median (default 3)")
    parser.add_argument("--input", type=Path, metavar="PATH", action="append",
                        help="a code object (repeatable; default: the largest third-party "
                             "gfx90a one and the generated big object)")
    parser.add_argument("--no-big", action="store_true",
                        help="do not build or measure the generated big object")
    parser.add_argument("--scaling", action=argparse.BooleanOptionalAction, default=None,
                        help="the scaling table (default: on without --input)")
    parser.add_argument("--profile", action="store_true", help="cProfile one warm lift")
    parser.add_argument("--top", type=int, default=25, help="profile rows to show")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--objdump", default=OBJDUMP, help="llvm-objdump to compare with")
    parser.add_argument("--no-objdump", action="store_true", help="skip llvm-objdump")
    args = parser.parse_args(argv)
    runs = max(1, cast(int, args.runs))
    with_big = not args.no_big
    paths = cast(list[Path] | None, args.input)
    if paths is None:
        paths = [default_input()]
        largest = largest_of_large_set()
        if largest is not None:
            paths.append(largest)
        big = big_object() if with_big else None
        if big is not None:
            paths.append(big)
    scaling = cast(bool | None, args.scaling)
    if scaling is None:
        scaling = args.input is None
    objdump: str | None = None
    if not args.no_objdump:
        objdump = shutil.which(cast(str, args.objdump))
        if objdump is None:
            print(f"note: {args.objdump} not found; skipping the comparison", file=sys.stderr)
    top = cast(int, args.top) if args.profile else None
    results: dict[Path, Result] = {}
    for index, path in enumerate(paths):
        result = results[path] = bench(path, runs, objdump, top)
        print(("\n" if index else "") + format_report(result, runs), flush=True)
    rows: list[ScalingRow] = []
    if scaling:
        rows = sorted((scaling_row(path, objdump, results)
                       for path in scaling_inputs(paths, with_big)),
                      key=lambda row: row.instructions)
        print(format_scaling(rows))
    json_path = cast(Path | None, args.json)
    if json_path is not None:
        document = {"runs": runs, "python": sys.version.split()[0],
                    "result": asdict(results[paths[0]]),
                    "results": [asdict(result) for result in results.values()],
                    "scaling": [asdict(row) for row in rows]}
        json_path.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
