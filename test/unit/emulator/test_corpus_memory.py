"""Whole kernels that use LDS and barriers, atomics, scratch and global variables."""

from __future__ import annotations

import numpy as np
import pytest

from .common import TARGETS, out, run

RNG = np.random.default_rng(23)
F32 = np.float32


def _tree_sum(values: np.ndarray) -> np.float32:  # type: ignore[type-arg]
    """The block reduction's order of float32 additions: halves folded onto halves."""
    buf = values.astype(F32).copy()
    s = len(buf) // 2
    while s > 0:
        buf[:s] = buf[:s] + buf[s:2 * s]
        s //= 2
    return F32(buf[0])


@pytest.mark.parametrize("target", TARGETS)
def test_block_reduce_sum_with_barriers(target: str) -> None:
    n = 1000
    inputs = RNG.standard_normal(1024).astype(F32)
    result = run("lds", target, "block_reduce_sum", 4, 256, [inputs, np.zeros(4, F32), n])
    padded = np.where(np.arange(1024) < n, inputs, F32(0))
    expected = np.array([_tree_sum(padded[g * 256:(g + 1) * 256]) for g in range(4)], F32)
    np.testing.assert_array_equal(out(result, 1), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_block_reduce_max_int(target: str) -> None:
    inputs = RNG.integers(-10**6, 10**6, 256).astype(np.int32)
    result = run("lds", target, "block_reduce_max_int", 4, 64, [inputs, np.zeros(4, np.int32)])
    np.testing.assert_array_equal(out(result, 1), inputs.reshape(4, 64).max(axis=1))


@pytest.mark.parametrize("target", TARGETS)
def test_transpose_tile(target: str) -> None:
    width = 32
    inputs = RNG.standard_normal(width * width).astype(F32)
    result = run("lds", target, "transpose_tile", (width // 16) ** 2, 256,
                 [inputs, np.zeros(width * width, F32), width])
    np.testing.assert_array_equal(out(result, 1).reshape(width, width),
                                  inputs.reshape(width, width).T)


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_shared_scan(target: str) -> None:
    n, block = 250, 128
    inputs = RNG.standard_normal(256).astype(F32)
    result = run("lds", target, "dynamic_shared_scan", 2, block,
                 [inputs, np.zeros(256, F32), n], dynamic_lds=4 * block)
    expected = np.zeros(256, F32)
    for g in range(2):
        buf = np.where(np.arange(g * block, (g + 1) * block) < n,
                       inputs[g * block:(g + 1) * block], F32(0)).astype(F32)
        off = 1
        while off < block:
            shifted = np.concatenate([np.zeros(off, F32), buf[:-off]])
            buf = buf + shifted
            off <<= 1
        expected[g * block:(g + 1) * block] = buf
    expected[n:] = 0
    np.testing.assert_array_equal(out(result, 1), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_lds_histogram(target: str) -> None:
    n = 3000
    data = RNG.integers(0, 256, n).astype(np.uint8)
    result = run("lds", target, "lds_histogram", 3, 256, [data, np.zeros(256, np.uint32), n])
    np.testing.assert_array_equal(out(result, 1), np.bincount(data, minlength=256))


@pytest.mark.parametrize("target", TARGETS)
def test_atomic_add_int(target: str) -> None:
    inputs = RNG.integers(-1000, 1000, 256).astype(np.int32)
    result = run("atomics", target, "atomic_add_int", 4, 64, [inputs, np.zeros(1, np.int32)])
    assert int(out(result, 1)[0]) == int(inputs.sum())


@pytest.mark.parametrize("target", TARGETS)
def test_atomic_add_u64_returning(target: str) -> None:
    inputs = RNG.integers(0, 2**40, 128).astype(np.uint64)
    start = np.array([5], np.uint64)
    result = run("atomics", target, "atomic_add_u64_returning", 2, 64,
                 [inputs, start, np.zeros(128, np.uint64)])
    assert int(out(result, 1)[0]) == 5 + int(inputs.sum())
    olds = out(result, 2)
    # Every returned old value is a distinct prefix sum: sorted, they step by the inputs.
    order = np.argsort(olds)
    np.testing.assert_array_equal(olds[order], 5 + np.concatenate(
        [[0], np.cumsum(inputs[order])[:-1]]).astype(np.uint64))


@pytest.mark.parametrize("target", TARGETS)
def test_atomic_fadd_native(target: str) -> None:
    inputs = RNG.integers(-8, 8, 128).astype(F32)  # small integers: any order sums exactly
    result = run("atomics", target, "atomic_fadd_native", 2, 64, [inputs, np.zeros(1, F32)])
    assert float(out(result, 1)[0]) == float(inputs.sum())


@pytest.mark.parametrize("target", TARGETS)
def test_atomic_cas_loop_float_max(target: str) -> None:
    inputs = RNG.standard_normal(256).astype(F32)
    result = run("atomics", target, "atomic_cas_loop", 4, 64,
                 [inputs, np.array([-np.inf], F32)])
    assert out(result, 1)[0] == inputs.max()


@pytest.mark.parametrize("target", TARGETS)
def test_atomic_min_max_xchg(target: str) -> None:
    inputs = RNG.integers(-10**6, 10**6, 128).astype(np.int32)
    result = run("atomics", target, "atomic_min_max_xchg", 2, 64,
                 [inputs, np.array([2**31 - 1], np.int32), np.array([-2**31], np.int32),
                  np.zeros(1, np.int32)])
    assert out(result, 1)[0] == inputs.min()
    assert out(result, 2)[0] == inputs.max()
    assert out(result, 3)[0] in inputs


@pytest.mark.parametrize("target", TARGETS)
def test_wave_aggregated_count(target: str) -> None:
    flags = (RNG.random(256) < 0.3).astype(np.int32)
    result = run("atomics", target, "wave_aggregated_count", 4, 64,
                 [flags, np.zeros(1, np.uint32)])
    # The kernel counts for the wave whose first lane has (tid & 63) == 0: every wave in
    # 64-lane waves, the first of each workgroup's two waves in 32-lane ones.
    counted = flags.reshape(-1, 64)[:, :result.wave_size]
    assert int(out(result, 1)[0]) == int(counted.sum())


@pytest.mark.parametrize("target", TARGETS)
def test_private_array(target: str) -> None:
    n = 128
    idx = RNG.integers(0, 1000, n).astype(np.int32)
    inputs = RNG.standard_normal(n * 32).astype(F32)
    result = run("scratch", target, "private_array", 2, 64, [idx, inputs, np.zeros(n, F32)])
    rows = inputs.reshape(n, 32)
    expected = rows[np.arange(n), idx & 31] + rows[np.arange(n), (idx + 7) & 31]
    np.testing.assert_array_equal(out(result, 2), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_private_sort(target: str) -> None:
    n = 64
    inputs = RNG.integers(-100, 100, n * 16).astype(np.int32)
    result = run("scratch", target, "private_sort", 1, 64, [inputs, np.zeros(n * 16, np.int32)])
    np.testing.assert_array_equal(out(result, 1).reshape(n, 16),
                                  np.sort(inputs.reshape(n, 16), axis=1))


@pytest.mark.parametrize("target", TARGETS)
def test_private_array_via_call(target: str) -> None:
    n = 64
    inputs = RNG.integers(-4, 4, n + 64).astype(F32)  # small integers: sums are exact
    count, stride = 20, 3
    result = run("scratch", target, "private_array_via_call", 1, 64,
                 [inputs, np.zeros(n, F32), count, stride])
    expected = np.array([sum(float(inputs[i + ((k * stride) & 63)]) * k for k in range(count))
                         for i in range(n)], F32)
    np.testing.assert_array_equal(out(result, 1), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_read_global_variable(target: str) -> None:
    inputs = RNG.standard_normal(128).astype(F32)
    result = run("globals", target, "read_global", 2, 64, [inputs, np.zeros(128, F32)])
    np.testing.assert_array_equal(out(result, 1), inputs * F32(1.5))


@pytest.mark.parametrize("target", TARGETS)
def test_write_global_variable(target: str) -> None:
    result = run("globals", target, "write_global", 2, 64, [np.array([41], np.int32)])
    assert int.from_bytes(result.globals["call_counter"], "little") == 42


@pytest.mark.parametrize("target", TARGETS)
def test_global_table_lookup_reads_zeroed_table(target: str) -> None:
    idx = RNG.integers(0, 1000, 128).astype(np.int32)
    result = run("globals", target, "global_table_lookup", 2, 64, [idx, np.zeros(128, F32)])
    np.testing.assert_array_equal(out(result, 1), np.full(128, 1.5, F32))


@pytest.mark.parametrize("target", TARGETS)
def test_constant_coefficients(target: str) -> None:
    inputs = RNG.integers(-1000, 1000, 128 + 8).astype(np.int32)
    result = run("globals", target, "constant_coefficients", 2, 64,
                 [inputs, np.zeros(128, np.int32)])
    coefficients = np.array([1, -2, 3, -4, 5, -6, 7, -8])
    expected = np.array([int((coefficients * inputs[i:i + 8]).sum()) for i in range(128)])
    np.testing.assert_array_equal(out(result, 1), expected)
