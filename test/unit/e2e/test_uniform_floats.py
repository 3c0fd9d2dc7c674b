"""Float code on uniform values (kernel arguments), compiled by clang-19 for every target
and run in the emulator, against NumPy.

On GFX12 clang keeps such values in SGPRs and computes with the SALU float instructions
(``s_fmaak_f32``, ``s_cmp_gt_f32``, ``s_floor_f32``, ``s_rndne_f32``, ``s_cvt_f32_f16``,
``s_fmac_f16``...); elsewhere with the VALU on one value. Contraction is on (``s * t +
1`` is one FMA on every target), every other operation is one IEEE rounding of its inputs,
and the cases cover signed zeros, NaN, overflow, ties and values one ulp apart.
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
F32, F16 = np.float32, np.float16

UNIFORM_HIP = """
#define __global__ __attribute__((global))
typedef _Float16 half;
extern "C" __global__ void uniform(float *out, float s, float t, half h) {
#pragma clang fp contract(fast)
  unsigned i = __builtin_amdgcn_workitem_id_x();
  float u = s * t + 1.0f;
  float w = s > t ? __builtin_floorf(s) : __builtin_ceilf(t);
  float x = __builtin_truncf(s - t) + __builtin_rintf(t);
  float y = (float)(h * h + (half)2.0f);
  float z = __builtin_fmaxf(s, t) - __builtin_fminf(s, t);
  out[5 * i] = u * (float)i;
  out[5 * i + 1] = w;
  out[5 * i + 2] = x;
  out[5 * i + 3] = y;
  out[5 * i + 4] = (s == t || s < 0.5f) ? z : u + (float)(half)s;
}
"""

CASES = [(2.5, 1.25, 1.5), (-0.0, 0.0, -2.0), (0.3, 0.7, 0.1), (1e30, -1e30, 65504.0),
         (0.5, 0.5, float("nan")), (float("nan"), 1.0, 0.0), (-7.5, -7.5, 3.0),
         (3.5, -2.5, -0.5), (1.0000001, 16777217.0, 2049.0), (2.5, 3.5, 1.0 + 2 ** -10)]


def _want(s: np.float32, t: np.float32, h: np.float16) -> npt.NDArray[np.float32]:
    lanes = np.arange(LANES, dtype=F32)
    with np.errstate(all="ignore"):
        u = F32(np.float64(s) * np.float64(t) + 1.0)  # one rounding: the product is exact
        w = np.floor(s) if s > t else np.ceil(t)
        x = F32(np.trunc(F32(s - t)) + np.rint(t))
        y = F32(F16(np.float64(h) * np.float64(h) + 2.0))  # an f16 FMA: one rounding
        z = F32(np.fmax(s, t) - np.fmin(s, t))
        last = z if (s == t or s < F32(0.5)) else F32(u + F32(F16(s)))
        return np.stack([u * lanes, np.full(LANES, w, F32), np.full(LANES, x, F32),
                         np.full(LANES, y, F32), np.full(LANES, last, F32)],
                        axis=1).astype(F32)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return compile_kernels(tmp_path_factory.mktemp("uniform"), "uniform", UNIFORM_HIP)


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
def test_uniform_float_code_computes_what_numpy_does(kernels: dict[str, Path],
                                                     target: str) -> None:
    for s, t, h in CASES:
        args = (F32(s), F32(t), F16(h))
        run = run_kernel(kernels[target], "uniform", 1, LANES,
                         [np.zeros(5 * LANES, F32), *args])
        out = run.buffers[0]
        assert out is not None
        got = out.view(F32).reshape(LANES, 5)
        want = _want(*args)
        same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
        bad = np.argwhere(~same)
        assert not len(bad), f"{target} s={s} t={t} h={h}: " + ", ".join(
            f"lane {lane} value {column}: {got[lane, column]!r}, want {want[lane, column]!r}"
            for lane, column in bad[:4])
