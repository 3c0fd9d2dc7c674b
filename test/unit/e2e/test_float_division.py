"""``a / b`` in hooks is the quotient a HIP kernel computes: correctly rounded IEEE.

A kernel compiled by clang-19 divides a[i] / b[i] (f32) and x[i] / y[i] (f64) per lane; a
hook at its entry divides the same operands (read through the kernel's arguments), in MLIR
and in Python. In the emulator, for every target, the hook's quotients must be
bit-identical to the kernel's own, which must be NumPy's IEEE quotients: special values
(zeros, infinities, NaN, the largest and smallest normals, denormals), random bit patterns,
and random exponents near both ends of each range (denormal quotients, quotients that
overflow, far beyond v_div_scale's scaling range). The kernel's own results must not change.
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

DIVIDE_HIP = """
#define __global__ __attribute__((global))
extern "C" __global__ void divide(const float *a, const float *b, float *q32,
                                  const double *x, const double *y, double *q64) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  q32[i] = a[i] / b[i];
  q64[i] = x[i] / y[i];
}
"""

#: Reads operand i of each width through the kernel's arguments (a, b at 0 and 8; x, y at
#: 24 and 32) and stores the quotients into its own globals; also divides a uniform value
#: (EXEC's popcount: 64) by 3 and 7, in lane 0 alone.
HOOK = """
instr.global @q32 {size = 256 : i64}
instr.global @q64 {size = 512 : i64}
instr.global @uniform {size = 16 : i64}
instr.hook @divide() {
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
  %g = instr.global_addr @q32 : i64
  %gq = arith.addi %g, %o4 : i64
  instr.store %q, %gq {per_lane} : f32
  %o8 = arith.muli %lane64, %eight : i64
  %xx = arith.addi %px, %o8 : i64
  %x = instr.load %xx : f64
  %yx = arith.addi %py, %o8 : i64
  %y = instr.load %yx : f64
  %q64 = arith.divf %x, %y : f64
  %g64 = instr.global_addr @q64 : i64
  %gq64 = arith.addi %g64, %o8 : i64
  instr.store %q64, %gq64 {per_lane} : f64
  %exec = instr.read_reg "exec" : i64
  %n = instr.popcount %exec : i64
  %nf = arith.sitofp %n : i32 to f32
  %three = arith.constant 3.0 : f32
  %third = arith.divf %nf, %three : f32
  %gu = instr.global_addr @uniform : i64
  instr.store %third, %gu : f32
  %nd = arith.sitofp %n : i32 to f64
  %seven = arith.constant 7.0 : f64
  %seventh = arith.divf %nd, %seven : f64
  %gu8 = arith.addi %gu, %eight : i64
  instr.store %seventh, %gu8 : f64
  instr.return
}
instr.insert @divide {at = "kernel_entry", args = []}
"""

PYTHON_HOOK = '''
from luthier.frontend.hooks import HookBuilder, HookModule, f32, f64, i64

hooks = HookModule()
q32 = hooks.global_var("q32", size=256)
q64 = hooks.global_var("q64", size=512)


@hooks.hook()
def divide(h: HookBuilder) -> None:
    lane = h.lane_id().zext(i64)
    a = h.load(h.kernarg(0, i64) + lane * 4, f32)
    b = h.load(h.kernarg(8, i64) + lane * 4, f32)
    h.store(a / b, h.global_addr(q32) + lane * 4, per_lane=True)
    x = h.load(h.kernarg(24, i64) + lane * 8, f64)
    y = h.load(h.kernarg(32, i64) + lane * 8, f64)
    h.store(x / y, h.global_addr(q64) + lane * 8, per_lane=True)


hooks.insert(divide, at="kernel_entry")
'''

LANES = 64


def _specials(ftype: type[np.floating], rng: np.random.Generator
              ) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]]:
    """36 pairs of special values, the extremes of the range against each other, and
    random bit patterns for the other lanes."""
    info = np.finfo(ftype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -3.0], ftype)
    a, b = np.empty(LANES, ftype), np.empty(LANES, ftype)
    pairs = [(x, y) for x in specials for y in specials] + [
        (info.max, info.smallest_subnormal), (info.smallest_subnormal, info.max),
        (info.tiny, 3.0), (1.0, info.max), (info.max, 0.5), (info.smallest_subnormal, 0.75)]
    for lane, (x, y) in enumerate(pairs):
        a[lane], b[lane] = x, y
    width = 8 * np.dtype(ftype).itemsize
    bits = rng.integers(0, 1 << width, 2 * (LANES - len(pairs)), dtype=np.uint64)
    raw = bits.astype(np.uint32 if width == 32 else np.uint64).view(ftype)
    a[len(pairs):], b[len(pairs):] = raw[:LANES - len(pairs)], raw[LANES - len(pairs):]
    return a, b


def _extremes(ftype: type[np.floating], rng: np.random.Generator
              ) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]]:
    """Random signs and mantissas with exponents drawn mostly from the ends of the range
    (denormals, the smallest normals, the largest finite values)."""
    exponent_bits, mantissa_bits = (8, 23) if ftype is np.float32 else (11, 52)
    top = (1 << exponent_bits) - 1

    def draw() -> npt.NDArray[np.floating]:
        sign = rng.integers(0, 2, LANES).astype(np.uint64)
        exponent = rng.choice([0, 1, 2, top - 1, top - 2, *rng.integers(0, top, 8)],
                              LANES).astype(np.uint64)
        mantissa = rng.integers(0, 1 << mantissa_bits, LANES, dtype=np.uint64)
        word = (sign << np.uint64(exponent_bits + mantissa_bits)) \
            | (exponent << np.uint64(mantissa_bits)) | mantissa
        return word.astype(np.uint32 if ftype is np.float32 else np.uint64).view(ftype)

    return draw(), draw()


def _same(got: npt.NDArray[np.floating], want: npt.NDArray[np.floating]) -> list[int]:
    """Lanes whose bits differ (any NaN equals any NaN)."""
    raw = np.uint32 if got.dtype == np.float32 else np.uint64
    return [lane for lane in range(LANES)
            if not (np.isnan(got[lane]) and np.isnan(want[lane]))
            and got.view(raw)[lane] != want.view(raw)[lane]]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The divide kernel compiled by clang-19 for every supported target."""
    return compile_kernels(tmp_path_factory.mktemp("divide"), "divide", DIVIDE_HIP)


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
@pytest.mark.parametrize("hook", [HOOK, PYTHON_HOOK], ids=["mlir", "python"])
def test_hook_quotients_are_the_kernels_and_ieee(kernels: dict[str, Path], target: str,
                                                 hook: str, tmp_path: Path,
                                                 luthier_opt: LuthierOpt) -> None:
    instrumented = instrument(kernels[target], hook, ".mlir" if hook is HOOK else ".py",
                              tmp_path, luthier_opt)
    rng = np.random.default_rng(2026)
    cases = [(_specials(np.float32, rng), _specials(np.float64, rng))] + [
        (_extremes(np.float32, rng), _extremes(np.float64, rng)) for _ in range(4)]
    for (a, b), (x, y) in cases:
        arguments: list[KernelArgument] = [a, b, np.zeros(LANES, np.float32), x, y,
                                   np.zeros(LANES, np.float64)]
        original = run_kernel(kernels[target], "divide", 1, LANES, list(arguments))
        after = run_kernel(instrumented, "divide", 1, LANES, list(arguments))
        kernel32, kernel64 = original.buffers[2], original.buffers[5]
        assert kernel32 is not None and kernel64 is not None
        with np.errstate(all="ignore"):
            assert _same(kernel32, a / b) == [], "clang's f32 division is not IEEE here"
            assert _same(kernel64, x / y) == [], "clang's f64 division is not IEEE here"
        hook32 = np.frombuffer(after.globals["q32"], np.float32)
        hook64 = np.frombuffer(after.globals["q64"], np.float64)
        assert _same(hook32, kernel32) == [] and _same(hook64, kernel64) == []
        if hook is HOOK:
            uniform = after.globals["uniform"]
            assert np.frombuffer(uniform[:4], np.float32)[0] == np.float32(64) / np.float32(3)
            assert np.frombuffer(uniform[8:], np.float64)[0] == np.float64(64) / np.float64(7)
        again32, again64 = after.buffers[2], after.buffers[5]
        assert again32 is not None and again64 is not None
        assert _same(again32, kernel32) == [] and _same(again64, kernel64) == []
