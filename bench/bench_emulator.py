#!/usr/bin/env python3
"""Speed and semantic coverage of the luthier emulator (``luthier.emulator``).

Speed: one corpus kernel over a grid of at least 64 waves (by default
``control_flow.gfx90a.co:data_dependent_loop``, a divergent Collatz loop, 16 workgroups of
256 work-items = 64 waves), compiled once, run ``--runs`` times; the best run is reported:

* executed instructions per second (wall and CPU time of ``run_kernel``, argument copies
  and result copies included, compilation excluded);
* lane-operations per second, two ways: ``slots`` counts every executed instruction as one
  operation per lane of the wave (what a vectorized emulator processes), ``active`` counts
  only vector instructions (VALU, VMEM, DS, MFMA), times the lanes EXEC had active when
  each ran (counted in a separate, untimed run with a counting wrapper around each step).

The target of the emulator issue is 1 million lane-operations per second; the script says
PASS or MISS for both counts. It is a measurement, not a test: it exits 0 whatever the
figures.

Coverage (``--coverage``): lifts every code object of ``test/corpus/kernels`` and prints the
mnemonics that have semantics, those that do not, and the share of the corpus's static
instructions whose mnemonic has semantics.

    python bench/bench_emulator.py
    python bench/bench_emulator.py --kernel vector_add --runs 5
    python bench/bench_emulator.py --coverage
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.mnemonics import INSTRUCTION_KINDS
from luthier.emulator.api import KernelArgument, load_program, run_kernel
from luthier.emulator.program import Program, semantics_of
from luthier.emulator.semantics.registry import Step
from luthier.emulator.state import Wave
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "test" / "corpus" / "kernels"
TARGET_LANE_OPS = 1_000_000.0
RNG = np.random.default_rng(1)


@dataclass(frozen=True)
class Workload:
    """A corpus kernel and how to launch it for ``waves`` waves of 64 lanes."""

    source: str
    kernel: str
    block: int
    arguments: Callable[[int], list[KernelArgument]]


def _floats(n: int) -> npt.NDArray[np.float32]:
    return RNG.standard_normal(n).astype(np.float32)


WORKLOADS: dict[str, Workload] = {
    "data_dependent_loop": Workload(
        "control_flow", "data_dependent_loop", 256,
        lambda n: [RNG.integers(1, 2000, n).astype(np.int32), np.zeros(n, np.int32)]),
    "vector_add": Workload(
        "elementwise", "vector_add", 256,
        lambda n: [_floats(n), _floats(n), np.zeros(n, np.float32), n]),
    "counted_loop": Workload(
        "control_flow", "counted_loop", 256,
        lambda n: [_floats(n), np.zeros(n, np.float32), 32]),
    "block_reduce_sum": Workload(
        "lds", "block_reduce_sum", 256,
        lambda n: [_floats(n), np.zeros(n // 256, np.float32), n]),
}

#: Mnemonic prefixes of instructions that operate per lane.
VECTOR_PREFIXES = ("v_", "global_", "flat_", "scratch_", "buffer_", "ds_")


def _count_active(program: Program) -> tuple[list[Step], dict[str, int]]:
    """Steps wrapped to count active lanes of vector instructions (the untimed run)."""
    totals = {"active": 0}
    original = list(program.steps)
    wrapped: list[Step] = []
    for inst, step in zip(program.instructions, original, strict=True):
        if not inst.mnemonic.startswith(VECTOR_PREFIXES):
            wrapped.append(step)
            continue

        def counting(wave: Wave, step: Step = step) -> int:
            totals["active"] += wave.exec_bits.bit_count()
            return step(wave)

        wrapped.append(counting)
    return wrapped, totals


def speed(args: argparse.Namespace) -> dict[str, Any]:
    workload = WORKLOADS[args.kernel]
    path = CORPUS / f"{workload.source}.{args.target}.co"
    started = time.perf_counter()
    program = load_program(path)
    compile_seconds = time.perf_counter() - started
    work_items = args.waves * 64
    grid = work_items // workload.block
    best: dict[str, float] = {}
    result = None
    for _ in range(args.runs):
        arguments = workload.arguments(work_items)
        wall, cpu = time.perf_counter(), time.process_time()
        result = run_kernel(program, workload.kernel, grid, workload.block, arguments)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if not best or wall < best["wall"]:
            best = {"wall": wall, "cpu": cpu}
    assert result is not None
    steps, totals = _count_active(program)
    timed_steps = program.steps
    program.steps = steps
    try:
        run_kernel(program, workload.kernel, grid, workload.block,
                   workload.arguments(work_items))
    finally:
        program.steps = timed_steps
    instructions = result.instructions
    slots = instructions * result.wave_size
    report = {
        "code_object": str(path.relative_to(ROOT)), "kernel": workload.kernel,
        "grid": grid, "block": workload.block, "waves": result.waves,
        "instructions": instructions, "compile_seconds": compile_seconds,
        "wall_seconds": best["wall"], "cpu_seconds": best["cpu"],
        "instructions_per_second": instructions / best["wall"],
        "lane_slots_per_second": slots / best["wall"],
        "active_lane_operations": totals["active"],
        "active_lane_operations_per_second": totals["active"] / best["wall"],
    }
    print(f"kernel: {report['code_object']}:{workload.kernel}, grid {grid} x block "
          f"{workload.block} = {result.waves} waves of {result.wave_size} lanes")
    print(f"load (read + lift + compile): {compile_seconds * 1e3:.1f} ms")
    print(f"run (best of {args.runs}): {best['wall'] * 1e3:.1f} ms wall, "
          f"{best['cpu'] * 1e3:.1f} ms cpu")
    print(f"executed instructions: {instructions}  "
          f"({instructions / best['wall']:,.0f} instructions/s)")
    print(f"lane-operations (slots: instructions x {result.wave_size}): "
          f"{slots / best['wall']:,.0f}/s")
    print(f"lane-operations (active lanes of vector instructions): {totals['active']} "
          f"({totals['active'] / best['wall']:,.0f}/s)")
    for name, rate in (("slots", slots / best["wall"]),
                       ("active", totals["active"] / best["wall"])):
        verdict = "PASS" if rate >= TARGET_LANE_OPS else "MISS"
        print(f"target {TARGET_LANE_OPS:,.0f} lane-operations/s ({name}): {verdict}")
    return report


def coverage(args: argparse.Namespace) -> dict[str, Any]:
    counts: collections.Counter[str] = collections.Counter()
    files = sorted(CORPUS.glob("*.co"))
    for path in files:
        module = lift_code_object(read_code_object(path)).module
        for op in module.walk():
            if isinstance(op, InstructionOpBase):
                counts[op.mnemonic] += 1
    total = sum(counts.values())
    covered = {m: n for m, n in counts.items() if semantics_of(m) is not None}
    missing = {m: n for m, n in counts.items() if semantics_of(m) is None}
    share = sum(covered.values()) / total if total else 0.0
    print(f"corpus: {len(files)} code objects, {total} static instructions, "
          f"{len(counts)} mnemonics")
    known = [m for m in INSTRUCTION_KINDS if semantics_of(m) is not None]
    print(f"mnemonics with semantics: {len(known)} of the {len(INSTRUCTION_KINDS)} mnemonics "
          f"of the dialect (encodings _e32/_e64/_sdwa counted apart)")
    print(f"corpus mnemonics with semantics: {len(covered)} of {len(counts)}; "
          f"static instructions covered: {sum(covered.values())} of {total} "
          f"({100 * share:.2f}%)")
    print("without semantics: " + (", ".join(f"{m} ({n})" for m, n in sorted(
        missing.items(), key=lambda item: -item[1])) or "none"))
    if args.list:
        print("with semantics (corpus count):")
        for mnemonic in sorted(covered):
            print(f"  {mnemonic} {covered[mnemonic]}")
        print("all mnemonics with semantics:")
        print("  " + " ".join(sorted(known)))
    return {"files": len(files), "instructions": total, "covered": sum(covered.values()),
            "share": share, "missing": missing, "with_semantics": sorted(known)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--kernel", choices=sorted(WORKLOADS), default="data_dependent_loop")
    parser.add_argument("--target", choices=("gfx90a", "gfx942"), default="gfx90a")
    parser.add_argument("--waves", type=int, default=64, help="waves in the grid (>= 64)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--coverage", action="store_true",
                        help="print semantic coverage of the corpus instead of speed")
    parser.add_argument("--list", action="store_true",
                        help="with --coverage: list every mnemonic with semantics")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.waves < 1 or args.waves * 64 % WORKLOADS[args.kernel].block:
        parser.error(f"--waves must make whole workgroups of {WORKLOADS[args.kernel].block}")
    report = coverage(args) if args.coverage else speed(args)
    if args.json is not None:
        args.json.write_text(json.dumps({"result": report}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
