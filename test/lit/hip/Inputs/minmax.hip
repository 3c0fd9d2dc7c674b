// min, max and abs in a HIP hook (minmax.test imports it): clang-19 makes llvm.umin,
// llvm.umax, llvm.smin, llvm.smax and llvm.abs of them, which import as arith.cmpi and
// arith.select (abs: 0 - x where x < 0).
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned int Limit;
LUTHIER_GLOBAL unsigned int Results[5];

LUTHIER_HOOK void clamp() {
  unsigned int X = luthier_lane_id();
  int S = (int)X - (int)Limit;
  Results[0] = X < Limit ? X : Limit;
  Results[1] = X > Limit ? X : Limit;
  Results[2] = (unsigned int)(S < 3 ? S : 3);
  Results[3] = (unsigned int)(S > -3 ? S : -3);
  Results[4] = (unsigned int)__builtin_abs(S);
}

LUTHIER_INSERT(clamp, at = "kernel_entry", args = []);
