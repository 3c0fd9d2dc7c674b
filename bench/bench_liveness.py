#!/usr/bin/env python3
"""Liveness speed: the whole analysis on one big kernel and on a real many-function object.

Inputs (each is lifted first; lifting is not part of the figures):

* ``kernel``: one kernel of about 50 thousand instructions, made by
  ``bench/liveness_kernel.py`` (clang-19 -O2, gfx90a: thousands of divergent branches with
  EXEC save/restore, uniform branches, long live ranges);
* ``object``: the largest gfx90a code object of the third-party corpus (rocRAND, about 55
  thousand instructions over hundreds of functions, with calls: the inter-procedural
  fixpoint), when ``test/corpus/thirdparty/fetch.sh`` has fetched it;
* or the files given with ``--input``.

For each, by CPU time:

* ``cold``: the first ``Liveness(code_object)`` of the process (CFG, call sites, effects
  from the ISA tables, EXEC state, the backward fixpoint); ``warm``: the median of
  ``--runs`` more, on the same lifted IR (the ISA tables are loaded; effects are recomputed);
* ``points``: ``live_before`` at every instruction (the per-instruction sets, computed per
  block on first use);
* ``free``: ``FreeRegisters`` on top (call graph, per-kernel usage and budgets);
* reference: ``llvm-objdump-19 -d`` on the same file in the same run (the nearest LLVM tool
  that reads every instruction of the object; LLVM has no liveness over machine code to
  compare with), and the ratio of our cold analysis time to its time.

Target: a cold analysis under 2 seconds on the ~50-thousand-instruction kernel (PASS/MISS).
It is a measurement script: it exits 0 whatever the figures.

    python bench/bench_liveness.py                     # both inputs, 3 warm runs
    python bench/bench_liveness.py --input test/corpus/kernels/calls.gfx90a.co --runs 1
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.analysis.free_registers import FreeRegisters
from luthier.passes.analysis.liveness import Liveness, instructions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from liveness_kernel import build as build_kernel  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
THIRDPARTY = ROOT / "build" / "thirdparty" / "codeobjects"
OBJDUMP = "llvm-objdump-19"
TARGET_SECONDS = 2.0
OBJDUMP_INSTRUCTION = re.compile(r"^\s+\S.*?//\s*[0-9A-Fa-f]+:(?:\s+[0-9A-Fa-f]{8})+")


@dataclass
class Result:
    label: str
    path: str
    functions: int
    blocks: int
    instructions: int
    cold_cpu: float
    warm_cpu: float
    points_cpu: float
    free_cpu: float
    warnings: int
    objdump_cpu: float | None


def cpu(action: Callable[[], Any]) -> tuple[Any, float]:
    start = time.process_time()
    value = action()
    return value, time.process_time() - start


def objdump_cpu(path: Path) -> float | None:
    """CPU seconds of ``llvm-objdump-19 -d`` on ``path`` (a child process)."""
    if shutil.which(OBJDUMP) is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([OBJDUMP, "-d", str(path)], check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def measure(label: str, path: Path, runs: int) -> Result:
    code_object = lift_code_object(read_code_object(path)).module
    assert isinstance(code_object, CodeObjectOp)
    liveness, cold = cpu(lambda: Liveness(code_object))
    warm = [cpu(lambda: Liveness(code_object))[1] for _ in range(runs)]
    fresh = Liveness(code_object)
    ops = [op for function in fresh.functions.values()
           for op in instructions(function.function)]
    _, points = cpu(lambda: [fresh.live_before(op) for op in ops])
    _, free = cpu(lambda: FreeRegisters(code_object, fresh))
    blocks = sum(len(function.blocks) for function in liveness.functions.values())
    return Result(label, str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
                  len(liveness.functions), blocks, len(ops), cold,
                  statistics.median(warm) if warm else cold, points, free,
                  len(liveness.warnings), objdump_cpu(path))


def report(result: Result, big_kernel: bool) -> list[str]:
    rate = result.instructions / result.cold_cpu if result.cold_cpu else float("inf")
    lines = [f"{result.label}: {result.path}",
             f"  {result.instructions} instructions, {result.blocks} blocks, "
             f"{result.functions} functions, {result.warnings} warnings",
             f"  liveness cold {result.cold_cpu:.3f} s CPU ({rate:,.0f} inst/s), "
             f"warm {result.warm_cpu:.3f} s",
             f"  live_before at every instruction {result.points_cpu:.3f} s, "
             f"FreeRegisters on top {result.free_cpu:.3f} s"]
    if result.objdump_cpu is not None:
        lines.append(f"  {OBJDUMP} -d {result.objdump_cpu:.3f} s CPU; liveness/objdump "
                     f"{result.cold_cpu / result.objdump_cpu:.2f}")
    if big_kernel:
        verdict = "PASS" if result.cold_cpu < TARGET_SECONDS else "MISS"
        lines.append(f"  target: cold liveness under {TARGET_SECONDS:.0f} s on the big "
                     f"kernel: {verdict}")
    return lines


def default_inputs() -> list[tuple[str, Path]]:
    inputs = [("kernel", build_kernel())]
    candidates = sorted(THIRDPARTY.rglob("*.gfx90a.co"), key=lambda path: path.stat().st_size)
    if candidates:
        inputs.append(("object", candidates[-1]))
    else:
        print(f"note: no third-party code objects under {THIRDPARTY} (run "
              "test/corpus/thirdparty/fetch.sh); measuring the big kernel only",
              file=sys.stderr)
    return inputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, action="append",
                        help="a code object to measure (repeatable); default: see above")
    parser.add_argument("--runs", type=int, default=3, help="warm runs (median)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    inputs = ([("input", path.resolve()) for path in args.input] if args.input
              else default_inputs())
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "unknown"
    print(f"bench_liveness at {head}, {args.runs} warm runs")
    results: list[Result] = []
    for label, path in inputs:
        result = measure(label, path, args.runs)
        results.append(result)
        print("\n".join(report(result, label == "kernel")))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(result) for result in results], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
