// fmodf/fmod in a HIP hook (fmod.test imports it): clang gives them as frem, which imports
// as LLVM's AMDGPU backend lowers it: the IEEE quotient (arith.divf), math.trunc, and one
// math.fma of the negated truncated quotient, the divisor and the dividend.
#include "luthier_hooks.h"

LUTHIER_GLOBAL float Divisor;
LUTHIER_GLOBAL float Remainder;
LUTHIER_GLOBAL double Remainder64;

LUTHIER_HOOK void remainder() {
  float X = (float)luthier_lane_id() + 0.5f;
  Remainder = __builtin_fmodf(X, Divisor);
  Remainder64 = __builtin_fmod((double)X, (double)Divisor);
}

LUTHIER_INSERT(remainder, at = "kernel_entry", args = []);
