#!/usr/bin/env python3
"""Peak memory and CPU time of a big emulator launch (issue 22: "bounded memory and time").

A launch of ``vector_add`` (``test/corpus/kernels/elementwise.gfx90a.co``) over 39063
workgroups of 256 work-items (10,000,128 work-items, 156,252 waves of 64 lanes; buffers of
that many f32) runs in a child process, and so does a small launch of the same kernel for
reference. For each, from ``wait4``: the child's peak resident memory (``ru_maxrss``) and
its CPU time (user + system); from the child itself: what it held before the launch (the
interpreter, the imports, the compiled program and the argument arrays) and the CPU time of
``run_kernel`` alone. The target is a peak under 1 GB for the big launch, which holds only
if the emulator's memory grows with the waves in flight and not with the grid (a finished
wave keeps its instruction count, nothing else). The buffers themselves do grow with the
grid: the caller's three arrays, the emulator's copies and the copies handed back are nine
times 4 bytes per work-item, 343 MB here (MB of 2^20 bytes throughout), printed apart.

    python bench/bench_emulator_memory.py                     # 39063 x 256, about a minute
    python bench/bench_emulator_memory.py --grid 1024 --small-grid 16
    python bench/bench_emulator_memory.py --grid 256 --tracemalloc   # where the run allocates

The parent imports nothing but the standard library: a child started from a big process
would count the parent's pages in its own ``ru_maxrss``. ``--tracemalloc`` traces the
children's allocations (several times slower) and prints each one's traced peak and its
largest allocation sites at the end of the run. The figures are printed, never asserted;
the script exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CODE_OBJECT = ROOT / "test" / "corpus" / "kernels" / "elementwise.gfx90a.co"
KERNEL = "vector_add"
#: The launch of the issue: 39063 workgroups of 256 work-items (just over 10 million).
GRID = 39063
BLOCK = 256
SMALL_GRID = 16
#: Figures are in MB of 2^20 bytes, as ``ru_maxrss`` (KiB on Linux) / 1024 gives them.
MB = 1 << 20
TARGET_MB = 1024.0
#: Work-items whose sums are checked at a time after the launch.
CHECK_SLICE = 1 << 16
#: Allocation sites ``--tracemalloc`` prints.
TOP_SITES = 8


@dataclass(frozen=True)
class Launch:
    """What one child reported, and what ``wait4`` said about it."""

    grid: int
    block: int
    waves: int
    instructions: int
    buffer_mb: float
    before_mb: float
    run_seconds: float
    peak_mb: float
    cpu_seconds: float
    traced_peak_mb: float | None
    sites: list[str]


def resident_mb() -> float:
    """This process's resident memory now (``/proc/self/statm``), not its peak: what it
    holds before the launch; the peak so far where ``/proc`` is missing."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return pages * os.sysconf("SC_PAGE_SIZE") / MB


def child_main(grid: int, block: int, trace: bool) -> int:
    """The launch itself (in the child): prints one JSON object on stdout."""
    import numpy as np

    from luthier.emulator.api import load_program, run_kernel

    program = load_program(CODE_OBJECT)
    n = grid * block
    rng = np.random.default_rng(1)
    a = rng.standard_normal(n, np.float32)
    b = rng.standard_normal(n, np.float32)
    c = np.zeros(n, np.float32)
    before_mb = resident_mb()
    if trace:
        import tracemalloc

        tracemalloc.start()
    started = time.process_time()
    result = run_kernel(program, KERNEL, grid, block, [a, b, c, n])
    run_seconds = time.process_time() - started
    traced: float | None = None
    sites: list[str] = []
    if trace:
        import tracemalloc

        traced = tracemalloc.get_traced_memory()[1] / MB
        statistics = tracemalloc.take_snapshot().statistics("lineno")[:TOP_SITES]
        sites = [str(line) for line in statistics]
        tracemalloc.stop()
    out = result.buffers[2]
    assert out is not None
    # Checked a slice at a time: a whole ``a + b`` would add its own 4 bytes per work-item
    # (and a comparison's 1) to the peak this measures.
    for start in range(0, n, CHECK_SLICE):
        end = start + CHECK_SLICE
        assert np.array_equal(out[start:end], a[start:end] + b[start:end]), "wrong sums"
    print(json.dumps({"waves": result.waves, "instructions": result.instructions,
                      "buffer_mb": 3 * c.nbytes / MB, "before_mb": before_mb,
                      "run_seconds": run_seconds, "traced_peak_mb": traced,
                      "sites": sites}))
    return 0


def launch(grid: int, block: int, trace: bool) -> Launch:
    """Run one launch in a child; its report plus its peak RSS and CPU time from ``wait4``
    (its output read to the end first, then the child reaped here, not by ``Popen``, so
    that its resource usage comes back)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(grid),
               "--block", str(block)] + (["--tracemalloc"] if trace else [])
    with subprocess.Popen(command, stdout=subprocess.PIPE) as process:
        assert process.stdout is not None
        output = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"the launch of {grid} x {block} failed (exit {process.returncode})")
    report: dict[str, Any] = json.loads(output.decode().splitlines()[-1])
    return Launch(grid, block, int(report["waves"]), int(report["instructions"]),
                  float(report["buffer_mb"]), float(report["before_mb"]),
                  float(report["run_seconds"]), usage.ru_maxrss / 1024,
                  usage.ru_utime + usage.ru_stime,
                  None if report["traced_peak_mb"] is None else float(report["traced_peak_mb"]),
                  [str(site) for site in report["sites"]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--grid", type=int, default=GRID,
                        help=f"workgroups of the big launch (default {GRID})")
    parser.add_argument("--small-grid", type=int, default=SMALL_GRID,
                        help=f"workgroups of the reference launch (default {SMALL_GRID})")
    parser.add_argument("--block", type=int, default=BLOCK,
                        help=f"work-items per workgroup (default {BLOCK})")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="trace the children's allocations: traced peak, top sites")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--child", type=int, metavar="GRID", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return child_main(args.child, args.block, args.tracemalloc)
    if min(args.grid, args.small_grid) < 1 or not 1 <= args.block <= 1024:
        parser.error("--grid and --small-grid take at least 1, --block 1 to 1024")
    print(f"kernel: {CODE_OBJECT.relative_to(ROOT)}:{KERNEL}, block {args.block}, one "
          "child process per launch")
    print(f"{'launch':>14} {'waves':>9} {'instructions':>13} {'buffers':>9} "
          f"{'before run':>11} {'peak RSS':>9} {'run CPU':>9} {'child CPU':>10}")
    launches: list[Launch] = []
    for grid in (args.small_grid, args.grid):
        done = launch(grid, args.block, args.tracemalloc)
        launches.append(done)
        print(f"{f'{grid} x {args.block}':>14} {done.waves:>9,} {done.instructions:>13,} "
              f"{done.buffer_mb:>6.1f} MB {done.before_mb:>8.1f} MB {done.peak_mb:>6.1f} MB "
              f"{done.run_seconds:>7.2f} s {done.cpu_seconds:>8.2f} s", flush=True)
    small, big = launches
    # What the launch added on top of what the child held before it, per wave: the
    # emulator's own growth, which is what must not scale with the grid.
    growth = [(done.peak_mb - done.before_mb) for done in launches]
    print(f"growth during the run (peak - before): {growth[0]:.1f} MB for {small.waves:,} "
          f"waves, {growth[1]:.1f} MB for {big.waves:,} waves (the buffers copied in and "
          f"out: {2 * big.buffer_mb:.1f} MB of it)")
    print(f"run rate: {big.instructions / big.run_seconds:,.0f} instructions/s, "
          f"{big.waves / big.run_seconds:,.0f} waves/s (CPU)")
    verdict = "PASS" if big.peak_mb < TARGET_MB else "MISS"
    print(f"target: peak RSS of the {args.grid} x {args.block} launch under "
          f"{TARGET_MB:.0f} MB: {verdict} ({big.peak_mb:.1f} MB)")
    for done in launches:
        if done.traced_peak_mb is not None:
            print(f"tracemalloc, {done.grid} x {done.block}: traced peak "
                  f"{done.traced_peak_mb:.1f} MB; largest sites at the end of the run:")
            for site in done.sites:
                print(f"  {site}")
    if args.json is not None:
        args.json.write_text(json.dumps({"result": [vars(done) for done in launches]},
                                        indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
