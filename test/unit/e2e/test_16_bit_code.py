"""16-bit code as clang-19 compiles it, run in the emulator on every target, against the
same arithmetic in NumPy.

**Half precision.** Two kernels read pairs of halves and compute with either half: sums,
products, a compare of a negated half and one of an absolute value, ``fmax`` of a negated
operand, conversions to and from ``float``, and a negated half put back into its pair. On
gfx9 clang turns these into the forms whose 16-bit semantics are easy to get wrong:
``v_cmp_lt_f16_e64 vcc, -v0, v1`` (source modifiers act on bit 15 of a half),
``v_cvt_f32_f16_sdwa ... src0_sel:WORD_1`` and SDWA selects on other operations, ``v_pk_*``
with ``op_sel``; on RDNA, VOP3 forms and true16 halves. Every operation here is one IEEE
rounding of exact inputs (contraction is off), so NumPy's float16 results are the answers
bit for bit. NaN inputs are left out: which NaN an operation returns is not pinned down.

**Short and byte integers.** Sums, products, shifts, signed and unsigned min/max and byte
sums of the halves of a word: on gfx9 and gfx10 clang reads the halves through SDWA selects
with ``sext(...)`` (``v_cmp_gt_i32_sdwa vcc, sext(v1), sext(v1) src0_sel:WORD_0
src1_sel:WORD_1``), whose modifier bit is the one a float operand's ``neg`` takes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS
from luthier.emulator.api import run_kernel

from .arithmetic_kernels import compile_kernels

LANES = 64

HALVES_HIP = """
#define __global__ __attribute__((global))
typedef _Float16 half;
typedef half half2 __attribute__((ext_vector_type(2)));
typedef unsigned short u16;

extern "C" __global__ void halves(const unsigned *in, u16 *out16, float *out32) {
#pragma clang fp contract(off)
  unsigned i = __builtin_amdgcn_workitem_id_x();
  unsigned w = in[i];
  half lo = __builtin_bit_cast(half, (u16)(w & 0xffff));
  half hi = __builtin_bit_cast(half, (u16)(w >> 16));
  half r[8];
  r[0] = lo + hi;
  r[1] = lo * hi;
  r[2] = hi - lo;
  r[3] = -hi < lo ? hi : lo;
  r[4] = __builtin_fabsf16(hi) > lo ? (half)1.0f : (half)0.0f;
  r[5] = __builtin_fmaxf16(hi, -lo);
  r[6] = (half)((float)hi * 3.0f);
  r[7] = hi * hi;
  for (int k = 0; k < 8; ++k) out16[8 * i + k] = __builtin_bit_cast(u16, r[k]);
  out32[2 * i] = (float)hi;
  out32[2 * i + 1] = (float)lo + (float)hi;
}

extern "C" __global__ void shorts(const unsigned *in, u16 *out) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  unsigned w = in[i];
  u16 a = w & 0xffff, b = w >> 16;
  short sa = (short)a, sb = (short)b;
  out[8 * i + 0] = (u16)(a + b);
  out[8 * i + 1] = (u16)(a * b);
  out[8 * i + 2] = (u16)(sa >> (b & 15));
  out[8 * i + 3] = (u16)(a << (b & 15));
  out[8 * i + 4] = (u16)(sa > sb ? sa : sb);
  out[8 * i + 5] = (u16)(a < b ? a : b);
  out[8 * i + 6] = (u16)(b - a);
  out[8 * i + 7] = (u16)((unsigned char)(w >> 8) + (unsigned char)(w >> 24));
}

extern "C" __global__ void pairs(const half2 *in, half2 *out, float *out32) {
#pragma clang fp contract(off)
  unsigned i = __builtin_amdgcn_workitem_id_x();
  half2 v = in[i];
  half2 r;
  r.x = v.x * (half)3.0f;
  r.y = v.y + v.x;
  out[2 * i] = r;
  half2 s = v;
  s.y = -v.y;
  out[2 * i + 1] = s;
  out32[2 * i] = (float)v.y;
  out32[2 * i + 1] = (float)v.x * (float)v.y;
}
"""

F16 = np.float16
F32 = np.float32


def _halves(rng: np.random.Generator) -> tuple[npt.NDArray[np.float16], npt.NDArray[np.float16]]:
    """(low, high) per lane: edge values first (zeros, ones, subnormals, the largest finite,
    infinities, ties), then random finite halves of every magnitude."""
    edges = [(0.0, -0.0), (1.0, -1.0), (6e-8, -6e-8), (6.1e-5, 6.0e-5), (65504.0, -65504.0),
             (np.inf, 2.0), (-np.inf, np.inf), (0.5, 3.0), (-2.0, 2.0), (1e-3, 1e4),
             (2049.0, 1.0), (-0.0, 0.0)]
    bits = rng.integers(0, 1 << 16, (LANES, 2), dtype=np.uint32).astype(np.uint16)
    values = bits.view(F16).copy()
    values[np.isnan(values)] = F16(1.5)
    for lane, (low, high) in enumerate(edges):
        values[lane] = (F16(low), F16(high))
    return values[:, 0].copy(), values[:, 1].copy()


def _bits(values: npt.NDArray[np.floating]) -> list[int]:
    dtype = np.uint16 if values.dtype == F16 else np.uint32
    return [int(v) for v in np.asarray(values).view(dtype)]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return compile_kernels(tmp_path_factory.mktemp("halves"), "halves", HALVES_HIP)


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
def test_half_precision_code_computes_what_numpy_does(kernels: dict[str, Path],
                                                      target: str) -> None:
    low, high = _halves(np.random.default_rng(16))
    packed = low.view(np.uint16).astype(np.uint32) | (high.view(np.uint16).astype(np.uint32)
                                                      << 16)
    with np.errstate(over="ignore", invalid="ignore"):
        want16 = np.stack([
            low + high, low * high, high - low,
            np.where(-high < low, high, low),
            np.where(np.abs(high) > low, F16(1.0), F16(0.0)),
            np.fmax(high, -low),
            (high.astype(F32) * F32(3.0)).astype(F16),
            high * high], axis=1).astype(F16)
        want32 = np.stack([high.astype(F32), low.astype(F32) + high.astype(F32)], axis=1)
        want_pairs = np.stack([low * F16(3.0), high + low, low, -high], axis=1).astype(F16)
        want_pairs32 = np.stack([high.astype(F32), low.astype(F32) * high.astype(F32)], axis=1)

    run = run_kernel(kernels[target], "halves", 1, LANES,
                     [packed, np.zeros(8 * LANES, np.uint16), np.zeros(2 * LANES, F32)])
    got16, got32 = run.buffers[1], run.buffers[2]
    assert got16 is not None and got32 is not None
    got16, got32 = got16.view(np.uint16).reshape(LANES, 8), got32.view(np.uint32).reshape(
        LANES, 2)
    run = run_kernel(kernels[target], "pairs", 1, LANES,
                     [packed, np.zeros(2 * LANES, np.uint32), np.zeros(2 * LANES, F32)])
    got_pairs, got_pairs32 = run.buffers[1], run.buffers[2]
    assert got_pairs is not None and got_pairs32 is not None
    got_pairs = got_pairs.view(np.uint16).reshape(LANES, 4)
    got_pairs32 = got_pairs32.view(np.uint32).reshape(LANES, 2)
    for lane in range(LANES):
        where = f"{target} lane {lane}: low {low[lane]!r}, high {high[lane]!r}"
        assert [int(v) for v in got16[lane]] == _bits(want16[lane]), where
        assert [int(v) for v in got32[lane]] == _bits(want32[lane]), where
        assert [int(v) for v in got_pairs[lane]] == _bits(want_pairs[lane]), where
        assert [int(v) for v in got_pairs32[lane]] == _bits(want_pairs32[lane]), where


def _words(rng: np.random.Generator) -> npt.NDArray[np.uint32]:
    """Edge pairs of halves (signs, the extremes, zero), then random words."""
    words = rng.integers(0, 1 << 32, LANES, dtype=np.uint64).astype(np.uint32)
    words[:10] = [0, 0xFFFF_FFFF, 0x8000_7FFF, 0x7FFF_8000, 0x0001_0001, 0xFFFF_0001,
                  0x0000_FFFF, 0x1234_5678, 0x80FF_7F80, 0x000F_8000]
    return words


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
def test_short_and_byte_code_computes_what_numpy_does(kernels: dict[str, Path],
                                                      target: str) -> None:
    words = _words(np.random.default_rng(17))
    a, b = (words & 0xFFFF).astype(np.uint32), words >> 16
    signed_a = a.astype(np.uint16).view(np.int16).astype(np.int32)
    signed_b = b.astype(np.uint16).view(np.int16).astype(np.int32)
    want = np.stack([a + b, a * b, signed_a >> (b & 15), a << (b & 15),
                     np.maximum(signed_a, signed_b), np.minimum(a, b),
                     b.astype(np.int64) - a, ((words >> 8) & 0xFF) + ((words >> 24) & 0xFF)],
                    axis=1).astype(np.int64) & 0xFFFF
    run = run_kernel(kernels[target], "shorts", 1, LANES, [words, np.zeros(8 * LANES, np.uint16)])
    got = run.buffers[1]
    assert got is not None
    got = got.view(np.uint16).reshape(LANES, 8)
    for lane in range(LANES):
        assert [int(v) for v in got[lane]] == [int(v) for v in want[lane]], \
            f"{target} lane {lane}: word {int(words[lane]):#010x}"
