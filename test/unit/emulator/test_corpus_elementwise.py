"""Whole kernels of test/corpus/kernels/elementwise.hip against NumPy references."""

from __future__ import annotations

import numpy as np
import pytest

from .common import TARGETS, WAVE32_TARGETS, fma32_reference, fma64_exact, out, run

RNG = np.random.default_rng(7)
#: The two targets, and the corpus's variants of this file: code object v4 (group size from
#: the dispatch packet), v6, and preloaded kernel arguments (the entry 256 bytes in, the
#: arguments already in SGPRs).
VARIANTS = (*TARGETS, "gfx90a.cov4", "gfx942.cov6", "gfx942.preload")


@pytest.mark.parametrize("target", VARIANTS)
def test_vector_add_with_partial_last_block(target: str) -> None:
    n = 1000
    a = RNG.standard_normal(1024).astype(np.float32)
    b = RNG.standard_normal(1024).astype(np.float32)
    c = np.full(1024, -7.0, np.float32)
    result = run("elementwise", target, "vector_add", 4, 256, [a, b, c, n])
    expected = c.copy()
    expected[:n] = a[:n] + b[:n]
    np.testing.assert_array_equal(out(result, 2), expected)
    assert result.wave_size == (32 if target in WAVE32_TARGETS else 64)
    assert result.waves == 1024 // result.wave_size
    assert all(count > 0 for count in result.wave_instructions)


@pytest.mark.parametrize("target", VARIANTS)
def test_saxpy(target: str) -> None:
    n = 500
    x = RNG.standard_normal(512).astype(np.float32)
    y = RNG.standard_normal(512).astype(np.float32)
    a = 1.7
    result = run("elementwise", target, "saxpy", 2, 256, [a, x, y, n])
    expected = y.copy()
    expected[:n] = fma32_reference(np.full(n, a, np.float32), x[:n], y[:n])
    np.testing.assert_array_equal(out(result, 2), expected)


@pytest.mark.parametrize("target", VARIANTS)
def test_daxpy_rounds_once(target: str) -> None:
    n = 256
    x = RNG.standard_normal(n)
    y = RNG.standard_normal(n)
    a = 3.141592653589793
    result = run("elementwise", target, "daxpy", 1, 256, [a, x, y, n])
    expected = np.array([fma64_exact(a, float(xi), float(yi)) for xi, yi in zip(x, y, strict=True)])
    np.testing.assert_array_equal(out(result, 2), expected)


@pytest.mark.parametrize("target", VARIANTS)
def test_int_mix_64bit_arithmetic(target: str) -> None:
    n = 128
    a = RNG.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = RNG.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    shift = 5
    result = run("elementwise", target, "int_mix", 2, 64, [a, b, np.zeros(n, np.int64), shift])
    with np.errstate(over="ignore"):
        v = (a << np.int32(shift)).astype(np.int64) ^ b
        expected = v * np.int64(-0x61C8864680B583EB) + (v >> np.int64(7))
    np.testing.assert_array_equal(out(result, 2), expected)


@pytest.mark.parametrize("target", VARIANTS)
def test_many_args(target: str) -> None:
    n = 200
    inputs = RNG.standard_normal(256).astype(np.float32)
    p0 = RNG.integers(-100, 100, 16).astype(np.int32)
    p1 = RNG.integers(-100, 100, 16).astype(np.int32)
    ints = [3, -4, 5, 6, 0x55, 0x0F, 100, 30]
    l0, l1 = 1 << 40, -(1 << 39)
    f0, f1, f2, f3 = 0.5, 1.25, -2.0, 0.75
    d0, d1 = 1.5, -2.25
    output = np.zeros(256, np.float32)
    result = run("elementwise", target, "many_args", 1, 256,
                 [output, inputs, *ints, l0, l1, f0, f1, f2, f3, d0, d1, p0, p1, n])
    i0, i1, i2, i3, i4, i5, i6, i7 = ints
    index = np.arange(n)
    f32 = np.float32
    acc = inputs[:n] * f32(f0) + f32(f1)
    acc = acc + (f32(i0 * i1 + i2 * i3) - f32(i4 ^ i5) + f32(i6 - i7))
    acc = acc + (f32(l0 + l1) * f32(f2) - f32(f3))
    acc = acc + f32(d0 * d1)
    acc = acc + (p0[index % 16] + p1[(index + 1) % 16]).astype(f32)
    got = out(result, 0)
    np.testing.assert_allclose(got[:n], acc, rtol=1e-6)
    assert not got[n:].any()



def test_scalars_as_numpy_scalars_and_raw_bytes() -> None:
    """By-value arguments as a NumPy scalar of the argument's size, or as raw bytes."""
    x = RNG.standard_normal(64).astype(np.float32)
    y = RNG.standard_normal(64).astype(np.float32)
    a = np.float32(0.75)
    result = run("elementwise", "gfx90a", "saxpy", 1, 64,
                 [a, x, y, np.uint32(64).tobytes()])
    np.testing.assert_array_equal(out(result, 2), fma32_reference(
        np.full(64, a, np.float32), x, y))
