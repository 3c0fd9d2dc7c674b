"""End to end: the HIP example tools (examples/hooks/*.hip), compiled by clang-19 and
imported, instrument every corpus kernel, and the emulator confirms what they record.

For each corpus code object of every target (gfx908, gfx90a, gfx942; gfx1030, gfx1100 and
gfx1201 in wave32 and wave64: the hooks are compiled for each, in its wave size) the user's
command runs once per tool
(``luthier-opt --lift --inline-hooks --emit-preamble IN.co --hooks TOOL.hip -o OUT.co``),
and for every launch of :data:`cases.LAUNCHES` the instrumented kernel computes what the
original computes (every buffer bitwise, every application global), while:

* ``instr_count_vector`` (per wave: the first active lane adds 1) counted the issues with
  EXEC not empty, and per thread (its constant argument flipped) the active lanes;
* ``instr_count_scalar`` (EXEC = 1 for the add) counted every issue per wave, and the
  active lanes per thread;
* ``grid_dim`` recorded the launch's grid, for 1-D launches and, on the elementwise
  kernels, 2-D and 3-D ones;
* a hook that only calls ``atomicAdd(&Counter, 1)`` counted once per active lane, as
  HIP's SIMT model says (not once per wave).

The truth is the original run's trace (:class:`~luthier.emulator.trace.ExecutionTrace`),
over the kernels' own instructions (the insertions name no device function).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from luthier.emulator.api import RunResult, load_program, run_kernel

from .cases import LAUNCHES, TARGETS, Launch, corpus_file, objects_of
from .test_instrumented_corpus import (
    ALL_TARGETS,
    EVERY_CASE,
    Job,
    LuthierOpt,
    application_globals,
    finished_output,
    original_run,
    run_instrumentation,
)

ROOT = Path(__file__).resolve().parents[3]
HOOK_DIR = ROOT / "examples" / "hooks"

pytestmark = pytest.mark.skipif(shutil.which("clang-19") is None,
                                reason="HIP hooks need clang-19 (scripts/setup.sh installs it)")

#: (tool file stem, the LUTHIER_INSERT constant it ships with, the flipped one).
COUNTERS = {"instr_count_vector": ("1 : i1", "0 : i1"),
            "instr_count_scalar": ("0 : i1", "1 : i1")}
#: The objects on which the counters also run with their constant flipped.
FLIPPED_ON = ("elementwise", "control_flow")
#: A hook with no lane selection: HIP's atomicAdd runs in every active lane (SIMT), so
#: it counts active lanes, not waves.
SIMT_COUNT = """#include "luthier_hooks.h"
LUTHIER_GLOBAL unsigned long long GlobalCounter;
LUTHIER_HOOK void everyLane() { atomicAdd(&GlobalCounter, 1ull); }
LUTHIER_INSERT(everyLane, at = "instruction");
"""
#: Variants: the tool as shipped, each counter flipped (suffix "_flipped"), the SIMT
#: counter.
VARIANTS = ("instr_count_vector", "instr_count_scalar", "grid_dim",
            "instr_count_vector_flipped", "instr_count_scalar_flipped", "simt_count")

Key = tuple[str, str, str]


#: The RDNA objects CI instruments with the HIP tools (``LUTHIER_E2E_ALL=1``: all of them).
RDNA_CI_OBJECTS = ("control_flow", "calls", "elementwise")


def _objects(target: str) -> tuple[str, ...]:
    """The corpus objects the HIP tools instrument on ``target``: on RDNA in CI, the three
    whose kernels branch, call and read the work-item ids (the example MLIR hooks run every
    RDNA object in test_instrumented_corpus), to keep the suite within its time."""
    if EVERY_CASE or target in TARGETS:
        return objects_of(target)
    return tuple(obj for obj in objects_of(target) if obj in RDNA_CI_OBJECTS)


def _variants(obj: str, target: str) -> list[str]:
    """The variants ``obj`` gets on ``target``. Without ``LUTHIER_E2E_ALL=1`` (CI), RDNA
    runs the shipped tools only, and its wave64 builds the one whose code reads the wave's
    lane mask and lane ids (instr_count_vector), to keep the suite within its time."""
    shipped = ("instr_count_vector", "instr_count_scalar", "grid_dim")
    if target not in TARGETS and not EVERY_CASE:
        return ["instr_count_vector"] if target.endswith(".w64") else list(shipped)
    return [variant for variant in VARIANTS if variant in shipped or obj in FLIPPED_ON]


class HipInstrumenter:
    """The user's command for every (object, target, variant), two at a time."""

    def __init__(self, folder: Path, luthier_opt: LuthierOpt) -> None:
        self.folder = folder
        self.luthier_opt = luthier_opt
        for stem, (shipped, flipped) in COUNTERS.items():
            text = (HOOK_DIR / f"{stem}.hip").read_text()
            assert f"#instr.const<{shipped}>" in text
            (folder / f"{stem}_flipped.hip").write_text(
                text.replace(f"#instr.const<{shipped}>", f"#instr.const<{flipped}>"))
        (folder / "simt_count.hip").write_text(SIMT_COUNT)
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.jobs: dict[Key, Job] = {
            (obj, target, variant): self.pool.submit(self._run, obj, target, variant)
            for target in ALL_TARGETS for obj in _objects(target)
            for variant in _variants(obj, target)}

    def _hooks(self, variant: str) -> Path:
        if variant.endswith("_flipped") or variant == "simt_count":
            return self.folder / f"{variant}.hip"
        return HOOK_DIR / f"{variant}.hip"

    def _run(self, obj: str, target: str,
             variant: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
        return run_instrumentation(corpus_file(obj, target), self._hooks(variant),
                                   self.folder / f"{obj}.{target}.{variant}.co",
                                   self.luthier_opt)

    def output(self, obj: str, target: str, variant: str) -> Path:
        return finished_output(self.jobs[(obj, target, variant)], f"{obj}.{target}.co",
                               f"{variant}.hip")


@pytest.fixture(scope="module")
def hip_instrumenter(tmp_path_factory: pytest.TempPathFactory,
                     luthier_opt: LuthierOpt) -> Iterator[HipInstrumenter]:
    instrumenter = HipInstrumenter(tmp_path_factory.mktemp("hip_tools"), luthier_opt)
    yield instrumenter
    instrumenter.pool.shutdown(cancel_futures=True)


def _run(path: Path, launch: Launch, grid: int | tuple[int, ...] | None = None) -> RunResult:
    return run_kernel(load_program(path), launch.kernel,
                      launch.grid if grid is None else grid, launch.block,
                      launch.arguments(), dynamic_lds=launch.dynamic_lds)


def _same_computation(original: RunResult, instrumented: RunResult, path: Path,
                      launch: Launch, target: str, tool: set[str]) -> None:
    for position, (before, after) in enumerate(zip(original.buffers, instrumented.buffers,
                                                   strict=True)):
        assert (before is None) == (after is None), f"argument {position}"
        if before is not None and after is not None:
            assert before.tobytes() == after.tobytes(), f"buffer argument {position} differs"
    assert application_globals(instrumented, load_program(path), tool) == \
        application_globals(original, load_program(corpus_file(launch.obj, target)),
                            set())


def _counter(result: RunResult) -> int:
    return int(np.frombuffer(result.globals["GlobalCounter"], np.uint64)[0])


def _in_suite(launch: Launch, target: str) -> bool:
    """Whether the suite runs ``launch`` on ``target``: every launch on CDNA; on RDNA, in CI
    (without ``LUTHIER_E2E_ALL=1``), the first launch of each object, for time (the example
    MLIR hooks run every RDNA launch in test_instrumented_corpus)."""
    if EVERY_CASE or target in TARGETS:
        return True
    return launch is next(other for other in LAUNCHES if other.obj == launch.obj)


#: Every launch on every target with each variant its object gets.
CASES = [pytest.param(launch, target, variant, id=f"{launch.id}-{target}-{variant}")
         for target in ALL_TARGETS for launch in LAUNCHES
         if launch.obj in _objects(target) and launch.runs_on(target)
         and _in_suite(launch, target)
         for variant in _variants(launch.obj, target)]


@pytest.mark.parametrize(("launch", "target", "variant"), CASES)
def test_hip_tool_counts_and_keeps_the_results(hip_instrumenter: HipInstrumenter,
                                               launch: Launch, target: str,
                                               variant: str) -> None:
    original = original_run(launch, target)
    trace = original.trace
    assert trace is not None
    kernels = set(trace.program.kernels)
    path = hip_instrumenter.output(launch.obj, target, variant)
    instrumented = _run(path, launch)
    tool = {"GridDim"} if variant == "grid_dim" else {"GlobalCounter"}
    _same_computation(original, instrumented, path, launch, target, tool)
    expected = {
        "instr_count_vector": trace.issued_with_lanes(kernels),
        "instr_count_vector_flipped": trace.active_lanes(kernels),
        "instr_count_scalar": trace.active_lanes(kernels),
        "instr_count_scalar_flipped": trace.issued(kernels),
        "simt_count": trace.active_lanes(kernels),
    }
    if variant == "grid_dim":
        assert struct.unpack("<3I", instrumented.globals["GridDim"]) == (launch.grid, 1, 1)
    else:
        assert _counter(instrumented) == expected[variant]


@pytest.mark.parametrize("grid", [(3, 2), (2, 3, 4)], ids=["2d", "3d"])
@pytest.mark.parametrize("target", [target for target in ALL_TARGETS
                                    if "grid_dim" in _variants("elementwise", target)])
def test_grid_dim_records_multidimensional_grids(hip_instrumenter: HipInstrumenter,
                                                 target: str, grid: tuple[int, ...]) -> None:
    """A 1-D kernel launched on a 2-D or 3-D grid (every workgroup row redoes row 0's
    work: the same values land in the same places) records the whole grid."""
    launch = next(launch for launch in LAUNCHES if launch.id == "elementwise.saxpy")
    path = hip_instrumenter.output(launch.obj, target, "grid_dim")
    recorded = struct.unpack("<3I", _run(path, launch, grid).globals["GridDim"])
    assert recorded == (*grid, *(1,) * (3 - len(grid)))
