"""``a / b`` and ``a % b`` on integers in hooks: the quotients and remainders a HIP kernel
computes, for i32 and i64, unsigned and signed (truncating).

A kernel compiled by clang-19 divides its operands per lane in all eight ways; hooks at its
entry divide the same operands (read through the kernel's arguments) in MLIR, in Python and
in HIP. In the emulator, for every target, each hook's results must equal the kernel's own,
which must equal Python's integer arithmetic: edge values (the largest, the sign bit, 1, a
power of two, all ones, a divisor above the dividend) and random ones with divisors drawn
small, medium and full-width. The MLIR hook also divides uniform values (lane 0 alone).
The kernel's own results must not change.
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
typedef unsigned long long u64;
typedef long long i64;
extern "C" __global__ void divide(const unsigned *a, const unsigned *b, unsigned *out32,
                                  const u64 *x, const u64 *y, u64 *out64) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  unsigned p = a[i], q = b[i];
  out32[4 * i] = p / q;
  out32[4 * i + 1] = p % q;
  out32[4 * i + 2] = (unsigned)((int)p / (int)q);
  out32[4 * i + 3] = (unsigned)((int)p % (int)q);
  u64 s = x[i], t = y[i];
  out64[4 * i] = s / t;
  out64[4 * i + 1] = s % t;
  out64[4 * i + 2] = (u64)((i64)s / (i64)t);
  out64[4 * i + 3] = (u64)((i64)s % (i64)t);
}
"""

#: Reads the operands of each width through the kernel's arguments (a, b at 0 and 8; x, y at
#: 24 and 32) and stores the four results per lane into its own globals, as the kernel lays
#: them out; also divides uniform values (EXEC's popcount, 64) by 7 and by -7, and
#: -(10^12 + 7) by it.
MLIR_HOOK = """
instr.global @r32 {size = 1024 : i64}
instr.global @r64 {size = 2048 : i64}
instr.global @uniform {size = 32 : i64}
instr.hook @divide() {
  %lane = instr.lane_id : i32
  %lane64 = arith.extui %lane : i32 to i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c16 = arith.constant 16 : i64
  %c32 = arith.constant 32 : i64
  %pa = instr.kernarg {offset = 0 : i64} : i64
  %pb = instr.kernarg {offset = 8 : i64} : i64
  %px = instr.kernarg {offset = 24 : i64} : i64
  %py = instr.kernarg {offset = 32 : i64} : i64
  %o4 = arith.muli %lane64, %c4 : i64
  %ax = arith.addi %pa, %o4 : i64
  %a = instr.load %ax : i32
  %bx = arith.addi %pb, %o4 : i64
  %b = instr.load %bx : i32
  %q = arith.divui %a, %b : i32
  %r = arith.remui %a, %b : i32
  %qs = arith.divsi %a, %b : i32
  %rs = arith.remsi %a, %b : i32
  %g = instr.global_addr @r32 : i64
  %o16 = arith.muli %lane64, %c16 : i64
  %g0 = arith.addi %g, %o16 : i64
  instr.store %q, %g0 {per_lane} : i32
  %g1 = arith.addi %g0, %c4 : i64
  instr.store %r, %g1 {per_lane} : i32
  %g2 = arith.addi %g1, %c4 : i64
  instr.store %qs, %g2 {per_lane} : i32
  %g3 = arith.addi %g2, %c4 : i64
  instr.store %rs, %g3 {per_lane} : i32
  %o8 = arith.muli %lane64, %c8 : i64
  %xx = arith.addi %px, %o8 : i64
  %x = instr.load %xx : i64
  %yx = arith.addi %py, %o8 : i64
  %y = instr.load %yx : i64
  %q64 = arith.divui %x, %y : i64
  %r64 = arith.remui %x, %y : i64
  %qs64 = arith.divsi %x, %y : i64
  %rs64 = arith.remsi %x, %y : i64
  %h = instr.global_addr @r64 : i64
  %o32 = arith.muli %lane64, %c32 : i64
  %h0 = arith.addi %h, %o32 : i64
  instr.store %q64, %h0 {per_lane} : i64
  %h1 = arith.addi %h0, %c8 : i64
  instr.store %r64, %h1 {per_lane} : i64
  %h2 = arith.addi %h1, %c8 : i64
  instr.store %qs64, %h2 {per_lane} : i64
  %h3 = arith.addi %h2, %c8 : i64
  instr.store %rs64, %h3 {per_lane} : i64
  %exec = instr.read_reg "exec" : i64
  %n = instr.popcount %exec : i64
  %seven = arith.constant 7 : i32
  %minus7 = arith.constant -7 : i32
  %u0 = arith.divui %n, %seven : i32
  %u1 = arith.remui %n, %seven : i32
  %u2 = arith.divsi %n, %minus7 : i32
  %u3 = arith.remsi %n, %minus7 : i32
  %gu = instr.global_addr @uniform : i64
  instr.store %u0, %gu : i32
  %gu1 = arith.addi %gu, %c4 : i64
  instr.store %u1, %gu1 : i32
  %gu2 = arith.addi %gu1, %c4 : i64
  instr.store %u2, %gu2 : i32
  %gu3 = arith.addi %gu2, %c4 : i64
  instr.store %u3, %gu3 : i32
  %n64 = arith.extui %n : i32 to i64
  %big = arith.constant -1000000000007 : i64
  %u4 = arith.divsi %big, %n64 : i64
  %u5 = arith.remsi %big, %n64 : i64
  %gu4 = arith.addi %gu3, %c4 : i64
  instr.store %u4, %gu4 : i64
  %gu5 = arith.addi %gu4, %c8 : i64
  instr.store %u5, %gu5 : i64
  instr.return
}
instr.insert @divide {at = "kernel_entry", args = []}
"""

#: The unsigned results in Python (``//`` and ``%`` build arith.divui and arith.remui).
PYTHON_HOOK = '''
from luthier.frontend.hooks import HookBuilder, HookModule, i32, i64

hooks = HookModule()
r32 = hooks.global_var("r32", size=1024)
r64 = hooks.global_var("r64", size=2048)


@hooks.hook()
def divide(h: HookBuilder) -> None:
    lane = h.lane_id().zext(i64)
    a = h.load(h.kernarg(0, i64) + lane * 4, i32)
    b = h.load(h.kernarg(8, i64) + lane * 4, i32)
    h.store(a // b, h.global_addr(r32) + lane * 16, per_lane=True)
    h.store(a % b, h.global_addr(r32) + lane * 16 + 4, per_lane=True)
    x = h.load(h.kernarg(24, i64) + lane * 8, i64)
    y = h.load(h.kernarg(32, i64) + lane * 8, i64)
    h.store(x // y, h.global_addr(r64) + lane * 32, per_lane=True)
    h.store(x % y, h.global_addr(r64) + lane * 32 + 8, per_lane=True)


hooks.insert(divide, at="kernel_entry")
'''

#: All eight in HIP, as a tool writer writes them (clang-19 compiles it; udiv, urem, sdiv and
#: srem import as the arith divisions).
HIP_HOOK = """
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned int r32[256];
LUTHIER_GLOBAL unsigned long long r64[256];

LUTHIER_HOOK void divide() {
  unsigned int i = luthier_lane_id();
  const unsigned int *a = (const unsigned int *)luthier_kernarg64(0);
  const unsigned int *b = (const unsigned int *)luthier_kernarg64(8);
  const unsigned long long *x = (const unsigned long long *)luthier_kernarg64(24);
  const unsigned long long *y = (const unsigned long long *)luthier_kernarg64(32);
  unsigned int p = a[i], q = b[i];
  r32[4 * i] = p / q;
  r32[4 * i + 1] = p % q;
  r32[4 * i + 2] = (unsigned int)((int)p / (int)q);
  r32[4 * i + 3] = (unsigned int)((int)p % (int)q);
  unsigned long long s = x[i], t = y[i];
  r64[4 * i] = s / t;
  r64[4 * i + 1] = s % t;
  r64[4 * i + 2] = (unsigned long long)((long long)s / (long long)t);
  r64[4 * i + 3] = (unsigned long long)((long long)s % (long long)t);
}

LUTHIER_INSERT(divide, at = "kernel_entry", args = []);
"""

LANES = 64


def _reference(p: int, q: int, width: int) -> list[int]:
    """Unsigned quotient and remainder, then the truncating signed ones, as raw bits."""
    mask = (1 << width) - 1

    def signed(value: int) -> int:
        return value - (1 << width) if value >> (width - 1) else value

    a, b = signed(p), signed(q)
    quotient = abs(a) // abs(b) * (-1 if (a < 0) != (b < 0) else 1)
    return [p // q, p % q, quotient & mask, (a - quotient * b) & mask]


def _operands(rng: np.random.Generator, width: int
              ) -> tuple[npt.NDArray[np.unsignedinteger], npt.NDArray[np.unsignedinteger]]:
    dtype = np.uint32 if width == 32 else np.uint64
    top = (1 << width) - 1
    sign = 1 << (width - 1)
    edges = [(top, 1), (sign, 1), (5, 3), (top, top), (sign, sign), (0, 7), (1, top - 1),
             (sign - 1, 2), (top, sign), (sign, top), (top - 5, 3), (sign + 7, top - 3),
             (12345, 65536), (top, 1 << (width // 2)), (3, 5), (sign, 3)]
    dividends = rng.integers(0, top, LANES, dtype=np.uint64, endpoint=True)
    divisors = np.concatenate([
        rng.integers(1, 300, 16, dtype=np.uint64),
        rng.integers(1, 1 << (width // 2 + 1), 16, dtype=np.uint64),
        rng.integers(1, top, LANES - 32, dtype=np.uint64, endpoint=True)])
    rng.shuffle(divisors)
    for lane, (p, q) in enumerate(edges):
        dividends[lane], divisors[lane] = p, q
    return dividends.astype(dtype), divisors.astype(dtype)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The divide kernel compiled by clang-19 for every supported target."""
    return compile_kernels(tmp_path_factory.mktemp("divide"), "divide", DIVIDE_HIP)


HOOKS = {"mlir": (MLIR_HOOK, ".mlir"), "python": (PYTHON_HOOK, ".py"), "hip": (HIP_HOOK, ".hip")}


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
@pytest.mark.parametrize("language", sorted(HOOKS))
def test_hook_results_are_the_kernels_and_exact(kernels: dict[str, Path], target: str,
                                                language: str, tmp_path: Path,
                                                luthier_opt: LuthierOpt) -> None:
    text, suffix = HOOKS[language]
    instrumented = instrument(kernels[target], text, suffix, tmp_path, luthier_opt)
    rng = np.random.default_rng(2027)
    # Python's hook computes the unsigned pair only.
    ways = 2 if language == "python" else 4
    for _ in range(3):
        a, b = _operands(rng, 32)
        x, y = _operands(rng, 64)
        arguments: list[KernelArgument] = [a, b, np.zeros(4 * LANES, np.uint32), x, y,
                                           np.zeros(4 * LANES, np.uint64)]
        original = run_kernel(kernels[target], "divide", 1, LANES, list(arguments))
        after = run_kernel(instrumented, "divide", 1, LANES, list(arguments))
        kernel32, kernel64 = original.buffers[2], original.buffers[5]
        assert kernel32 is not None and kernel64 is not None
        hook32 = np.frombuffer(after.globals["r32"], np.uint32).reshape(LANES, 4)
        hook64 = np.frombuffer(after.globals["r64"], np.uint64).reshape(LANES, 4)
        for lane in range(LANES):
            want32 = _reference(int(a[lane]), int(b[lane]), 32)
            want64 = _reference(int(x[lane]), int(y[lane]), 64)
            assert [int(v) for v in kernel32.reshape(LANES, 4)[lane]] == want32, \
                f"clang's i32 division differs from Python's at lane {lane}"
            assert [int(v) for v in kernel64.reshape(LANES, 4)[lane]] == want64, \
                f"clang's i64 division differs from Python's at lane {lane}"
            assert [int(v) for v in hook32[lane][:ways]] == want32[:ways], \
                f"i32 {a[lane]:#x}, {b[lane]:#x} at lane {lane}"
            assert [int(v) for v in hook64[lane][:ways]] == want64[:ways], \
                f"i64 {x[lane]:#x}, {y[lane]:#x} at lane {lane}"
        if language == "mlir":
            uniform = after.globals["uniform"]
            assert list(np.frombuffer(uniform[:16], np.int32)) == [9, 1, -9, 1]
            assert list(np.frombuffer(uniform[16:32], np.int64)) == [-15625000000, -7]
        for before, again in zip(original.buffers, after.buffers, strict=True):
            if before is not None and again is not None:
                assert np.array_equal(before, again), "the kernel's own results changed"
