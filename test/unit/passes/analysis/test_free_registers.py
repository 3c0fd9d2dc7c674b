"""Free-register queries: dead registers per point inside the budget, never-used registers
per kernel. Soundness of "dead" rests on liveness (test_liveness.py checks it against the
compiler); these tests check what the queries add: the file limits, the budget of the
kernels that run a device function, and "never used" against llvm-objdump."""

from __future__ import annotations

import shutil

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.register_units import file_range, unit_names, units_of
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionOp
from luthier.passes.analysis.free_registers import FreeRegisters
from luthier.passes.analysis.liveness import instructions

from .corpus import KERNELS, corpus, function, functions, parsed
from .test_register_usage import _objdump_registers  # pyright: ignore[reportPrivateUsage]

CODE_OBJECTS = ["control_flow.gfx90a.co", "calls.gfx942.co", "calls.gfx90a.co",
                "scratch.gfx90a.co", "mfma.gfx942.co", "lds.gfx90a.co"]


@pytest.mark.parametrize("name", CODE_OBJECTS)
def test_free_is_dead_and_inside_every_running_kernels_budget(name: str) -> None:
    code_object = corpus(name)
    free = FreeRegisters(code_object)
    budgets: dict[str, dict[str, int]] = {}
    for kernel, usage in free.usage.kernels.items():
        assert usage.budget is not None
        for reached in usage.functions:
            limits = budgets.setdefault(reached, {"s": 102, "v": 256, "a": 256})
            for prefix, count in (("s", usage.budget.sgprs), ("v", usage.budget.vgprs),
                                  ("a", usage.budget.agprs)):
                limits[prefix] = min(limits[prefix], count)
        assert kernel in usage.functions
    for op_function in functions(code_object):
        limits = budgets.get(op_function.sym_name.data, {"s": 102, "v": 256, "a": 256})
        for op in instructions(op_function):
            live = free.liveness.live_before(op)
            for prefix in ("s", "v", "a"):
                names = free.free_before(op, prefix)
                expected = unit_names(file_range(prefix, 0, limits[prefix]) & ~live)
                assert names == expected
                assert not any(live & units_of(register) for register in names)
            assert free.is_dead_before(op, "scc") == (not live & units_of("scc"))


def test_a_device_function_gets_the_smallest_budget_of_its_callers() -> None:
    # liveness_shapes.mlir: @add_one is run by @calls only (48 SGPRs allocated: 44
    # generic); the other kernels' 12-SGPR budgets do not apply to it.
    code_object = parsed("liveness_shapes.mlir")
    free = FreeRegisters(code_object)
    first = next(iter(instructions(function(code_object, "add_one"))))
    assert free.allocatable(first, "s") == file_range("s", 0, 44)
    assert free.allocatable(first, "v") == file_range("v", 0, 4)
    assert free.allocatable(first, "s", within_budget=False) == file_range("s", 0, 102)
    assert "s8" not in free.free_before(first, "s")  # live after the call
    assert "s16" in free.free_before(first, "s")  # the call target: dead in the callee


@pytest.mark.parametrize("name", ["calls.gfx90a.co", "calls.gfx942.co"])
def test_shared_device_functions_take_the_minimum(name: str) -> None:
    code_object = corpus(name)
    free = FreeRegisters(code_object)
    for device in (op for op in code_object.body.ops if isinstance(op, FunctionOp)):
        runners = [usage for usage in free.usage.kernels.values()
                   if device.sym_name.data in usage.functions]
        first = next(iter(instructions(device)), None)
        if first is None or not runners:
            continue
        smallest = min(usage.budget.sgprs for usage in runners if usage.budget is not None)
        assert free.allocatable(first, "s") == file_range("s", 0, smallest)


@pytest.mark.parametrize("name", CODE_OBJECTS)
def test_never_used_registers_are_not_in_the_disassembly(name: str) -> None:
    if shutil.which("llvm-objdump-19") is None:
        pytest.skip("llvm-objdump-19 is not installed")
    printed = _objdump_registers(KERNELS / name)
    free = FreeRegisters(corpus(name))
    for kernel, usage in free.usage.kernels.items():
        assert usage.budget is not None
        named: set[str] = set()
        for reached in usage.functions:
            named |= printed[reached]
        for prefix, limit in (("s", usage.budget.sgprs), ("v", usage.budget.vgprs),
                              ("a", usage.budget.agprs)):
            unused = free.never_used(kernel, prefix)
            assert not named & set(unused), kernel
            inside = {f"{prefix}{index}" for index in range(limit)}
            assert set(unused) == inside - named, kernel


def test_unknown_code_leaves_nothing_unused() -> None:
    # liveness_bad_input.mlir: @indirect_branch jumps to an address it received.
    free = FreeRegisters(parsed("liveness_bad_input.mlir"))
    assert free.usage.kernel("indirect_branch").unknown_code is not None
    assert free.never_used("indirect_branch", "v") == []
    assert free.never_used("self_loop", "v") == ["v0", "v1", "v2", "v3"]
