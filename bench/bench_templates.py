#!/usr/bin/env python3
"""Hook templates against the passes one by one: the same IR, in how much CPU time.

``lower-hooks`` compiles each hook once per shape and reuses allocations
(``passes/instrument/templates.py``); ``insert-hooks`` followed by the passes of
``lowering_passes()`` lowers every payload on its own. For each hook this prints both CPU
times, the template statistics, and whether the printed IR is the same (it must be);
``--profile`` adds cProfile's top lines of the templated lowering.

    python bench/bench_templates.py                 # hsa-runtime object, two hooks
    python bench/bench_templates.py --input test/corpus/kernels/lds.gfx90a.co --hook instr_count
    python bench/bench_templates.py --hook instr_count --profile --no-passes   # rocRAND-size inputs

Input: the hsa-runtime gfx90a object fetched by ``test/corpus/thirdparty/fetch.sh`` (3,212
instructions), else the bench kernels. A measurement: it never asserts a speed.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from io import StringIO
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from luthier.drivers.opt_main import load_hooks, merge_hooks
from luthier.drivers.pipeline import pipeline_context
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.instrument.insert_hooks import InsertHooksPass
from luthier.passes.instrument.pipeline import lowering_passes
from luthier.passes.instrument.templates import AllocationOptions, lower_hooks_with_templates

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / "examples" / "hooks"
HSA = ROOT / "build" / "thirdparty" / "codeobjects" / "libhsa-runtime64-1" / \
    "libhsa-runtime64.at-0x160800.gfx90a.co"
FALLBACK = ROOT / "test" / "corpus" / "bench" / "kernels.gfx90a.co"


def _inserted(path: Path, hooks: Path) -> ModuleOp:
    ctx = pipeline_context()
    module = ModuleOp([lift_code_object(read_code_object(path)).module])
    merge_hooks(module, load_hooks(ctx, str(hooks)), str(path), str(hooks))
    InsertHooksPass().apply(ctx, module)
    return module


def _text(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def measure(path: Path, hook: str, passes: bool, profile: bool) -> None:
    hooks = HOOKS / f"{hook}.mlir"
    ctx = pipeline_context()
    templated = _inserted(path, hooks)
    profiler = cProfile.Profile() if profile else None
    start = time.process_time()
    if profiler is not None:
        profiler.enable()
    stats = lower_hooks_with_templates(ctx, templated, AllocationOptions())
    if profiler is not None:
        profiler.disable()
    templated_seconds = time.process_time() - start
    assert stats is not None
    line = (f"{hook}: {stats.points} points, templates {templated_seconds:.2f} s CPU "
            f"({stats.shapes} shapes, {stats.allocated} allocations run, "
            f"{stats.reused} reused)")
    if passes:
        one_by_one = _inserted(path, hooks)
        start = time.process_time()
        for stage in lowering_passes():
            stage.apply(ctx, one_by_one)
        passes_seconds = time.process_time() - start
        same = "same IR" if _text(templated) == _text(one_by_one) else "DIFFERENT IR"
        line += (f"; passes one by one {passes_seconds:.2f} s CPU "
                 f"({passes_seconds / templated_seconds:.1f}x); {same}")
    print(line)
    if profiler is not None:
        stream = StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_stats(25)
        print(stream.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--input", type=Path, default=None)
    parser.add_argument("--hook", action="append", default=[],
                        help="example hooks (default: instr_count, opcode_histogram)")
    parser.add_argument("--no-passes", action="store_true",
                        help="time the templates only (the passes take minutes on a library)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile's top lines of the templated lowering")
    args = parser.parse_args()
    path: Path = args.input or (HSA if HSA.exists() else FALLBACK)
    print(f"input: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    for hook in args.hook or ["instr_count", "opcode_histogram"]:
        measure(path, hook, not args.no_passes, args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
