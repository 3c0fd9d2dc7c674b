#!/usr/bin/env python3
"""Instrumenting big branchy kernels: CPU time of each stage, and how branch relaxation grows
with the kernel.

The kernels are test/corpus/bench/branchy.<size>.gfx90a.co (gen_branchy.py: a loop around a
switch of many cases, split over two consecutive loops at 40k so that clang-19 needs no long
jump; 5k, 10k, 20k and 40k instructions, about one branch in three instructions). Each is
instrumented before every instruction with examples/hooks/instr_count.mlir, as ``luthier-opt
--lift --inline-hooks --emit-preamble IN.co --hooks instr_count.mlir -o OUT.co`` would, in
this process, and each stage is timed in CPU seconds (``time.process_time``): lift, lowering
(``lower-hooks``), preamble + descriptors, splicing (payloads into the functions, tool
globals), relaxation (``relax-branches``: the kernel grows ~20x, so hundreds of branches fall
out of the +-128 KiB reach) and emission, which refuses a branch that does not reach its
target. ``llvm-objdump-19 -d`` of the same input is timed in the same run (CPU of the child)
for a ratio. With ``--runs N`` each figure is the median of N runs.

After the table it prints relaxation's growth: seconds per size and the exponent between
consecutive sizes (log of the time ratio over log of the instruction ratio: 1 is linear,
2 quadratic), then over the whole range measured (smallest to largest size). A measurement
script: it asserts no speed and exits 0 whatever the figures (1 only when the pipeline
fails).

    python bench/bench_relaxation.py                 # all sizes (minutes: lowering dominates)
    python bench/bench_relaxation.py --sizes 5k,10k --runs 3
    python bench/bench_relaxation.py --sizes 5k --real   # and rocPRIM's radix sort

The objdump column of the real kernel times the whole object it comes from (its ratio
says little).
"""

from __future__ import annotations

import argparse
import math
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xdsl.context import Context  # noqa: E402
from xdsl.dialects import arith, scf  # noqa: E402
from xdsl.dialects.builtin import Builtin, ModuleOp  # noqa: E402

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect  # noqa: E402
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase  # noqa: E402
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCodeOp  # noqa: E402
from luthier.amdgpu_dialects.amdgpu_mc.structure import (  # noqa: E402
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.collector import collector_paused  # noqa: E402
from luthier.amdgpu_dialects.instr.dialect import INSTR  # noqa: E402
from luthier.amdgpu_dialects.isa.target import load_target  # noqa: E402
from luthier.drivers.opt_main import load_hooks, merge_hooks  # noqa: E402
from luthier.frontend.codeobj import read_code_object  # noqa: E402
from luthier.frontend.lift import LiftOptions, lift_code_object  # noqa: E402
from luthier.lowering.emit.object_spec import emit_code_object  # noqa: E402
from luthier.passes.instrument.pipeline import lower_hooks  # noqa: E402
from luthier.passes.layout.descriptors import update_descriptors  # noqa: E402
from luthier.passes.layout.relax_branches import relax_function  # noqa: E402
from luthier.passes.layout.splice_payloads import splice_payloads  # noqa: E402
from luthier.passes.layout.tool_globals import export_tool_globals  # noqa: E402
from luthier.passes.preamble.emit import emit_preambles  # noqa: E402

KERNELS = ROOT / "test" / "corpus" / "bench"
HOOKS = ROOT / "examples" / "hooks"
SIZES = ("5k", "10k", "20k", "40k")
#: The kernel that motivated the pass (issue 23): rocPRIM's segmented radix sort in
#: rocSPARSE, 19,887 instructions and 1,035 branches, 2.4 MB after splicing; in the large
#: set of ``test/corpus/thirdparty/fetch.sh --large`` (``--real`` measures it).
REAL_OBJECT = ROOT / "build" / "thirdparty-large" / "codeobjects" / "librocsparse0" \
    / "librocsparse.xnack-.108.gfx90a.co"
REAL_KERNEL = ("_ZN7rocprim6detail21segmented_sort_kernelINS0_35default_segmented_radix_sort_"
               "configILj0EllEELb0ELj256EPlS4_S4_S4_PKlEEvT2_PNSt15iterator_traitsIS7_E10value_"
               "typeET3_T4_PNS8_ISD_E10value_typeET5_bT6_SI_jjjj")
STAGES = ("lift", "lowering", "preamble", "splicing", "relaxation", "emission")
OBJDUMP = "llvm-objdump-19"


@dataclass
class Run:
    """One instrumentation of one kernel: CPU seconds per stage, and what relaxation met."""

    seconds: dict[str, float] = field(default_factory=lambda: dict[str, float]())
    instructions: int = 0
    branches: int = 0
    spliced: int = 0
    islands: int = 0
    rounds: int = 0
    output_bytes: int = 0


def _context() -> Context:
    context = Context()
    for dialect in (Builtin, make_dialect(), INSTR, arith.Arith, scf.Scf):
        context.load_dialect(dialect)
    return context


def _instructions(code_objects: list[CodeObjectOp]) -> tuple[int, int]:
    """Instructions and branches in the code objects' functions (packed code counts its
    instructions)."""
    count = branches = 0
    for code_object in code_objects:
        for op in code_object.walk():
            if isinstance(op, InstructionOpBase):
                count += 1
                branches += op.KIND == "branch"
            elif isinstance(op, PackedCodeOp):
                count += len(op.code.data.ops)
    return count, branches


def instrument(path: Path, hooks: Path, kernels: tuple[str, ...] = ()) -> Run:
    """The user's command on ``path`` (with ``--kernel`` for each of ``kernels``), stage
    by stage."""
    run = Run()

    def stage(name: str, work: Callable[[], None]) -> None:
        start = time.process_time()
        work()
        run.seconds[name] = time.process_time() - start

    context = _context()
    module = ModuleOp([])

    def lift() -> None:
        module.body.block.add_op(lift_code_object(read_code_object(path),
                                                  LiftOptions(kernels=kernels)).module)

    stage("lift", lift)
    code_objects = [op for op in module.walk() if isinstance(op, CodeObjectOp)]
    run.instructions, run.branches = _instructions(code_objects)

    def lower() -> None:  # as luthier-opt writing a code object lowers
        merge_hooks(module, load_hooks(context, str(hooks)), path.name, hooks.name)
        lower_hooks(context, module, packed=True)

    def preamble() -> None:
        for code_object in code_objects:
            emit_preambles(code_object)
            update_descriptors(code_object)

    def splice() -> None:
        for code_object in code_objects:
            splice_payloads(code_object)
        export_tool_globals(module)

    def relax() -> None:
        for code_object in code_objects:
            isa = load_target(code_object.processor)
            for function in code_object.body.ops:
                if isinstance(function, FunctionLikeOp):
                    done = relax_function(function, isa)
                    run.islands += done.islands
                    run.rounds = max(run.rounds, done.rounds)

    def emit() -> None:
        run.output_bytes = len(emit_code_object(module))

    stage("lowering", lower)
    with collector_paused():  # as finalize-instrumentation runs
        stage("preamble", preamble)
        stage("splicing", splice)
        run.spliced = _instructions(code_objects)[0]
        stage("relaxation", relax)
    stage("emission", emit)
    return run


def objdump_seconds(path: Path) -> float | None:
    """CPU seconds of ``llvm-objdump-19 -d`` on ``path`` (None when it is not installed)."""
    if shutil.which(OBJDUMP) is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([OBJDUMP, "-d", str(path)], check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_run(runs: list[Run]) -> Run:
    """The counts of the first run with the median of each stage's seconds."""
    merged = runs[0]
    merged.seconds = {name: statistics.median(run.seconds[name] for run in runs)
                      for name in STAGES}
    return merged


def _exponent(small: tuple[int, float], large: tuple[int, float]) -> float | None:
    """How relaxation time grows from ``small`` to ``large`` (instructions after splicing,
    seconds): log of the time ratio over log of the instruction ratio, None when either
    time is zero or the sizes do not grow."""
    (small_size, small_seconds), (large_size, large_seconds) = small, large
    if small_seconds <= 0 or large_seconds <= 0 or large_size <= small_size:
        return None
    return math.log(large_seconds / small_seconds) / math.log(large_size / small_size)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default=",".join(SIZES),
                        help=f"comma-separated kernel sizes among {', '.join(SIZES)}")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (median)")
    parser.add_argument("--hook", default="instr_count",
                        help="an example hook, examples/hooks/HOOK.mlir (default instr_count)")
    parser.add_argument("--real", action="store_true",
                        help="also rocPRIM's segmented radix sort kernel from rocSPARSE (the "
                             "large set: test/corpus/thirdparty/fetch.sh --large), alone")
    args = parser.parse_args()
    sizes = [size for size in args.sizes.split(",") if size]
    unknown = [size for size in sizes if size not in SIZES]
    if unknown:
        parser.error(f"unknown sizes {', '.join(unknown)} (have {', '.join(SIZES)})")
    hooks = HOOKS / f"{args.hook}.mlir"
    print(f"instrumentation with {hooks.name} before every instruction; CPU seconds "
          f"(median of {args.runs})")
    print(f"{'kernel':24} {'instrs':>7} {'branches':>8} {'spliced':>8} {'islands':>7} "
          f"{'rounds':>6} " + " ".join(f"{name:>10}" for name in STAGES)
          + f" {'total':>8} {'objdump':>8} {'ratio':>7}")
    relaxation: list[tuple[str, int, float]] = []
    inputs: list[tuple[str, Path, tuple[str, ...]]] = [
        (size, KERNELS / f"branchy.{size}.gfx90a.co", ()) for size in sizes]
    if args.real:
        if not REAL_OBJECT.exists():
            parser.error(f"{REAL_OBJECT.relative_to(ROOT)} is missing: run bash "
                         "test/corpus/thirdparty/fetch.sh --large")
        inputs.append(("sort", REAL_OBJECT, (REAL_KERNEL,)))
    for size, path, kernels in inputs:
        try:
            run = median_run([instrument(path, hooks, kernels) for _ in range(args.runs)])
        except Exception as error:  # report and go on: a measurement, not a test
            print(f"{path.name}: instrumentation failed: {type(error).__name__}: {error}")
            return 1
        objdump = objdump_seconds(path)
        total = sum(run.seconds.values())
        ratio = f"{total / objdump:.0f}x" if objdump else "-"
        objdump_text = f"{objdump:.3f}" if objdump is not None else "-"
        print(f"{path.name:24} {run.instructions:>7} {run.branches:>8} {run.spliced:>8} "
              f"{run.islands:>7} {run.rounds:>6} "
              + " ".join(f"{run.seconds[name]:>10.2f}" for name in STAGES)
              + f" {total:>8.2f} {objdump_text:>8} {ratio:>7}")
        if not kernels:  # the growth is measured over the generated family
            relaxation.append((size, run.spliced, run.seconds["relaxation"]))
    print()
    print("relaxation growth (exponent: log time ratio / log instruction ratio; 1 = linear)")
    previous: tuple[int, float] | None = None
    for size, spliced, seconds in relaxation:
        growth = _exponent(previous, (spliced, seconds)) if previous is not None else None
        exponent = f"{growth:.2f}" if growth is not None else "-"
        rate = spliced / seconds if seconds > 0 else 0.0
        print(f"  {size:>4}: {spliced:>8} instructions after splicing, {seconds:7.2f} s "
              f"({rate:,.0f} instructions/s), exponent {exponent}")
        previous = (spliced, seconds)
    overall = _exponent(relaxation[0][1:], relaxation[-1][1:]) if len(relaxation) > 1 else None
    if overall is not None:
        print(f"  overall exponent {relaxation[0][0]} -> {relaxation[-1][0]}: {overall:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
