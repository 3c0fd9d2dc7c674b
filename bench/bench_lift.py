#!/usr/bin/env python3
"""Lift speed and memory of luthier (code object -> amdgpu_mc IR) against llvm-objdump-19.

On one code object (by default the largest gfx90a object of the third-party corpus,
``build/thirdparty/codeobjects/``, fetched by ``test/corpus/thirdparty/fetch.sh``: rocrand,
about 55 thousand instructions; ``test/corpus/bench/kernels.gfx90a.co`` with a note when it is
missing), in one process, this measures:

* ``read``: ``read_code_object`` (ELF, notes, metadata, kernel descriptors);
* ``lift``: ``lift_code_object`` (decode, print mnemonics, CFG recovery, symbolization, op
  creation). The first run is reported apart as ``cold``: it also loads the decoder and
  printer tables. The ``warm`` figure is the median of ``--runs`` more runs, each starting
  with the decoder and printer memos cleared (repeats within the object still count);
* ``emit``: ``emit_code_object`` on the lifted module, and whether its bytes equal the input
  (or, for another toolchain's object, whether every function and descriptor does);
* memory: the peak of ``tracemalloc`` over one read + lift (a separate run: tracing slows it
  down), per instruction, and the growth of the process's maximum RSS over the cold run;
* ``llvm-objdump-19 -d --mcpu=<processor>`` on the same file, by the child's CPU time, with
  its own instruction count (it also disassembles padding), and the ratio of the rates.

Targets: a warm lift at >= 50k instructions per second (CPU) and a tracemalloc peak under
1 KiB per instruction; each is reported PASS or MISS. This is a measurement script, not a
test: it exits 0 whatever the figures. ``--profile`` adds a cProfile of one warm lift, top
entries by cumulative time grouped roughly by stage.

If the whole object cannot be lifted (``LiftError``, e.g. bytes outside any function symbol),
the kernels are lifted by name instead (``LiftOptions.kernels``), which skips that check; the
output says so, and emission is then not expected to reproduce the input.

    python bench/bench_lift.py                        # the default object, 3 warm runs
    python bench/bench_lift.py --runs 1 --profile
    python bench/bench_lift.py --input test/corpus/kernels/elementwise.gfx90a.co --runs 1
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
import statistics
import subprocess
import sys
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
FALLBACK = ROOT / "test" / "corpus" / "bench"
OBJDUMP = "llvm-objdump-19"

#: An instruction line of ``llvm-objdump -d``: text, then ``// <address>: <words>``.
OBJDUMP_INSTRUCTION = re.compile(r"^\s+\S.*?//\s*[0-9A-Fa-f]+:(?:\s+[0-9A-Fa-f]{8})+")

#: Targets the figures are compared with.
TARGET_RATE = 50_000.0
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


def lift(code_object: CodeObject, kernels_only: bool) -> LiftResult:
    if kernels_only:
        names = tuple(kernel.function.name for kernel in code_object.kernels)
        return lift_code_object(code_object, LiftOptions(kernels=names))
    return lift_code_object(code_object)


def clear_memos(processor: str) -> None:
    decoder_for(processor).clear_memo()
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
    profile_total_seconds: float = 0.0
    profile_groups: dict[str, float] = field(default_factory=lambda: dict[str, float]())
    profile_rows: list[tuple[str, str, int, float]] = field(
        default_factory=lambda: list[tuple[str, str, int, float]]())

    def median(self, name: str) -> float:
        return statistics.median(cast(float, getattr(run, name)) for run in self.warm)


def one_run(path: Path, kernels_only: bool, warm: bool) -> tuple[Run, LiftResult, bytes]:
    gc.collect()
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


def run_objdump(objdump: str, processor: str, path: Path) -> tuple[int, float]:
    """llvm-objdump's instruction count and the CPU time of the child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = subprocess.run([objdump, "-d", f"--mcpu={processor}", str(path)],
                            check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    count = sum(1 for line in output.splitlines() if OBJDUMP_INSTRUCTION.match(line))
    return count, cpu


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

    gc.collect()
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
        result.objdump_instructions, result.objdump_cpu = run_objdump(objdump, processor, path)
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
    lines += [
        f"target lift rate >= {TARGET_RATE:,.0f} inst/s: {_verdict(warm_rate >= TARGET_RATE)}",
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="warm runs, median (default 3)")
    parser.add_argument("--input", type=Path, metavar="PATH",
                        help="the code object (default: the largest third-party gfx90a one)")
    parser.add_argument("--profile", action="store_true", help="cProfile one warm lift")
    parser.add_argument("--top", type=int, default=25, help="profile rows to show")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--objdump", default=OBJDUMP, help="llvm-objdump to compare with")
    parser.add_argument("--no-objdump", action="store_true", help="skip llvm-objdump")
    args = parser.parse_args(argv)
    runs = max(1, cast(int, args.runs))
    path = cast(Path | None, args.input) or default_input()
    objdump: str | None = None
    if not args.no_objdump:
        objdump = shutil.which(cast(str, args.objdump))
        if objdump is None:
            print(f"note: {args.objdump} not found; skipping the comparison", file=sys.stderr)
    top = cast(int, args.top) if args.profile else None
    result = bench(path, runs, objdump, top)
    print(format_report(result, runs))
    json_path = cast(Path | None, args.json)
    if json_path is not None:
        document = {"runs": runs, "python": sys.version.split()[0], "result": asdict(result)}
        json_path.write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
