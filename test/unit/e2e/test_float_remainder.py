"""``fmodf``/``fmod`` in hooks: the remainders a HIP kernel computes.

clang-19 gives ``fmodf``/``fmod`` as LLVM's ``frem``, which the AMDGPU backend lowers to
``fma(-trunc(x / y), y, x)`` with the IEEE quotient. A kernel compiled by clang-19 computes
``fmodf(a[i], b[i])`` and ``fmod(x[i], y[i])`` per lane; hooks at its entry compute the same
from the kernel's arguments: HIP (``__builtin_fmodf``/``__builtin_fmod``, imported ``frem``),
Python (``%`` on floats) and MLIR (the expansion written out). In the emulator, for every
target, the hooks' results must be bit-identical to the kernel's, over special values
(zeros, infinities, NaN), random magnitudes and random bits. That is not always C's fmod
(the quotient is rounded before it is truncated, and -0.0 % 3 is +0.0): it is what HIP
computes on the GPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS
from luthier.emulator.api import KernelArgument, run_kernel

from .arithmetic_kernels import compile_kernels, instrument
from .test_instrumented_corpus import LuthierOpt

REMAINDER_HIP = """
#define __global__ __attribute__((global))
extern "C" __global__ void remainder(const float *a, const float *b, float *r32,
                                     const double *x, const double *y, double *r64) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  r32[i] = __builtin_fmodf(a[i], b[i]);
  r64[i] = __builtin_fmod(x[i], y[i]);
}
"""

MLIR_HOOK = """
instr.global @r32 {size = 256 : i64}
instr.global @r64 {size = 512 : i64}
instr.hook @remainder() {
  %lane = instr.lane_id : i32
  %lane64 = arith.extui %lane : i32 to i64
  %four = arith.constant 4 : i64
  %eight = arith.constant 8 : i64
  %pa = instr.kernarg {offset = 0 : i64} : i64
  %pb = instr.kernarg {offset = 8 : i64} : i64
  %px = instr.kernarg {offset = 24 : i64} : i64
  %py = instr.kernarg {offset = 32 : i64} : i64
  %o4 = arith.muli %lane64, %four : i64
  %ax = arith.addi %pa, %o4 : i64
  %a = instr.load %ax : f32
  %bx = arith.addi %pb, %o4 : i64
  %b = instr.load %bx : f32
  %q = arith.divf %a, %b : f32
  %t = math.trunc %q : f32
  %n = arith.negf %t : f32
  %r = math.fma %n, %b, %a : f32
  %g = instr.global_addr @r32 : i64
  %gr = arith.addi %g, %o4 : i64
  instr.store %r, %gr {per_lane} : f32
  %o8 = arith.muli %lane64, %eight : i64
  %xx = arith.addi %px, %o8 : i64
  %x = instr.load %xx : f64
  %yx = arith.addi %py, %o8 : i64
  %y = instr.load %yx : f64
  %q64 = arith.divf %x, %y : f64
  %t64 = math.trunc %q64 : f64
  %n64 = arith.negf %t64 : f64
  %r64 = math.fma %n64, %y, %x : f64
  %h = instr.global_addr @r64 : i64
  %hr = arith.addi %h, %o8 : i64
  instr.store %r64, %hr {per_lane} : f64
  instr.return
}
instr.insert @remainder {at = "kernel_entry", args = []}
"""

PYTHON_HOOK = '''
from luthier.frontend.hooks import HookBuilder, HookModule, f32, f64, i64

hooks = HookModule()
r32 = hooks.global_var("r32", size=256)
r64 = hooks.global_var("r64", size=512)


@hooks.hook()
def remainder(h: HookBuilder) -> None:
    lane = h.lane_id().zext(i64)
    a = h.load(h.kernarg(0, i64) + lane * 4, f32)
    b = h.load(h.kernarg(8, i64) + lane * 4, f32)
    h.store(a % b, h.global_addr(r32) + lane * 4, per_lane=True)
    x = h.load(h.kernarg(24, i64) + lane * 8, f64)
    y = h.load(h.kernarg(32, i64) + lane * 8, f64)
    h.store(x % y, h.global_addr(r64) + lane * 8, per_lane=True)


hooks.insert(remainder, at="kernel_entry")
'''

HIP_HOOK = """
#include "luthier_hooks.h"

LUTHIER_GLOBAL float r32[64];
LUTHIER_GLOBAL double r64[64];

LUTHIER_HOOK void remainder() {
  unsigned int i = luthier_lane_id();
  const float *a = (const float *)luthier_kernarg64(0);
  const float *b = (const float *)luthier_kernarg64(8);
  const double *x = (const double *)luthier_kernarg64(24);
  const double *y = (const double *)luthier_kernarg64(32);
  r32[i] = __builtin_fmodf(a[i], b[i]);
  r64[i] = __builtin_fmod(x[i], y[i]);
}

LUTHIER_INSERT(remainder, at = "kernel_entry", args = []);
"""

LANES = 64


def _operands(ftype: type[np.floating], rng: np.random.Generator
              ) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]]:
    specials = [(0.0, 1.0), (-0.0, 3.0), (5.5, 0.0), (np.inf, 2.0), (7.0, np.inf),
                (np.nan, 1.0), (1.0, np.nan), (-7.5, 2.0), (7.5, -2.0), (1e30, 3.0),
                (2.0 ** 30 + 0.5, 0.25), (-1e-30, 7e-31)]
    top = 30 if ftype is np.float32 else 200
    a = rng.uniform(-1, 1, LANES) * np.exp2(rng.integers(-top, top, LANES).astype(float))
    b = rng.uniform(0.1, 1, LANES) * np.exp2(rng.integers(-top, top, LANES).astype(float)) \
        * rng.choice([-1.0, 1.0], LANES)
    a, b = a.astype(ftype), b.astype(ftype)
    for lane, (x, y) in enumerate(specials):
        a[lane], b[lane] = ftype(x), ftype(y)
    width = 8 * np.dtype(ftype).itemsize
    raw = np.uint32 if width == 32 else np.uint64
    bits = rng.integers(0, 1 << min(width, 63), 2 * 8, dtype=np.uint64).astype(raw)
    a[-8:], b[-8:] = bits[:8].view(ftype), bits[8:].view(ftype)
    return a, b


def _same(got: npt.NDArray[np.floating], want: npt.NDArray[np.floating]) -> list[int]:
    """Lanes whose bits differ (any NaN equals any NaN)."""
    raw = np.uint32 if got.dtype == np.float32 else np.uint64
    return [lane for lane in range(len(got))
            if not (np.isnan(got[lane]) and np.isnan(want[lane]))
            and got.view(raw)[lane] != want.view(raw)[lane]]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The remainder kernel compiled by clang-19 for every supported target."""
    return compile_kernels(tmp_path_factory.mktemp("remainder"), "remainder", REMAINDER_HIP)


HOOKS = {"mlir": (MLIR_HOOK, ".mlir"), "python": (PYTHON_HOOK, ".py"), "hip": (HIP_HOOK, ".hip")}


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
@pytest.mark.parametrize("language", sorted(HOOKS))
def test_hook_remainders_are_the_kernels(kernels: dict[str, Path], target: str,
                                         language: str, tmp_path: Path,
                                         luthier_opt: LuthierOpt) -> None:
    text, suffix = HOOKS[language]
    instrumented = instrument(kernels[target], text, suffix, tmp_path, luthier_opt)
    rng = np.random.default_rng(2029)
    for _ in range(3):
        a, b = _operands(np.float32, rng)
        x, y = _operands(np.float64, rng)
        arguments: list[KernelArgument] = [a, b, np.zeros(LANES, np.float32), x, y,
                                           np.zeros(LANES, np.float64)]
        original = run_kernel(kernels[target], "remainder", 1, LANES, list(arguments))
        after = run_kernel(instrumented, "remainder", 1, LANES, list(arguments))
        kernel32, kernel64 = original.buffers[2], original.buffers[5]
        assert kernel32 is not None and kernel64 is not None
        # Where nothing rounds, frem is C's fmod: -7.5 % 2 is -1.5, 7.5 % -2 is 1.5.
        assert list(kernel32[7:9]) == [-1.5, 1.5] and list(kernel64[7:9]) == [-1.5, 1.5]
        hook32 = np.frombuffer(after.globals["r32"], np.float32)
        hook64 = np.frombuffer(after.globals["r64"], np.float64)
        assert _same(hook32, kernel32) == [] and _same(hook64, kernel64) == []
        again32, again64 = after.buffers[2], after.buffers[5]
        assert again32 is not None and again64 is not None
        assert _same(again32, kernel32) == [] and _same(again64, kernel64) == []
