"""``luthier-opt --jobs N``: one code object's functions instrumented by forked workers.

The bytes must be those of ``--jobs 1`` (``scripts/record_outputs.py --jobs 1 --opt-jobs 2``
checks every corpus case; here a few, through ``main``, with the split checked to happen),
a failure must stay one line naming the code object and the function, with no output file,
and the workers' stages must show as progress here.
"""

from __future__ import annotations

import io
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp

from luthier.drivers import function_workers
from luthier.drivers.function_workers import (
    SplitError,
    SplitPlan,
    instrument_in_workers,
    plan_split,
)
from luthier.drivers.luthier_opt import main
from luthier.drivers.opt_main import load_hooks, merge_hooks
from luthier.drivers.pipeline import instrument_bytes, pipeline_context
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit import emit_code_object
from luthier.lowering.progress import reporting
from luthier.passes.instrument.pipeline import lower_hooks
from luthier.passes.layout.pipeline import FinalizeInstrumentationPass

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOOKS = ROOT / "examples" / "hooks"
UNSUPPORTED = ROOT / "test" / "lit" / "instrument" / "Inputs" / "unsupported.mlir"


def _run(*args: str) -> tuple[int, str]:
    stderr = io.StringIO()
    saved = sys.stderr
    sys.stderr = stderr
    try:
        status = main(["--no-progress", *args])
    finally:
        sys.stderr = saved
    return status, stderr.getvalue()


def _instrument(source: Path, hooks: Path, out: Path, jobs: int) -> bytes:
    status, errors = _run("--lift", "--inline-hooks", "--emit-preamble", str(source),
                          "--hooks", str(hooks), "-o", str(out), "--jobs", str(jobs))
    assert status == 0, errors
    return out.read_bytes()


@pytest.mark.parametrize(("source", "hook"), [
    ("scratch.gfx90a.co", "instr_count.mlir"),      # a group of a kernel and its callee
    ("atomics.gfx90a.co", "memory_trace.mlir"),     # an insertion that misses some kernels
    ("lds.gfx942.co", "opcode_histogram.mlir"),
    ("control_flow.gfx90a.co", "instr_count.mlir"),
])
def test_workers_give_the_bytes_of_one_process(source: str, hook: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    split: list[int] = []
    real = function_workers.instrument_in_workers

    def counting(*args: object, **kwargs: object) -> object:
        plan = args[2]
        assert isinstance(plan, SplitPlan)
        split.append(plan.workers)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(function_workers, "instrument_in_workers", counting)
    serial = _instrument(KERNELS / source, HOOKS / hook, tmp_path / "one.co", 1)
    assert split == []
    parallel = _instrument(KERNELS / source, HOOKS / hook, tmp_path / "two.co", 2)
    assert split == [2]
    assert parallel == serial


def test_an_object_that_is_one_group_is_not_split(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(function_workers, "instrument_in_workers", None)  # never called
    serial = _instrument(KERNELS / "calls.gfx90a.co", HOOKS / "instr_count.mlir",
                         tmp_path / "one.co", 1)
    assert _instrument(KERNELS / "calls.gfx90a.co", HOOKS / "instr_count.mlir",
                       tmp_path / "two.co", 2) == serial


def test_a_workers_failure_names_the_code_object_and_the_function(tmp_path: Path) -> None:
    out = tmp_path / "out.co"
    source = KERNELS / "atomics.gfx90a.co"
    status, errors = _run("--lift", "--inline-hooks", "--emit-preamble", str(source),
                          "--hooks", str(UNSUPPORTED), "-o", str(out), "--jobs", "2")
    assert status == 1 and not out.exists()
    assert errors.splitlines() == [
        f"luthier-opt: error: {source}: select-instructions: @divide in @atomic_add_int "
        "before 's_load_dword s7, s[4:5], 0x1c' (#0): arith.divui divides by the constant 0"]


def test_an_insertion_matching_nothing_fails_as_in_one_process(tmp_path: Path) -> None:
    hooks = tmp_path / "nothing.mlir"
    hooks.write_text('instr.hook @h() {\n  instr.return\n}\n'
                     'instr.insert @h {at = "instruction", mnemonic = "v_no_such*", '
                     'args = []}\n')
    out = tmp_path / "out.co"
    lines: list[list[str]] = []
    for jobs in ("1", "2"):
        status, errors = _run("--lift", "--inline-hooks", "--emit-preamble",
                              str(KERNELS / "atomics.gfx90a.co"), "--hooks", str(hooks),
                              "-o", str(out), "--jobs", jobs)
        assert status == 1 and not out.exists()
        lines.append(errors.splitlines())
    assert lines[0] == lines[1] == [
        "luthier-opt: error: insert-hooks: @h: the insertion matches nothing (at "
        "instruction, every kernel, mnemonic v_no_such*)"]


def _lifted_with_hooks(source: Path, hooks: Path) -> ModuleOp:
    ctx = pipeline_context()
    module = ModuleOp([lift_code_object(read_code_object(source.read_bytes())).module])
    merge_hooks(module, load_hooks(ctx, str(hooks)), str(source), str(hooks))
    return module


def _killed(job: object, skeleton: object, chunk: int) -> None:
    os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer does


def _exits(job: object, skeleton: object, chunk: int) -> None:
    os._exit(3)


def _raises(job: object, skeleton: object, chunk: int) -> None:
    raise RuntimeError("a bug of ours")


@pytest.mark.parametrize(("lower_chunk", "how"), [
    (_killed, r"was killed by SIGKILL \(out of memory\?\)"),
    (_exits, r"exited with status 3"),
    (_raises, r"failed with an internal error \(its traceback is above\)"),
], ids=["killed", "exits", "raises"])
def test_a_worker_that_dies_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                        capfd: pytest.CaptureFixture[str],
                                        lower_chunk: Callable[[object, object, int], None],
                                        how: str) -> None:
    source = KERNELS / "atomics.gfx90a.co"
    module = _lifted_with_hooks(source, HOOKS / "instr_count.mlir")
    monkeypatch.setattr(function_workers, "_lower_chunk", lower_chunk)
    with pytest.raises(SplitError, match=rf"/atomics\.gfx90a\.co: a worker process {how} "
                                         r"while instrumenting @\S+ and the functions after "
                                         r"it; try --jobs 1$"):
        plan = plan_split(module, 2, 0)
        assert plan is not None
        instrument_in_workers(pipeline_context(), module, plan, str(source))
    errors = capfd.readouterr().err
    assert ("RuntimeError: a bug of ours" in errors) == (lower_chunk is _raises)


def test_the_workers_stages_show_here() -> None:
    source = KERNELS / "control_flow.gfx90a.co"
    module = _lifted_with_hooks(source, HOOKS / "instr_count.mlir")
    opened: dict[str, int] = {}  # each stage's units, over the chunks that opened it
    opens: list[str] = []
    done: dict[str, int] = {}
    closed: list[str] = []

    class Stage:
        def __init__(self, name: str) -> None:
            self.name = name

        def advance(self, n: int = 1) -> None:
            done[self.name] = done.get(self.name, 0) + n

        def close(self) -> None:
            closed.append(self.name)

    class Recorder:
        def stage(self, name: str, total: int, unit: str) -> Stage:
            opened[name] = opened.get(name, 0) + total
            opens.append(name)
            return Stage(name)

    plan = plan_split(module, 2, 0)
    assert plan is not None
    with reporting(Recorder()):
        encoded = instrument_in_workers(pipeline_context(), module, plan, str(source))
    assert len(encoded) == 8
    for worker in ("1/2", "2/2"):
        name = f"lower-hooks [worker {worker}]"
        assert opened[name] > 0 and done[name] == opened[name]
        assert f"splice-payloads [worker {worker}]" in opened
    # Here, the whole: every instruction of the object, done as each chunk comes back.
    assert opened["instrument"] == done["instrument"] == sum(plan.weights) > 0
    assert sorted(closed) == sorted(opens)
    # Every point, counted once by the worker that lowered it: as many as in one process.
    parallel = sum(total for name, total in opened.items() if name.startswith("lower-hooks"))
    opened.clear()
    with reporting(Recorder()):
        lower_hooks(pipeline_context(), _lifted_with_hooks(source, HOOKS / "instr_count.mlir"),
                    packed=True)
    assert parallel == opened["lower-hooks"] > 0


@pytest.mark.parametrize(("source", "hook"), [
    ("control_flow.gfx90a.co", "instr_count.mlir"),
    ("lds.gfx942.co", "opcode_histogram.mlir"),
])
def test_a_worker_that_takes_anothers_chunks_gives_the_same_bytes(
        source: str, hook: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One function per chunk, and the second worker's run only the last chunk: it then
    takes chunks from the middle of the first worker's run (see ``work_sharing``), each
    lowered in a module of its own with the allocations of the chunks before."""
    monkeypatch.setattr(function_workers, "CHUNKS_PER_WORKER", 1000)
    module = _lifted_with_hooks(KERNELS / source, HOOKS / hook)
    plan = plan_split(module, 2, 0)
    assert plan is not None and len(plan.chunks) >= 4
    lopsided = SplitPlan(plan.chunks, plan.weights, (0, len(plan.chunks) - 1))
    parallel = emit_code_object(
        module, instrument_in_workers(pipeline_context(), module, lopsided, source))
    serial = _lifted_with_hooks(KERNELS / source, HOOKS / hook)
    lower_hooks(pipeline_context(), serial, packed=True)
    FinalizeInstrumentationPass().apply(pipeline_context(), serial)
    assert parallel == emit_code_object(serial)


def test_the_bytes_api_splits_too() -> None:
    source = KERNELS / "control_flow.gfx942.co"
    hooks = (HOOKS / "memory_trace.mlir").read_text()
    data = source.read_bytes()
    assert instrument_bytes(data, str(source), hooks, jobs=2) == \
        instrument_bytes(data, str(source), hooks)
