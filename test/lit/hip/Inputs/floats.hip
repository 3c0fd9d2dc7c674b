// Float arithmetic in HIP hooks (floats.test imports it): float and double values from
// the lane id and a parameter, + - *, negation, ordered and unordered compares, a select
// and a branch joining floats, fminf/fmaxf/fabsf, conversions both ways, f32 <-> f64, a
// bitcast, and float loads and stores of a tool global.
#include "luthier_hooks.h"

LUTHIER_GLOBAL float Scale;
LUTHIER_GLOBAL double Sum;
LUTHIER_GLOBAL unsigned int Total;

LUTHIER_DEVICE float weigh(float X, int Bias) { return X * 0.5f - (float)Bias; }

LUTHIER_HOOK void floats(int Bias) {
  float X = (float)luthier_lane_id();
  float W = weigh(X, Bias) * Scale;
  double D = (double)W + 0.1;
  if (D > 3.25 || D != D)
    W = -W;
  float M = __builtin_fmaxf(__builtin_fminf(W, 100.0f), -100.0f) + __builtin_fabsf(X);
  Sum = D;
  Scale = W < 0.0f ? 1.5f : (float)D;
  atomicAdd(&Total, (unsigned int)M + (unsigned int)__builtin_bit_cast(int, W));
}

LUTHIER_INSERT(floats, at = "kernel_entry", args = [#instr.const<3 : i32>]);
