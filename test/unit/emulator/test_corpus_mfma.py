"""Whole kernels of test/corpus/kernels/mfma.hip: MFMA in VGPRs and AGPRs.

Each kernel stores lane t's accumulator items to ``d[t * items + r]``; the tests place the
NumPy product into that order with the CDNA result layout (item r of lane t is row
4 * (t div 16) + r of a 16x16 result, row 8 * (r div 4) + 4 * (t div 32) + r mod 4 of a
32x32 one, column t mod N) and the operand layout (lane t holds A[t mod M][E * (t div M) + e]
and B[E * (t div M) + e][t mod N]). Inputs are small integers, so every sum is exact.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from .common import CDNA_TARGETS as TARGETS  # MFMA: CDNA only
from .common import out, program, run

RNG = np.random.default_rng(43)


def _operands(values: npt.NDArray[np.float64], m: int, k: int, per_lane: int,
              as_b: bool) -> npt.NDArray[np.float64]:
    """The matrix a wave's lanes hold: ``values[lane, e]`` placed per the operand layout."""
    matrix = np.zeros((k, m) if as_b else (m, k))
    for lane in range(64):
        for e in range(per_lane):
            kk = per_lane * (lane // m) + e
            if as_b:
                matrix[kk, lane % m] = values[lane, e]
            else:
                matrix[lane % m, kk] = values[lane, e]
    return matrix


def _result_order(d: npt.NDArray[np.float64], m: int) -> npt.NDArray[np.float64]:
    items = m * m // 64
    flat = np.zeros(64 * items)
    for lane in range(64):
        for r in range(items):
            row = 4 * (lane // 16) + r if m == 16 else 8 * (r // 4) + 4 * (lane // 32) + r % 4
            flat[lane * items + r] = d[row, lane % m]
    return flat


def _small(shape: int | tuple[int, ...]) -> npt.NDArray[np.float64]:
    return RNG.integers(-4, 5, shape).astype(np.float64)


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_f32_32x32x2f32_chained(target: str) -> None:
    a, b = _small(256).astype(np.float32), _small(256).astype(np.float32)
    result = run("mfma", target, "mfma_f32_32x32x2f32", 1, 64,
                 [a, b, np.zeros(64 * 16, np.float32)])
    total = np.zeros((32, 32))
    for step in range(4):
        lanes = slice(64 * step, 64 * (step + 1))
        total += _operands(a[lanes, None].astype(np.float64), 32, 2, 1, False) @ \
            _operands(b[lanes, None].astype(np.float64), 32, 2, 1, True)
    np.testing.assert_array_equal(out(result, 2), _result_order(total, 32))


#: The targets without an f64 MFMA: mfma.hip leaves mfma_f64_16x16x4f64 out for them.
NO_F64_MFMA = ("gfx908",)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", ["mfma_f32_16x16x4f32", "mfma_f64_16x16x4f64"])
def test_mfma_16x16x4(target: str, kernel: str) -> None:
    if "f64" in kernel and target in NO_F64_MFMA:
        assert kernel not in program("mfma", target).kernels
        return
    dtype = np.float64 if "f64" in kernel else np.float32
    a, b = _small(64).astype(dtype), _small(64).astype(dtype)
    result = run("mfma", target, kernel, 1, 64, [a, b, np.zeros(256, dtype)])
    product = _operands(a[:, None].astype(np.float64), 16, 4, 1, False) @ \
        _operands(b[:, None].astype(np.float64), 16, 4, 1, True)
    np.testing.assert_array_equal(out(result, 2), _result_order(product, 16))


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_f32_32x32x8f16(target: str) -> None:
    a, b = _small((64, 4)).astype(np.float16), _small((64, 4)).astype(np.float16)
    result = run("mfma", target, "mfma_f32_32x32x8f16", 1, 64,
                 [a, b, np.zeros(64 * 16, np.float32)])
    product = _operands(a.astype(np.float64), 32, 8, 4, False) @ \
        _operands(b.astype(np.float64), 32, 8, 4, True)
    np.testing.assert_array_equal(out(result, 2), _result_order(product, 32))


def _bf16_bits(values: npt.NDArray[np.float64]) -> npt.NDArray[np.int16]:
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.int16)


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_bf16_1k(target: str) -> None:
    """gfx908 has no bf16_1k form: its source uses v_mfma_f32_16x16x8bf16 on the first two
    bf16 of each lane's four (K = 8)."""
    per_lane, k = (2, 8) if target == "gfx908" else (4, 16)
    a, b = _small((64, 4)), _small((64, 4))
    result = run("mfma", target, "mfma_bf16_1k", 1, 64,
                 [_bf16_bits(a), _bf16_bits(b), np.zeros(256, np.float32)])
    product = _operands(a[:, :per_lane], 16, k, per_lane, False) @ \
        _operands(b[:, :per_lane], 16, k, per_lane, True)
    np.testing.assert_array_equal(out(result, 2), _result_order(product, 16))


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_i8(target: str) -> None:
    per_lane, k = (8, 32) if target == "gfx942" else (4, 16)
    a = RNG.integers(-128, 128, (64, 8)).astype(np.int8)
    b = RNG.integers(-128, 128, (64, 8)).astype(np.int8)
    result = run("mfma", target, "mfma_i8", 1, 64,
                 [a.view(np.int64).reshape(64), b.view(np.int64).reshape(64),
                  np.zeros(256, np.int32)])
    product = _operands(a[:, :per_lane].astype(np.float64), 16, k, per_lane, False) @ \
        _operands(b[:, :per_lane].astype(np.float64), 16, k, per_lane, True)
    np.testing.assert_array_equal(out(result, 2), _result_order(product, 16))


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_agpr_accumulator(target: str) -> None:
    steps = 3
    a, b = _small(64 * steps).astype(np.float32), _small(64 * steps).astype(np.float32)
    result = run("mfma", target, "mfma_agpr_accumulator", 1, 64,
                 [a, b, np.zeros(256, np.float32), steps])
    total = np.zeros((16, 16))
    for step in range(steps):
        lanes = slice(64 * step, 64 * (step + 1))
        total += _operands(a[lanes, None].astype(np.float64), 16, 4, 1, False) @ \
            _operands(b[lanes, None].astype(np.float64), 16, 4, 1, True)
    np.testing.assert_array_equal(out(result, 2), _result_order(total, 16))
