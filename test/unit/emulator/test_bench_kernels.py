"""Whole kernels of test/corpus/bench/kernels.hip (the MC benchmark corpus): f64 division
and square root sequences (v_div_scale/fmas/fixup, v_rsq + Newton steps), 64-bit integer
division, ds_swizzle/readfirstlane/ballot, packed f16, a 2-D grid with LDS tiles, LDS and
global atomics of several kinds, and a private array sort in scratch."""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import pytest

from luthier.emulator.api import KernelArgument, RunResult, load_program, run_kernel
from luthier.emulator.program import Program

from .common import ROOT, out

#: The targets test/corpus/bench/build.sh builds kernels.<target>.co for (not gfx908: the
#: bench corpus is not part of the gfx908 kernel corpus yet).
BENCH_TARGETS = ("gfx90a", "gfx942")

RNG = np.random.default_rng(5)
M32 = 0xFFFFFFFF


@functools.cache
def _program(target: str) -> Program:
    return load_program(ROOT / "test" / "corpus" / "bench" / f"kernels.{target}.co")


def _run(target: str, kernel: str, grid: int | tuple[int, ...], block: int,
         args: list[KernelArgument]) -> RunResult:
    return run_kernel(_program(target), kernel, grid, block, args)


@pytest.mark.parametrize("target", BENCH_TARGETS)
@pytest.mark.parametrize("unroll", [4, 8])
def test_dmath_division_and_sqrt_round_like_ieee(target: str, unroll: int) -> None:
    n = 64 * unroll
    values = RNG.standard_normal(n) * 10
    index = RNG.integers(0, 10**6, n).astype(np.int64)
    result = _run(target, f"dmath_{unroll}", 1, 64, [np.zeros(64), values, index, n])
    expected: list[float] = []
    for thread in range(64):
        acc = 0.0
        for u in range(unroll):
            v = float(values[int(index[thread * unroll + u]) % n])
            acc = float(Fraction(acc) * Fraction(v) + Fraction(0.5 + u))
            acc += float(np.sqrt(abs(v))) / (v * v + 3.0)
            k = int(v * 1024.0)
            # 0x9E3779B97F4A7C15L does not fit a long: the product is unsigned long.
            acc += float(((k * 0x9E3779B97F4A7C15) % 2**64) >> (u + 7))
        expected.append(acc)
    np.testing.assert_array_equal(out(result, 0), expected)


def _bitreverse(value: int) -> int:
    return int(f"{value:032b}"[::-1], 2)


def _signed_field(value: int, offset: int, width: int) -> int:
    field = (value >> offset) & ((1 << width) - 1)
    return field - (1 << width) if field >> (width - 1) else field


@pytest.mark.parametrize("target", BENCH_TARGETS)
def test_int_mix_swizzle_readfirstlane_ballot(target: str) -> None:
    n, divisor = 200, 37
    values = RNG.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    signs = RNG.integers(-2**31, 2**31, 256, dtype=np.int64).astype(np.int32)
    result = _run(target, "int_mix", 1, 256, [np.zeros(256, np.uint32), values, signs,
                                              divisor, n])
    stage: list[int] = []
    for i in range(n):
        v, s = int(values[i]), int(signs[i])
        r = v // divisor + v % (divisor | 1)
        quotient = abs(s) // (divisor + 7) * (1 if s >= 0 else -1)
        r ^= (quotient * 2654435761) & M32
        r += bin(v).count("1") + (32 - (v | 1).bit_length())
        r += ((v | 0x80000000) & -(v | 0x80000000)).bit_length() - 1
        r += ((v >> 5) & 0x1FF) + (_signed_field(s, 3, 11) & M32)
        r = (_bitreverse(r & M32) + int.from_bytes(v.to_bytes(4, "little"), "big")) & M32
        stage.append(r)
    expected = np.zeros(256, np.uint32)
    for wave in range(4):
        lanes = [i for i in range(wave * 64, wave * 64 + 64) if i < n]
        if not lanes:
            continue
        swizzled = {i: stage[i] + (stage[i ^ 1] if (i ^ 1) in lanes else 0) for i in lanes}
        first = int(values[lanes[0]])
        with_first = {i: (swizzled[i] + first) & M32 for i in lanes}
        ballot = sum(1 for i in lanes if with_first[i] & 1)
        for i in lanes:
            expected[i] = (with_first[i] + ballot) & M32
    np.testing.assert_array_equal(out(result, 0), expected)


@pytest.mark.parametrize("target", BENCH_TARGETS)
def test_half_math_packed_f16(target: str) -> None:
    """Small integer halves, so that every f16 operation (contracted or not) is exact."""
    n = 128
    a = RNG.choice([-8.0, -4.0, 0.0, 4.0, 8.0], (n, 2)).astype(np.float16)
    b = RNG.integers(-2, 3, (n, 2)).astype(np.float16)
    c = RNG.integers(-40, 40, n).astype(np.int16)
    result = _run(target, "half_math", 1, 128, [np.zeros((n, 2), np.float16), a, b, c, n])
    x, y = a.astype(np.float64), b.astype(np.float64)
    z = x * y + np.array([1.0, 0.5])
    z = z - x * 0.25
    z0 = z[:, 0] * y[:, 1] + x[:, 1]
    z1 = np.where(z[:, 1] > x[:, 0], z[:, 1], x[:, 0])
    z0 = z0 + (c >> 3)
    z1 = z1 * (c.astype(np.int64) * 3 + 1).astype(np.int16)
    np.testing.assert_array_equal(out(result, 0), np.stack([z0, z1], axis=1).astype(
        np.float16))


@pytest.mark.parametrize("target", BENCH_TARGETS)
def test_sgemm_tiles_on_a_2d_grid(target: str) -> None:
    n, tile = 32, 16
    a = RNG.integers(-3, 4, (n, n)).astype(np.float32)
    b = RNG.integers(-3, 4, (n, n)).astype(np.float32)
    result = _run(target, f"sgemm_{tile}", (n // tile, n // tile), tile * tile,
                  [np.zeros(n * n, np.float32), a.reshape(-1), b.reshape(-1), n])
    np.testing.assert_array_equal(out(result, 0).reshape(n, n), a @ b)


@pytest.mark.parametrize("target", BENCH_TARGETS)
def test_histogram_atomics(target: str) -> None:
    keys = RNG.integers(0, 2**20, 256).astype(np.uint32)
    bins = np.zeros(512, np.uint32)
    bins[256:] = M32
    result = _run(target, "histogram", 1, 256,
                  [bins, np.zeros(1, np.uint64), np.array([-5.0], np.float32), np.zeros(1),
                   keys, 256])
    xor_part = np.zeros(256, np.uint32)
    for k in keys.tolist():
        xor_part[(k >> 8) & 255] ^= k
    counts = np.bincount(keys & 255, minlength=256).astype(np.uint32)
    got = out(result, 0)
    np.testing.assert_array_equal(got[:256], xor_part + counts)
    np.testing.assert_array_equal(got[256:], xor_part)
    assert int(out(result, 1)[0]) == int(counts.sum()) + int(xor_part.astype(np.uint64).sum())
    assert out(result, 2)[0] == np.float32(keys.max())
    assert out(result, 3)[0] == 256.0


@pytest.mark.parametrize("target", BENCH_TARGETS)
def test_private_sort_in_scratch(target: str) -> None:
    n = 48 * 64
    data = RNG.standard_normal(n).astype(np.float32)
    perm = RNG.integers(0, 10**6, n).astype(np.int32)
    result = _run(target, "private_sort", 1, 64, [data, perm, n])
    np.testing.assert_array_equal(out(result, 0).reshape(64, 48),
                                  np.sort(data.reshape(64, 48), axis=1))
