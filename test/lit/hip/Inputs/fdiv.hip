// a / b in a HIP hook (fdiv.test imports it): fdiv imports as arith.divf, the correctly
// rounded IEEE quotient, which selection expands as LLVM does (div_scale, rcp, FMAs,
// div_fmas, div_fixup).
#include "luthier_hooks.h"

LUTHIER_GLOBAL float Divisor;
LUTHIER_GLOBAL float Quotient;
LUTHIER_GLOBAL double Quotient64;

LUTHIER_HOOK void divide() {
  float X = (float)luthier_lane_id();
  Quotient = X / Divisor;
  Quotient64 = (double)X / (double)Divisor;
}

LUTHIER_INSERT(divide, at = "kernel_entry", args = []);
