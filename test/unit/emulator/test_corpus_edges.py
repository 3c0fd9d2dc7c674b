"""The edge-case kernels (``edges.hip``) against host references written from the C meaning
of their source, in plain Python integers and NumPy float32, sharing no code with the
emulator: a mistake the original and the instrumented run would share (a negative offset
read as unsigned, a zero extension where the ISA sign-extends) shows up here."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from .common import TARGETS, WAVE64_TARGETS, out, run

RNG = np.random.default_rng(2026)
F32 = np.float32
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

IntArray = npt.NDArray[np.int64]


def _wrap(value: int, bits: int) -> int:
    """``value`` as a two's-complement signed integer of ``bits`` bits (C's conversion of an
    out-of-range value to a signed type, as clang defines it)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _c_div(x: int, y: int) -> tuple[int, int]:
    """C's quotient (truncated toward zero) and remainder (the sign of the dividend)."""
    quotient = abs(x) // abs(y)
    if (x < 0) != (y < 0):
        quotient = -quotient
    return quotient, x - quotient * y


@pytest.mark.parametrize("target", TARGETS)
def test_stencil_halo_reads_below_the_pointer(target: str) -> None:
    """``p[-1000]`` and ``p[-7]`` are immediate offsets -4000 and -28 of the loads: read as
    13-bit unsigned fields they would land 8 KiB too far and still inside the buffer."""
    n = 2304
    inputs = RNG.standard_normal(n).astype(F32)
    result = run("edges", target, "stencil_1d", n // 256, 256, [inputs, np.zeros(n, F32), n])
    expected = np.zeros(n, F32)
    half, quarter = F32(0.5), F32(0.25)
    for i in range(1000, n - 1000):
        # The source's left-to-right order; a product by 0.5 or 0.25 is exact, so a fused
        # multiply-add rounds the same as the product and the sum.
        terms = [inputs[i - 1000], half * inputs[i - 7], quarter * inputs[i - 1], inputs[i],
                 quarter * inputs[i + 1], half * inputs[i + 7], inputs[i + 1000]]
        total = F32(terms[0])
        for term in terms[1:]:
            total = F32(total + term)
        expected[i] = total
    np.testing.assert_array_equal(out(result, 1), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_narrow_loads_sign_and_zero_extend(target: str) -> None:
    n = 256
    sc = RNG.integers(-128, 128, n).astype(np.int8)
    uc = RNG.integers(0, 256, n).astype(np.uint8)
    ss = RNG.integers(-32768, 32768, n).astype(np.int16)
    us = RNG.integers(0, 65536, n).astype(np.uint16)
    sc[:8], uc[:8] = [-128, 127, -1, 0, -128, 127, -1, 1], [255, 0, 128, 127, 255, 1, 0, 255]
    ss[:8], us[:8] = [-32768, 32767, -1, 0, -32768, -32768, 32767, -1], [65535] * 8
    result = run("edges", target, "narrow_halo", 1, n,
                 [sc, uc, ss, us, np.zeros(4 * n, np.int32), np.zeros(n, np.int8),
                  np.zeros(n, np.int16), n])
    expected = np.zeros(4 * n, np.int64)
    bytes_ = np.zeros(n, np.int64)
    shorts = np.zeros(n, np.int64)
    for i in range(4, n):
        expected[4 * i] = int(sc[i - 3]) + int(sc[i])
        expected[4 * i + 1] = int(uc[i - 3]) + int(uc[i])
        expected[4 * i + 2] = int(ss[i - 2]) * int(ss[i])
        expected[4 * i + 3] = _wrap(int(us[i - 2]) * int(us[i]), 32)
        bytes_[i - 1] = _wrap(int(sc[i]) - int(uc[i]), 8)
        shorts[i - 2] = _wrap(int(ss[i]) + int(us[i]), 16)
    np.testing.assert_array_equal(out(result, 4).astype(np.int64), expected)
    np.testing.assert_array_equal(out(result, 5).astype(np.int64), bytes_)
    np.testing.assert_array_equal(out(result, 6).astype(np.int64), shorts)


def _signed_unsigned_operands(n: int) -> tuple[IntArray, IntArray]:
    """Random operands and every pair of edge values; no division by zero, and no
    ``INT_MIN / -1`` (both undefined in C, so the kernel's inputs avoid them)."""
    edges = [INT_MIN, INT_MIN + 1, -65536, -2, -1, 1, 2, 31, 32, 33, 65535, INT_MAX - 1, INT_MAX]
    pairs = [(x, y) for x in edges + [0] for y in edges if not (x == INT_MIN and y == -1)]
    random_x = RNG.integers(INT_MIN, INT_MAX, n, endpoint=True)
    random_y = RNG.integers(INT_MIN, INT_MAX, n, endpoint=True)
    random_y[random_y == 0] = 7
    random_y[(random_x == INT_MIN) & (random_y == -1)] = 3
    x = np.array(random_x)
    y = np.array(random_y)
    x[:len(pairs)] = [p[0] for p in pairs]
    y[:len(pairs)] = [p[1] for p in pairs]
    # Small divisors, where the expanded division's correction steps matter most.
    x[len(pairs):len(pairs) + 64] = RNG.integers(INT_MIN, INT_MAX, 64)
    y[len(pairs):len(pairs) + 64] = RNG.integers(2, 9, 64) * RNG.choice([-1, 1], 64)
    return x, y


@pytest.mark.parametrize("target", TARGETS)
def test_signed_and_unsigned_division_shift_compare(target: str) -> None:
    n = 512
    x, y = _signed_unsigned_operands(n)
    result = run("edges", target, "signed_unsigned", 2, 256,
                 [x.astype(np.int32), y.astype(np.int32), np.zeros(8 * n, np.int32), n])
    expected: list[int] = []
    for xi, yi in zip(x.tolist(), y.tolist(), strict=True):
        ux, uy = xi & 0xFFFFFFFF, yi & 0xFFFFFFFF
        quotient, remainder = _c_div(xi, yi)
        expected += [
            _wrap(quotient, 32), remainder,
            _wrap(ux // uy, 32), _wrap(ux % uy, 32),
            _wrap((xi >> (yi & 31)) ^ (ux >> (uy & 31)), 32),
            int(xi < yi) | (int(ux < uy) << 1) | (int(xi <= ~yi) << 2),
            _wrap(min(xi, yi) + max(ux, uy), 32),
            _wrap(abs(xi), 32),
        ]
    np.testing.assert_array_equal(out(result, 2).astype(np.int64), np.array(expected))


@pytest.mark.parametrize("target", TARGETS)
def test_wide_products_shifts_and_bit_counts(target: str) -> None:
    n = 256
    a = RNG.integers(-(2**63), 2**63 - 1, n, endpoint=True, dtype=np.int64)
    b = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    a[:6] = [-(2**63), 2**63 - 1, -1, 0, 1, -(2**32)]
    b[:6] = [0xFFFFFFFF, 0x3F3F3F3F, 0x80000000, 0, 0x00203F21, 0x3F3F0000]
    result = run("edges", target, "wide_edges", 1, n, [a, b, np.zeros(6 * n, np.int64), n])
    expected: list[int] = []
    mask64 = (1 << 64) - 1
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        ux = x & mask64
        signed_y = _wrap(y, 32)
        low_bit = (y | 0x80000000) & -(y | 0x80000000)
        expected += [
            _wrap((ux * y) >> 32, 64),
            (x * signed_y) >> 64,
            x >> (y & 63),
            _wrap((ux >> ((y >> 8) & 63)) + ((ux << ((y >> 16) & 63)) & mask64), 64),
            bin(ux).count("1") | ((64 - (ux | 1).bit_length()) << 8)
            | ((low_bit.bit_length() - 1) << 16),
            _wrap(int(f"{y:032b}"[::-1], 2) | (int.from_bytes(y.to_bytes(4, "little"), "big")
                                               << 32), 64),
        ]
    np.testing.assert_array_equal(out(result, 2), np.array(expected, np.int64))


# The kernel is written for 64-lane waves (a 32-step shuffle, one result slot per 64
# work-items): in 32-lane waves two waves would write each slot.
@pytest.mark.parametrize("target", WAVE64_TARGETS)
def test_wave_reduction_through_bpermute_and_ballot(target: str) -> None:
    waves = 8
    inputs = RNG.integers(-(2**24), 2**24, 64 * waves).astype(np.int32)
    inputs[:64] = INT_MIN // 64          # a wave whose sum is exactly INT_MIN
    inputs[64:128] = np.arange(64) - 1   # one negative lane
    result = run("edges", target, "wave_reduce", waves // 4, 256,
                 [inputs, np.zeros(waves, np.int32), np.zeros(waves, np.int32),
                  np.zeros(waves, np.int64)])
    per_wave = inputs.astype(np.int64).reshape(waves, 64)
    sums = [_wrap(int(row.sum()), 32) for row in per_wave]
    ballots: list[int] = []
    for row in per_wave:
        mask = sum(1 << lane for lane, value in enumerate(row.tolist()) if value < 0)
        ballots.append(_wrap(mask ^ (bin(mask).count("1") << 56), 64))
    np.testing.assert_array_equal(out(result, 1).astype(np.int64), sums)
    np.testing.assert_array_equal(out(result, 2), per_wave.max(axis=1).astype(np.int32))
    np.testing.assert_array_equal(out(result, 3), np.array(ballots, np.int64))
