"""Hook templates lower exactly as the passes one by one.

``lower-hooks`` compiles each hook once per shape and reuses allocations where the pools
agree (:mod:`luthier.passes.instrument.templates`); ``insert-hooks`` followed by the passes
of :func:`lowering_passes` lowers every payload on its own. Both must print the same IR on
every corpus object, with every example hook, on both targets, and with the allocator's
options that force spills (``assume_live``) and forbid budget growth.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.drivers.opt_main import load_hooks, merge_hooks
from luthier.drivers.pipeline import pipeline_context
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.instrument.insert_hooks import InsertHooksPass
from luthier.passes.instrument.pipeline import LowerHooksPass, lowering_passes
from luthier.passes.instrument.templates import (
    AllocationMemo,
    AllocationOptions,
    lower_hooks_with_templates,
)

ROOT = Path(__file__).resolve().parents[4]
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOOKS = ROOT / "examples" / "hooks"
OBJECTS = ["control_flow", "calls", "atomics", "lds", "mfma", "globals", "elementwise"]
EXAMPLES = ["instr_count", "opcode_histogram", "memory_trace", "kernarg_reader"]


def _context() -> Context:
    return pipeline_context()


def _instrumented(path: Path, hook: Path, ctx: Context) -> ModuleOp:
    module = ModuleOp([lift_code_object(read_code_object(path)).module])
    merge_hooks(module, load_hooks(ctx, str(hook)), str(path), str(hook))
    return module


def _text(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def _lowered_both_ways(path: Path, hook: Path, **options: bool) -> tuple[str, str]:
    ctx = _context()
    templated = _instrumented(path, hook, ctx)
    LowerHooksPass(**options).apply(ctx, templated)
    one_by_one = _instrumented(path, hook, ctx)
    InsertHooksPass().apply(ctx, one_by_one)
    for stage in lowering_passes(**options):
        stage.apply(ctx, one_by_one)
    return _text(templated), _text(one_by_one)


#: Every corpus object with the hooks that instrument every instruction (the templates'
#: reason to be), on both targets; the other hooks on a few objects. The byte-for-byte
#: test of the whole pipeline (``test_recorded_outputs``) covers every combination.
CASES = [(name, hook, target) for target in ("gfx90a", "gfx942") for name in OBJECTS
         for hook in ("instr_count", "opcode_histogram")] + \
    [(name, hook, target) for target in ("gfx90a", "gfx942")
     for name in ("control_flow", "calls", "globals") for hook in ("memory_trace",
                                                                    "kernarg_reader")]


@pytest.mark.parametrize(("name", "hook", "target"), CASES)
def test_templates_lower_as_the_passes(name: str, hook: str, target: str) -> None:
    templated, one_by_one = _lowered_both_ways(KERNELS / f"{name}.{target}.co",
                                               HOOKS / f"{hook}.mlir")
    assert "instr.payload" in templated
    assert templated == one_by_one


@pytest.mark.parametrize("options", [{"assume_live": True},
                                     {"assume_live": True, "spill_vgprs_to_agprs": False},
                                     {"allow_budget_growth": False}])
@pytest.mark.parametrize("hook", ["instr_count", "memory_trace"])
def test_templates_with_allocator_options(hook: str, options: dict[str, bool]) -> None:
    """Spilling payloads (their allocations are not reused) and a fixed budget."""
    path = KERNELS / "control_flow.gfx90a.co"
    try:
        templated, one_by_one = _lowered_both_ways(path, HOOKS / f"{hook}.mlir", **options)
    except PassFailedException as error:
        # Without budget growth a kernel may have no room: both ways must fail alike.
        with pytest.raises(PassFailedException) as passes_error:
            _lowered_both_ways_passes_only(path, HOOKS / f"{hook}.mlir", **options)
        assert str(passes_error.value) == str(error)
        return
    assert templated == one_by_one


def _lowered_both_ways_passes_only(path: Path, hook: Path, **options: bool) -> None:
    ctx = _context()
    module = _instrumented(path, hook, ctx)
    InsertHooksPass().apply(ctx, module)
    for stage in lowering_passes(**options):
        stage.apply(ctx, module)


def test_templates_reuse_allocations() -> None:
    """Every instruction of a corpus kernel instrumented: one shape, every point either
    allocated or given an earlier allocation, many of them reused; every payload has its
    own ops."""
    ctx = _context()
    module = _instrumented(KERNELS / "elementwise.gfx90a.co", HOOKS / "instr_count.mlir", ctx)
    InsertHooksPass().apply(ctx, module)
    stats = lower_hooks_with_templates(ctx, module, AllocationOptions())
    assert stats is not None
    found = [op for op in module.walk() if isinstance(op, PayloadOp)]
    assert stats.shapes == 1
    assert stats.points == len(found) > 100
    assert stats.allocated + stats.reused == stats.points
    assert stats.reused > stats.points // 3
    ops = [id(op) for payload in found for op in payload.body.walk()]
    assert len(ops) == len(set(ops))


def test_templates_leave_lowered_payloads_to_the_passes() -> None:
    """A module whose payloads have bodies already is not templated (nothing changes)."""
    ctx = _context()
    module = _instrumented(KERNELS / "calls.gfx90a.co", HOOKS / "instr_count.mlir", ctx)
    LowerHooksPass().apply(ctx, module)
    before = _text(module)
    assert lower_hooks_with_templates(ctx, module, AllocationOptions()) is None
    assert _text(module) == before


@pytest.mark.parametrize("hook", ["instr_count", "opcode_histogram"])
def test_a_memo_carries_allocations_to_the_next_call(hook: str) -> None:
    """Two lowerings of one object given one memo (as a ``--jobs`` worker lowers its
    chunks): the second compiles no shape and runs no allocation the first made, and both
    print the IR a fresh memo gives; other allocator options start the memo afresh."""
    ctx = _context()
    path, hooks = KERNELS / "control_flow.gfx90a.co", HOOKS / f"{hook}.mlir"
    memo = AllocationMemo()
    texts: list[str] = []
    allocated: list[int] = []
    compiled: list[int] = []
    for options in (AllocationOptions(), AllocationOptions(), AllocationOptions(spill=False)):
        module = _instrumented(path, hooks, ctx)
        InsertHooksPass().apply(ctx, module)
        stats = lower_hooks_with_templates(ctx, module, options, memo=memo)
        assert stats is not None
        texts.append(_text(module))
        allocated.append(stats.allocated)
        compiled.append(stats.compiled)
    fresh: list[str] = []
    fresh_allocated: list[int] = []
    for options in (AllocationOptions(), AllocationOptions(spill=False)):
        module = _instrumented(path, hooks, ctx)
        InsertHooksPass().apply(ctx, module)
        stats = lower_hooks_with_templates(ctx, module, options)
        assert stats is not None
        fresh.append(_text(module))
        fresh_allocated.append(stats.allocated)
    assert texts[0] == texts[1] == fresh[0] and texts[2] == fresh[1]
    assert allocated[0] == fresh_allocated[0] > 0 and allocated[1] == 0
    assert compiled[0] > 0 and compiled[1] == 0 and compiled[2] == compiled[0]
    assert allocated[2] == fresh_allocated[1]  # other options: nothing carried over
    assert memo.options == AllocationOptions(spill=False)
