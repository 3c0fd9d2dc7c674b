// fmaf/fma in a HIP hook (fma.test imports it): llvm.fma rounds once, as math.fma.
#include "luthier_hooks.h"

LUTHIER_GLOBAL float Addend;
LUTHIER_GLOBAL float Fused;
LUTHIER_GLOBAL double Fused64;

LUTHIER_HOOK void fused() {
  float X = (float)luthier_lane_id();
  Fused = __builtin_fmaf(X, X, Addend);
  Fused64 = __builtin_fma((double)X, 0.5, (double)Addend);
}

LUTHIER_INSERT(fused, at = "kernel_entry", args = []);
