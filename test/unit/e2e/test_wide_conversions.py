"""Conversions between 64-bit integers and floats in hooks: what a HIP kernel computes.

A kernel compiled by clang-19 converts per lane a u64 and an s64 to f32 and to f64, and an
f64 and an f32 to u64 and to s64; hooks at its entry convert the same operands (read
through the kernel's arguments) in MLIR, in Python and in HIP. In the emulator, for every
target, each hook's results must equal the kernel's own, which must equal NumPy's
(correctly rounded to nearest even; truncation toward zero): edge values (0, 1, 2^24 + 1,
2^53 + 1, exact halves between two floats, the largest values, the sign bit) and random
ones of every magnitude. Floats given to the integer conversions are within range (out of
range is undefined in LLVM). The kernel's own results must not change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS
from luthier.emulator.api import KernelArgument, run_kernel

from .arithmetic_kernels import compile_kernels, instrument
from .test_instrumented_corpus import LuthierOpt

CONVERT_HIP = """
#define __global__ __attribute__((global))
typedef unsigned long long u64;
typedef long long i64;
extern "C" __global__ void convert(const u64 *ints, const double *doubles, const float *floats,
                                   float *out32, double *out64, u64 *outints) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  u64 n = ints[i];
  out32[2 * i] = (float)n;
  out32[2 * i + 1] = (float)(i64)n;
  out64[2 * i] = (double)n;
  out64[2 * i + 1] = (double)(i64)n;
  double d = doubles[i];
  float f = floats[i];
  outints[4 * i] = (u64)(d < 0 ? -d : d);
  outints[4 * i + 1] = (u64)(i64)d;
  outints[4 * i + 2] = (u64)(f < 0 ? -f : f);
  outints[4 * i + 3] = (u64)(i64)f;
}
"""

#: The names of the hooks' globals, one per conversion, each indexed by lane (separate
#: arrays: clang would merge stores to neighbouring elements into vector stores).
RESULTS = ("u_f32", "s_f32", "u_f64", "s_f64", "d_u64", "d_s64", "f_u64", "f_s64")

#: The same eight conversions, the operands read through the kernel's arguments (ints,
#: doubles, floats at 0, 8 and 16), each result stored into its global.
MLIR_HOOK = """
instr.global @u_f32 {size = 256 : i64}
instr.global @s_f32 {size = 256 : i64}
instr.global @u_f64 {size = 512 : i64}
instr.global @s_f64 {size = 512 : i64}
instr.global @d_u64 {size = 512 : i64}
instr.global @d_s64 {size = 512 : i64}
instr.global @f_u64 {size = 512 : i64}
instr.global @f_s64 {size = 512 : i64}
instr.hook @convert() {
  %lane = instr.lane_id : i32
  %lane64 = arith.extui %lane : i32 to i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %pn = instr.kernarg {offset = 0 : i64} : i64
  %pd = instr.kernarg {offset = 8 : i64} : i64
  %pf = instr.kernarg {offset = 16 : i64} : i64
  %o8 = arith.muli %lane64, %c8 : i64
  %o4 = arith.muli %lane64, %c4 : i64
  %nx = arith.addi %pn, %o8 : i64
  %n = instr.load %nx : i64
  %dx = arith.addi %pd, %o8 : i64
  %d = instr.load %dx : f64
  %fx = arith.addi %pf, %o4 : i64
  %f = instr.load %fx : f32
  %r0 = arith.uitofp %n : i64 to f32
  %g0 = instr.global_addr @u_f32 : i64
  %a0 = arith.addi %g0, %o4 : i64
  instr.store %r0, %a0 {per_lane} : f32
  %r1 = arith.sitofp %n : i64 to f32
  %g1 = instr.global_addr @s_f32 : i64
  %a1 = arith.addi %g1, %o4 : i64
  instr.store %r1, %a1 {per_lane} : f32
  %r2 = arith.uitofp %n : i64 to f64
  %g2 = instr.global_addr @u_f64 : i64
  %a2 = arith.addi %g2, %o8 : i64
  instr.store %r2, %a2 {per_lane} : f64
  %r3 = arith.sitofp %n : i64 to f64
  %g3 = instr.global_addr @s_f64 : i64
  %a3 = arith.addi %g3, %o8 : i64
  instr.store %r3, %a3 {per_lane} : f64
  %dn = arith.negf %d : f64
  %zd = arith.constant 0.0 : f64
  %dneg = arith.cmpf olt, %d, %zd : f64
  %dabs = arith.select %dneg, %dn, %d : f64
  %r4 = arith.fptoui %dabs : f64 to i64
  %g4 = instr.global_addr @d_u64 : i64
  %a4 = arith.addi %g4, %o8 : i64
  instr.store %r4, %a4 {per_lane} : i64
  %r5 = arith.fptosi %d : f64 to i64
  %g5 = instr.global_addr @d_s64 : i64
  %a5 = arith.addi %g5, %o8 : i64
  instr.store %r5, %a5 {per_lane} : i64
  %fn = arith.negf %f : f32
  %zf = arith.constant 0.0 : f32
  %fneg = arith.cmpf olt, %f, %zf : f32
  %fabs = arith.select %fneg, %fn, %f : f32
  %r6 = arith.fptoui %fabs : f32 to i64
  %g6 = instr.global_addr @f_u64 : i64
  %a6 = arith.addi %g6, %o8 : i64
  instr.store %r6, %a6 {per_lane} : i64
  %r7 = arith.fptosi %f : f32 to i64
  %g7 = instr.global_addr @f_s64 : i64
  %a7 = arith.addi %g7, %o8 : i64
  instr.store %r7, %a7 {per_lane} : i64
  instr.return
}
instr.insert @convert {at = "kernel_entry", args = []}
"""

PYTHON_HOOK = '''
from luthier.frontend.hooks import HookBuilder, HookModule, f32, f64, i64

hooks = HookModule()
out = {name: hooks.global_var(name, size=256 if name.endswith("f32") else 512)
       for name in ("u_f32", "s_f32", "u_f64", "s_f64", "d_u64", "d_s64", "f_u64", "f_s64")}


@hooks.hook()
def convert(h: HookBuilder) -> None:
    lane = h.lane_id().zext(i64)
    n = h.load(h.kernarg(0, i64) + lane * 8, i64)
    d = h.load(h.kernarg(8, i64) + lane * 8, f64)
    f = h.load(h.kernarg(16, i64) + lane * 4, f32)

    def store(name, value, size):
        h.store(value, h.global_addr(out[name]) + lane * size, per_lane=True)

    store("u_f32", n.uitofp(f32), 4)
    store("s_f32", n.sitofp(f32), 4)
    store("u_f64", n.uitofp(f64), 8)
    store("s_f64", n.sitofp(f64), 8)
    store("d_u64", h.select(d < 0.0, -d, d).fptoui(i64), 8)
    store("d_s64", d.fptosi(i64), 8)
    store("f_u64", h.select(f < 0.0, -f, f).fptoui(i64), 8)
    store("f_s64", f.fptosi(i64), 8)


hooks.insert(convert, at="kernel_entry")
'''

HIP_HOOK = """
#include "luthier_hooks.h"

LUTHIER_GLOBAL float u_f32[64], s_f32[64];
LUTHIER_GLOBAL double u_f64[64], s_f64[64];
LUTHIER_GLOBAL unsigned long long d_u64[64], d_s64[64], f_u64[64], f_s64[64];

LUTHIER_HOOK void convert() {
  unsigned int i = luthier_lane_id();
  unsigned long long n = ((const unsigned long long *)luthier_kernarg64(0))[i];
  double d = ((const double *)luthier_kernarg64(8))[i];
  float f = ((const float *)luthier_kernarg64(16))[i];
  u_f32[i] = (float)n;
  s_f32[i] = (float)(long long)n;
  u_f64[i] = (double)n;
  s_f64[i] = (double)(long long)n;
  d_u64[i] = (unsigned long long)(d < 0 ? -d : d);
  d_s64[i] = (unsigned long long)(long long)d;
  f_u64[i] = (unsigned long long)(f < 0 ? -f : f);
  f_s64[i] = (unsigned long long)(long long)f;
}

LUTHIER_INSERT(convert, at = "kernel_entry", args = []);
"""

LANES = 64


def _operands(rng: np.random.Generator) -> tuple[npt.NDArray[np.uint64],
                                                  npt.NDArray[np.float64],
                                                  npt.NDArray[np.float32]]:
    edges = [0, 1, (1 << 24) + 1, (1 << 53) + 1, (1 << 64) - 1, 1 << 63, (1 << 63) - 1,
             (1 << 63) + 1, (1 << 25) + 2, (1 << 25) + 6, (1 << 54) + 2, (1 << 54) + 6,
             (1 << 32) - 1, 1 << 32, (1 << 64) - (1 << 39), (1 << 64) - (1 << 40) + 1,
             # exact halves between two f32 (to even: down), and just above them (up)
             (1 << 63) + (1 << 39), (1 << 63) + (1 << 39) + 1, (1 << 40) + (1 << 16),
             (1 << 40) + (1 << 16) + 1]
    magnitudes = rng.integers(0, 65, LANES)
    ints = np.array([int(rng.integers(0, 1 << 62)) * 4 % (1 << int(m)) if m else 0
                     for m in magnitudes], dtype=np.uint64)
    ints |= rng.integers(0, 2, LANES).astype(np.uint64) << np.uint64(63)
    ints[:len(edges)] = np.array(edges, dtype=np.uint64)
    # Floats within the range of both conversions (|x| < 2^63), every magnitude.
    exponents = rng.integers(-4, 63, LANES).astype(np.float64)
    doubles = rng.uniform(0.5, 1.0, LANES) * np.exp2(exponents) \
        * rng.choice([-1.0, 1.0], LANES)
    doubles[:6] = [0.0, -0.0, 0.75, -2.5, 2.0 ** 62 + 2.0 ** 11, -(2.0 ** 63)]
    floats = doubles.astype(np.float32)
    floats[5] = np.float32(-(2.0 ** 62))
    return ints, doubles, floats


def _same_bits(got: npt.NDArray[Any], want: npt.NDArray[Any]) -> bool:
    raw = np.uint32 if got.dtype == np.float32 else np.uint64
    return bool(np.array_equal(got.view(raw), want.view(raw)))


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The convert kernel compiled by clang-19 for every supported target."""
    return compile_kernels(tmp_path_factory.mktemp("convert"), "convert", CONVERT_HIP)


HOOKS = {"mlir": (MLIR_HOOK, ".mlir"), "python": (PYTHON_HOOK, ".py"), "hip": (HIP_HOOK, ".hip")}


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
@pytest.mark.parametrize("language", sorted(HOOKS))
def test_hook_conversions_are_the_kernels_and_numpys(kernels: dict[str, Path], target: str,
                                                     language: str, tmp_path: Path,
                                                     luthier_opt: LuthierOpt) -> None:
    text, suffix = HOOKS[language]
    instrumented = instrument(kernels[target], text, suffix, tmp_path, luthier_opt)
    rng = np.random.default_rng(2028)
    for _ in range(3):
        ints, doubles, floats = _operands(rng)
        arguments: list[KernelArgument] = [
            ints, doubles, floats, np.zeros(2 * LANES, np.float32),
            np.zeros(2 * LANES, np.float64), np.zeros(4 * LANES, np.uint64)]
        original = run_kernel(kernels[target], "convert", 1, LANES, list(arguments))
        after = run_kernel(instrumented, "convert", 1, LANES, list(arguments))
        kernel32, kernel64, kernel_ints = (original.buffers[3], original.buffers[4],
                                           original.buffers[5])
        assert kernel32 is not None and kernel64 is not None and kernel_ints is not None
        signed = ints.view(np.int64)
        want32 = np.stack([ints.astype(np.float32), signed.astype(np.float32)], 1).ravel()
        want64 = np.stack([ints.astype(np.float64), signed.astype(np.float64)], 1).ravel()
        want_ints = np.stack([np.abs(doubles).astype(np.uint64),
                              doubles.astype(np.int64).view(np.uint64),
                              np.abs(floats).astype(np.uint64),
                              floats.astype(np.int64).view(np.uint64)], 1).ravel()
        assert _same_bits(kernel32, want32) and _same_bits(kernel64, want64), \
            "clang's conversions differ from NumPy's"
        assert np.array_equal(kernel_ints, want_ints), "clang's conversions differ from NumPy's"
        got = {name: np.frombuffer(after.globals[name], np.float32 if name.endswith("f32")
                                   else np.float64 if name.endswith("f64") else np.uint64)
               for name in RESULTS}
        wants = {"u_f32": want32[0::2], "s_f32": want32[1::2], "u_f64": want64[0::2],
                 "s_f64": want64[1::2], "d_u64": want_ints[0::4], "d_s64": want_ints[1::4],
                 "f_u64": want_ints[2::4], "f_s64": want_ints[3::4]}
        wrong = [(name, lane, hex(int(ints[lane])), float(doubles[lane]), float(floats[lane]))
                 for name in RESULTS for lane in range(LANES)
                 if not _same_bits(got[name][lane:lane + 1], wants[name][lane:lane + 1])]
        assert wrong == [], wrong[:6]
        for before, again in zip(original.buffers, after.buffers, strict=True):
            if before is not None and again is not None:
                assert np.array_equal(before, again), "the kernel's own results changed"
