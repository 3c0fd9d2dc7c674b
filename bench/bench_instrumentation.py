#!/usr/bin/env python3
"""Instrumentation throughput at real scale: a hook before every instruction of a library
code object, stage by stage, against llvm-objdump-19 on the same file.

For each hook (default: instr_count, opcode_histogram, memory_trace) a fresh process runs
what ``luthier-opt --lift --inline-hooks --emit-preamble IN --hooks H -o OUT`` runs, and
reports the CPU time of each stage (lift, ``lower-hooks``, each stage of
``finalize-instrumentation``, emission), the insertion points, points per CPU second (over
the lowering and over the whole run), what the hook templates saved (shapes compiled,
shapes sharing another's code up to addends, allocations run and reused) and the process's
peak resident memory. ``llvm-objdump-19 -d`` on the same file, measured in the same run
(CPU time of the child), gives the ratio.

``--batch`` also times ``luthier-batch`` over several code objects (rocRAND's two gfx90a
code objects when fetched, else the corpus fat binaries) with ``--jobs 1`` and ``--jobs 2``
(wall time: the work is split by code object) and checks the outputs are the same bytes.

    python bench/bench_instrumentation.py                    # rocRAND gfx90a, ~1 min
    python bench/bench_instrumentation.py --input test/corpus/kernels/lds.gfx90a.co \
        --hook instr_count
    python bench/bench_instrumentation.py --batch --runs 1
    python bench/bench_instrumentation.py --hook instr_count --profile   # where the time goes
    python bench/bench_instrumentation.py --hook opcode_histogram --runs 3 --against 1fa214d

Input: the rocRAND gfx90a ``xnack-`` object fetched by ``test/corpus/thirdparty/fetch.sh``
(about 54,700 instructions), else the bench kernels. A measurement: it never asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
HOOKS = ROOT / "examples" / "hooks"
ROCRAND = ROOT / "build" / "thirdparty" / "codeobjects" / "librocrand1" / \
    "librocrand.xnack-.gfx90a.co"
FALLBACK = ROOT / "test" / "corpus" / "bench" / "kernels.gfx90a.co"

#: Runs in a fresh process: the stages of the user's command, timed by CPU time.
_WORKER = r"""
import json, resource, sys, time
from pathlib import Path
from xdsl.dialects.builtin import ModuleOp
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp
from luthier.amdgpu_dialects.collector import collector_paused
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.drivers.opt_main import load_hooks, merge_hooks
from luthier.drivers.pipeline import pipeline_context
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit.object_spec import emit_code_object
from luthier.passes.instrument.insert_hooks import InsertHooksPass
from luthier.passes.instrument.templates import AllocationOptions, lower_hooks_with_templates
from luthier.passes.layout.descriptors import update_descriptors
from luthier.passes.layout.relax_branches import relax_branches
from luthier.passes.layout.splice_payloads import splice_payloads
from luthier.passes.layout.tool_globals import export_tool_globals
from luthier.passes.preamble.emit import emit_preambles

path, hooks = sys.argv[1], sys.argv[2]
profiler = None
if sys.argv[3:] == ["profile"]:  # the stages after the lift, under cProfile (to stderr)
    import cProfile
    profiler = cProfile.Profile()
clock = time.process_time
times = {}
start = clock()
ctx = pipeline_context()
module = ModuleOp([lift_code_object(read_code_object(Path(path).read_bytes())).module])
times["lift"] = clock() - start
# As luthier-opt writing a code object runs them: the cyclic collector paused once from the
# passes to the bytes (and what is left frozen), lower_hooks(packed=True), then
# finalize-instrumentation's stages one by one.
if profiler is not None:
    profiler.enable()
with collector_paused(freeze=True):
    mark = clock()
    merge_hooks(module, load_hooks(ctx, hooks), path, hooks)
    InsertHooksPass().apply(ctx, module)
    # Payloads sit in the functions' blocks: no recursive walk (which would visit every
    # payload's body too, and cost as much as a stage).
    code_objects = [op for op in module.ops if isinstance(op, CodeObjectOp)]
    points = sum(1 for code_object in code_objects for function in code_object.body.ops
                 if isinstance(function, FunctionLikeOp) for block in function.body.blocks
                 for op in block.ops if isinstance(op, PayloadOp))
    stats = lower_hooks_with_templates(ctx, module, AllocationOptions(), packed=True)
    times["lower-hooks"] = clock() - mark
    for name, stage in (("preamble", emit_preambles), ("descriptors", update_descriptors),
                        ("splice", splice_payloads)):
        mark = clock()
        for code_object in code_objects:
            stage(code_object)
        times[name] = clock() - mark
    mark = clock()
    export_tool_globals(module)
    for code_object in code_objects:
        relax_branches(code_object)
    times["relax"] = clock() - mark
    mark = clock()
    data = emit_code_object(module)
    times["emit"] = clock() - mark
times["total"] = clock() - start
if profiler is not None:
    import pstats
    profiler.disable()
    stats_out = pstats.Stats(profiler, stream=sys.stderr)
    stats_out.sort_stats("cumulative").print_stats(30)
    stats_out.sort_stats("tottime").print_stats(20)
print(json.dumps({"times": times, "points": points, "bytes": len(data),
                  "shapes": stats.shapes, "members": stats.members,
                  "variants": stats.variants, "allocated": stats.allocated,
                  "reused": stats.reused,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _objdump_seconds(path: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["llvm-objdump-19", "-d", str(path)], stdout=subprocess.DEVNULL,
                   check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@dataclass(frozen=True)
class Result:
    """One run of the worker."""

    times: dict[str, float]
    points: int
    bytes: int
    shapes: int
    members: int
    variants: int
    allocated: int
    reused: int
    rss_mb: float


def _run(path: Path, hooks: Path, profile: bool = False, tree: Path | None = None) -> Result:
    """One worker run; with ``tree``, of the sources in that checkout (``--against``)."""
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(_package_of(tree))}
    result = subprocess.run([sys.executable, "-c", _WORKER, str(path), str(hooks),
                             *(["profile"] if profile else [])],
                            capture_output=True, text=True, check=False, env=env,
                            cwd=tree)
    if result.returncode:
        # The worker's own error (an import that fails, a refused input) says why.
        sys.exit(f"bench_instrumentation: the worker for {path.name} with {hooks.name} "
                 f"failed (exit {result.returncode}):\n{result.stderr.strip()}")
    if profile:
        print(result.stderr)
    fields = cast(dict[str, Any], json.loads(result.stdout.splitlines()[-1]))
    return Result(**fields)


def measure(path: Path, hook: str, runs: int, profile: bool = False) -> None:
    hooks = HOOKS / f"{hook}.mlir"
    results = [_run(path, hooks) for _ in range(runs)]
    if profile:
        print(f"{hook}: cProfile of one more run (lowering to emission; times inflated)")
        _run(path, hooks, profile=True)
    objdump = statistics.median(_objdump_seconds(path) for _ in range(3))
    times = {name: statistics.median(r.times[name] for r in results)
             for name in results[0].times}
    last = results[-1]
    points = last.points
    stages = "  ".join(f"{name} {seconds:.2f}" for name, seconds in times.items()
                       if name != "total")
    print(f"{hook}: {points} points, {times['total']:.2f} s CPU "
          f"({points / times['total']:.0f} points/s; lower-hooks "
          f"{points / max(times['lower-hooks'], 1e-9):.0f} points/s), "
          f"peak {last.rss_mb:.0f} MB, output {last.bytes} bytes")
    print(f"    stages (CPU s, median of {runs}): {stages}")
    print(f"    templates: {last.shapes} shapes ({last.members} lowered as another's code "
          f"with their own addends, {last.variants} codes made for them), "
          f"{last.allocated} allocations run, {last.reused} reused")
    print(f"    llvm-objdump-19 -d: {objdump:.3f} s CPU; luthier / objdump = "
          f"{times['total'] / objdump:.0f}x")


#: The project's folders that are subpackages of ``luthier`` (as setup.py maps them).
_SUBPACKAGES = ("amdgpu_dialects", "frontend", "lowering", "passes", "drivers", "conformance",
                "emulator")


def _package_of(tree: Path) -> Path:
    """A folder holding ``luthier`` as the checkout ``tree`` lays it out (``api/`` is the
    package, the other folders its subpackages), as symlinks, so that a worker imports
    that checkout's code whatever is installed."""
    root = tree / ".bench-package"
    package = root / "luthier"
    if not package.is_dir():
        package.mkdir(parents=True)
        (package / "__init__.py").symlink_to(tree / "api" / "__init__.py")
        for name in _SUBPACKAGES:
            if (tree / name / "__init__.py").is_file():
                (package / name).symlink_to(tree / name)
    return root


def compare(path: Path, hook: str, runs: int, revision: str) -> None:
    """The worker on ``revision`` and on this checkout, alternately, ``runs`` pairs: on a
    machine whose speed drifts from one minute to the next, only pairs taken close
    together show a change of a few percent. Prints each pair's CPU time and peak memory,
    and whether the outputs have the same size."""
    hooks = HOOKS / f"{hook}.mlir"
    with tempfile.TemporaryDirectory() as scratch:
        other = Path(scratch) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet",
                        str(other), revision], check=True)
        try:
            pairs = [(_run(path, hooks, tree=other), _run(path, hooks, tree=ROOT))
                     for _ in range(runs)]
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(other)], check=True)
            shutil.rmtree(ROOT / ".bench-package", ignore_errors=True)
    for before, after in pairs:
        print(f"{hook}: {revision} {before.times['total']:.2f} s, {before.rss_mb:.0f} MB; "
              f"this tree {after.times['total']:.2f} s, {after.rss_mb:.0f} MB; output "
              f"{'same size' if before.bytes == after.bytes else 'SIZE DIFFERS'}")
    print(f"{hook}: median of {runs} pairs: {revision} "
          f"{statistics.median(b.times['total'] for b, _ in pairs):.2f} s, this tree "
          f"{statistics.median(a.times['total'] for _, a in pairs):.2f} s CPU")


def batch(inputs: list[Path], runs: int) -> None:
    walls: dict[int, float] = {}
    digests: dict[int, dict[str, bytes]] = {}
    for jobs in (1, 2):
        samples: list[float] = []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as out:
                start = time.perf_counter()
                subprocess.run(["luthier-batch", *map(str, inputs), "--hooks",
                                str(HOOKS / "instr_count.mlir"), "-o", out, "--jobs",
                                str(jobs), "--no-progress"], check=True)
                samples.append(time.perf_counter() - start)
                digests[jobs] = {p.name: p.read_bytes() for p in Path(out).iterdir()}
        walls[jobs] = statistics.median(samples)
    same = "same bytes" if digests[1] == digests[2] else "DIFFERENT BYTES"
    print(f"luthier-batch over {len(inputs)} code objects: --jobs 1 {walls[1]:.1f} s, "
          f"--jobs 2 {walls[2]:.1f} s wall, speed-up {walls[1] / walls[2]:.2f}x ({same})")


def split(path: Path, hook: str, runs: int) -> None:
    """The user's command on one object with ``--jobs 1`` and ``--jobs 2``: wall time (the
    figure parallel work changes), the CPU time of the process and its workers, and whether
    the bytes agree. The two alternate, run by run, so that a machine whose speed drifts
    (a shared VM) slows both alike. Beside it, the most two processes give on this machine
    at that time (:func:`_two_process_ceiling`)."""
    walls: dict[int, list[float]] = {1: [], 2: []}
    cpus: dict[int, list[float]] = {1: [], 2: []}
    outputs: dict[int, bytes] = {}
    ceilings: list[float] = []
    for _ in range(runs):
        for jobs in (1, 2):
            with tempfile.TemporaryDirectory() as out:
                target = Path(out) / "out.co"
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "luthier.drivers.luthier_opt",
                                "--lift", "--inline-hooks", "--emit-preamble", str(path),
                                "--hooks", str(HOOKS / f"{hook}.mlir"), "-o", str(target),
                                "--jobs", str(jobs), "--no-progress"], check=True)
                walls[jobs].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus[jobs].append(after.ru_utime - before.ru_utime
                                  + after.ru_stime - before.ru_stime)
                outputs[jobs] = target.read_bytes()
        ceilings.append(_two_process_ceiling())
    wall = {jobs: statistics.median(samples) for jobs, samples in walls.items()}
    cpu = {jobs: statistics.median(samples) for jobs, samples in cpus.items()}
    ratios = [one / two for one, two in zip(walls[1], walls[2], strict=True)]
    same = "same bytes" if outputs[1] == outputs[2] else "DIFFERENT BYTES"
    print(f"luthier-opt {hook} on one object, median of {runs} alternating pairs: --jobs 1 "
          f"{wall[1]:.2f} s wall ({cpu[1]:.2f} s CPU), --jobs 2 {wall[2]:.2f} s wall "
          f"({cpu[2]:.2f} s CPU with its workers); speed-up {wall[1] / wall[2]:.2f}x "
          f"(per pair: {', '.join(f'{ratio:.2f}' for ratio in ratios)}) ({same})")
    print(f"    two CPU-bound Python processes on this machine, the same minutes: "
          f"{statistics.median(ceilings):.2f}x the throughput of one (median of "
          f"{', '.join(f'{ceiling:.2f}' for ceiling in ceilings)}): the most --jobs 2 "
          "can give here")


#: A pure-Python loop of about a second: the same work alone and twice at once.
_SPIN = "n = 0\nfor i in range(12_000_000):\n    n += i * i % 7\n"


def _two_process_ceiling() -> float:
    """How much faster two processes of pure-Python work finish than the same work done
    one after the other: 2.0 on two idle cores; less when the two virtual cores share a
    physical one, or the host is busy (this VM has shown 1.5-1.8)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _SPIN], check=True)
    alone = time.perf_counter() - start
    start = time.perf_counter()
    both = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(2)]
    for process in both:
        process.wait()
    together = time.perf_counter() - start
    return 2 * alone / together


def _batch_inputs() -> list[Path]:
    """What ``--batch`` instruments: rocRAND's gfx90a code objects (``xnack-`` and
    ``xnack+``, about 55k instructions each: the library at real scale, one code object per
    worker), else the corpus fat binaries."""
    library = sorted(ROCRAND.parent.glob("librocrand.*.gfx90a.co"))
    if len(library) >= 2:
        return library
    return sorted((ROOT / "test" / "corpus" / "kernels").glob("*.hipfb"))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--input", type=Path, default=None)
    parser.add_argument("--hook", action="append", default=[],
                        help="example hooks (default: instr_count, opcode_histogram, "
                             "memory_trace)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--profile", action="store_true",
                        help="also print a cProfile of one run per hook (lowering to emission)")
    parser.add_argument("--batch", action="store_true",
                        help="also time luthier-batch --jobs 1 and 2 over rocRAND's gfx90a "
                             "code objects (else the corpus bundles)")
    parser.add_argument("--split", action="store_true",
                        help="also time luthier-opt --jobs 1 and 2 on the input (one code "
                             "object, its functions split between two workers), by wall "
                             "time: run it on an otherwise idle machine")
    parser.add_argument("--against", metavar="REVISION", default=None,
                        help="instead: run the worker on REVISION (a temporary git worktree) "
                             "and on this checkout alternately, --runs pairs per hook")
    args = parser.parse_args()
    path: Path = args.input or (ROCRAND if ROCRAND.exists() else FALLBACK)
    print(f"input: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    if args.against is not None:
        for hook in args.hook or ["instr_count", "opcode_histogram", "memory_trace"]:
            compare(path, hook, args.runs, args.against)
        return 0
    for hook in args.hook or ["instr_count", "opcode_histogram", "memory_trace"]:
        measure(path, hook, args.runs, args.profile)
    if args.split:
        for hook in args.hook or ["instr_count"]:
            split(path, hook, args.runs)
    if args.batch:
        batch(_batch_inputs(), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
