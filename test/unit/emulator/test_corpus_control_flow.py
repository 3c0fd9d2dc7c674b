"""Whole kernels of test/corpus/kernels/control_flow.hip: uniform and divergent loops,
EXEC-masked if/else, nested branches, early returns, a switch."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IntAttr

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, build_instruction
from luthier.amdgpu_dialects.amdgpu_mc.structure import KernelOp
from luthier.emulator import run_kernel
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object

from .common import CORPUS, TARGETS, fma32_reference, out, run

RNG = np.random.default_rng(11)
F32 = np.float32


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("iterations", [0, 1, 7])
def test_counted_loop(target: str, iterations: int) -> None:
    inputs = RNG.standard_normal(256).astype(F32)
    result = run("control_flow", target, "counted_loop", 2, 128,
                 [inputs, np.zeros(256, F32), iterations])
    acc = inputs.copy()
    for k in range(iterations):
        acc = fma32_reference(acc, np.full(256, 0.5, F32), np.full(256, k, F32))
    np.testing.assert_array_equal(out(result, 1), acc)


def _collatz_steps(value: int) -> int:
    steps = 0
    while value != 1 and steps < 1000:
        value = 3 * value + 1 if value & 1 else value >> 1
        steps += 1
    return steps


@pytest.mark.parametrize("target", TARGETS)
def test_data_dependent_loop_diverges_per_lane(target: str) -> None:
    inputs = RNG.integers(1, 5000, 256).astype(np.int32)
    inputs[:4] = [1, 2, 27, 97]
    result = run("control_flow", target, "data_dependent_loop", 4, 64,
                 [inputs, np.zeros(256, np.int32)])
    expected = np.array([_collatz_steps(int(v)) for v in inputs], np.int32)
    np.testing.assert_array_equal(out(result, 1), expected)
    counts = result.wave_instructions
    assert len(set(counts)) > 1  # waves with longer Collatz chains run longer


@pytest.mark.parametrize("target", TARGETS)
def test_unrolled_loop(target: str) -> None:
    # Its own generator: the shared one's draws depend on which tests a worker ran first.
    inputs = np.random.default_rng(56).standard_normal(128 * 8).astype(F32)
    result = run("control_flow", target, "unrolled_loop", 2, 64,
                 [inputs, np.zeros(128, F32)])
    # The compiler contracts some of the eight multiply-adds into FMAs and not others (C
    # allows either), so the sum is compared to within rounding, not bit for bit: each of
    # the eight roundings errs by at most half an ulp of a partial sum, and a partial sum
    # is at most the sum of the terms' magnitudes.
    terms = inputs.reshape(128, 8).astype(np.float64) * np.arange(1, 9)
    expected = terms.sum(axis=1)
    bound = 8 * float(np.finfo(F32).eps) * np.abs(terms).sum(axis=1)
    error = np.abs(out(result, 1).astype(np.float64) - expected)
    assert (error <= bound).all(), np.flatnonzero(error > bound)


@pytest.mark.parametrize("target", TARGETS)
def test_grid_stride_loop_reads_grid_size(target: str) -> None:
    n = 1000
    inputs = RNG.standard_normal(n).astype(F32)
    result = run("control_flow", target, "grid_stride_loop", 2, 128,
                 [inputs, np.zeros(n, F32), n])
    np.testing.assert_array_equal(out(result, 1), inputs * inputs)


@pytest.mark.parametrize("target", TARGETS)
def test_if_else_on_thread_id(target: str) -> None:
    n = 128
    a = RNG.standard_normal(n * 4).astype(F32)
    b = RNG.standard_normal(n).astype(F32)
    result = run("control_flow", target, "if_else_tid", 2, 64,
                 [a, b, np.zeros(2 * n, F32), n])
    got = out(result, 2)
    index = np.arange(n)
    odd = (index % 64) & 1 == 1
    # Multiply-adds the compiler may or may not contract: equal to within rounding.
    s = (a.reshape(n, 4).astype(np.float64) * np.arange(4)).sum(axis=1)
    np.testing.assert_allclose(got[:n][odd], s[odd], rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(got[n:][~odd], np.sqrt(np.abs(b))[~odd] + F32(1))
    assert not got[:n][~odd].any() and not got[n:][odd].any()


@pytest.mark.parametrize("target", TARGETS)
def test_nested_branches_with_division(target: str) -> None:
    inputs = RNG.integers(-50, 50, 128).astype(np.int32)
    threshold = 10
    result = run("control_flow", target, "nested_branches", 2, 64,
                 [inputs, np.zeros(128, np.int32), threshold])
    expected = np.zeros(128, np.int32)
    for i, v in enumerate(inputs.tolist()):
        if v > threshold:
            if i % 64 < 32:
                r = v - threshold
            elif v & 4:
                r = v * 3
            else:
                r = -v
        elif v < 0:
            r = int(inputs[(i + 1) % 64]) + 7
        else:
            r = int(v / (threshold | 1))
        expected[i] = r
    np.testing.assert_array_equal(out(result, 1), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_early_return(target: str) -> None:
    n = 200
    inputs = RNG.standard_normal(256).astype(F32)
    output = np.full(256, 9.0, F32)
    result = run("control_flow", target, "early_return", 2, 128, [inputs, output, n])
    expected = output.copy()
    keep = (np.arange(256) < n) & (inputs >= 0)
    expected[keep] = inputs[keep] * F32(2)
    np.testing.assert_array_equal(out(result, 1), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_switch_dispatch(target: str) -> None:
    ops = RNG.integers(0, 7, 256).astype(np.int32)
    x = np.abs(RNG.standard_normal(256)).astype(F32)
    result = run("control_flow", target, "switch_dispatch", 4, 64,
                 [ops, x, np.zeros(256, F32)])
    expected = np.select([ops == 0, ops == 1, ops == 2, ops == 3, ops == 4],
                         [x + F32(1), x * F32(3), np.sqrt(x), -x, x * x * x],
                         F32(0)).astype(F32)
    np.testing.assert_array_equal(out(result, 2), expected)


def test_wave32_is_a_dispatch_parameter() -> None:
    """The same divergent loop with the descriptor's enable_wavefront_size32 set: waves of
    32 lanes (masks, EXEC and VCC use their low halves), same results."""
    module = lift_code_object(read_code_object(CORPUS / "control_flow.gfx90a.co")).module
    for op in module.body.block.ops:
        if isinstance(op, KernelOp) and op.sym_name.data == "data_dependent_loop":
            op.descriptor = op.descriptor.with_fields(properties__enable_wavefront_size32=1)
    inputs = RNG.integers(1, 3000, 256).astype(np.int32)
    result = run_kernel(module, "data_dependent_loop", 2, 128,
                        [inputs, np.zeros(256, np.int32)])
    assert (result.waves, result.wave_size) == (8, 32)
    expected = np.array([_collatz_steps(int(v)) for v in inputs], np.int32)
    np.testing.assert_array_equal(out(result, 1), expected)


def test_inserted_instructions_are_counted_per_wave() -> None:
    """Instrumented IR runs like the original: three s_nop inserted at the kernel entry and
    one before the loop's backward branch add 3 per wave plus 1 per iteration of that wave's
    loop, and leave the results alone."""
    module = lift_code_object(read_code_object(CORPUS / "control_flow.gfx90a.co")).module
    inputs = RNG.integers(1, 300, 256).astype(np.int32)
    original = run_kernel(module, "data_dependent_loop", 4, 64,
                          [inputs, np.zeros(256, np.int32)])
    kernel = next(op for op in module.body.block.ops
                  if isinstance(op, KernelOp) and op.sym_name.data == "data_dependent_loop")
    blocks = list(kernel.body.blocks)
    first = blocks[0].first_op
    assert first is not None
    nop = [IntAttr(0)]
    blocks[0].insert_ops_before([build_instruction("s_nop", "S_NOP_vi", nop)
                                 for _ in range(3)], first)
    # the latch: the block that counts steps (s_cmpk_gt_u32 against 998) and branches back
    latch = next(block for block in blocks
                 if any(isinstance(op, InstructionOpBase) and op.mnemonic == "s_cmpk_gt_u32"
                        for op in block.ops))
    assert latch.last_op is not None
    latch.insert_op_before(build_instruction("s_nop", "S_NOP_vi", nop), latch.last_op)
    instrumented = run_kernel(module, "data_dependent_loop", 4, 64,
                              [inputs, np.zeros(256, np.int32)])
    np.testing.assert_array_equal(out(instrumented, 1), out(original, 1))
    steps = out(original, 1).reshape(4, 64)
    # the divergent loop runs as long as the wave's longest Collatz chain (once more to exit)
    iterations = steps.max(axis=1)
    extra = np.array(instrumented.wave_instructions) - np.array(original.wave_instructions)
    assert extra.tolist() == (3 + iterations).tolist()
