// Loops and divergence: counted and data-dependent loops, a loop the compiler unrolls, if/else
// on the thread id (exec masking, s_cbranch_execz), nested branches, early return, a switch.
#include "common.h"

// exercises: loop with a uniform trip count from a kernel argument (SALU loop counter)
extern "C" __global__ void counted_loop(const float *in, float *out, int iters) {
  unsigned i = global_id();
  float acc = in[i];
  for (int k = 0; k < iters; ++k)
    acc = __builtin_fmaf(acc, 0.5f, (float)k);
  out[i] = acc;
}

// exercises: per-lane trip count (Collatz): divergent loop with exec-mask bookkeeping
extern "C" __global__ void data_dependent_loop(const int *in, int *out) {
  unsigned i = global_id();
  int v = in[i];
  int steps = 0;
  while (v != 1 && steps < 1000) {  // Collatz: the trip count differs per lane
    v = (v & 1) ? 3 * v + 1 : v >> 1;
    ++steps;
  }
  out[i] = steps;
}

// exercises: #pragma unroll 8: straight-line unrolled loads and FMAs
extern "C" __global__ void unrolled_loop(const float *in, float *out) {
  unsigned i = global_id() * 8;
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k)
    acc += in[i + k] * (float)(k + 1);
  out[global_id()] = acc;
}

// exercises: grid-stride loop using the grid size from the dispatch packet
extern "C" __global__ void grid_stride_loop(const float *in, float *out, unsigned n) {
  for (unsigned i = global_id(); i < n; i += grid_size())
    out[i] = in[i] * in[i];
}

// exercises: if/else on the thread id: s_and_saveexec, s_cbranch_execz, s_xor exec, both sides
extern "C" __global__ void if_else_tid(const float *a, const float *b, float *out, unsigned n) {
  unsigned t = tid();
  unsigned i = global_id();
  if (t & 1) {
    float s = 0.0f;
    for (int k = 0; k < 4; ++k)
      s += a[i * 4 + k] * (float)k;
    out[i] = s;
  } else {
    out[i + n] = __builtin_sqrtf(__builtin_fabsf(b[i])) + 1.0f;
  }
}

// exercises: nested divergent if/else, integer division, a dependent load
extern "C" __global__ void nested_branches(const int *in, int *out, int threshold) {
  unsigned i = global_id();
  int v = in[i];
  int r;
  if (v > threshold) {
    if (tid() < 32)
      r = v - threshold;
    else if (v & 4)
      r = v * 3;
    else
      r = -v;
  } else {
    if (v < 0)
      r = in[(i + 1) % 64] + 7;
    else
      r = v / (threshold | 1);
  }
  out[i] = r;
}

// exercises: two early returns: nested exec masks, both exits branch to the one s_endpgm
extern "C" __global__ void early_return(const float *in, float *out, unsigned n) {
  unsigned i = global_id();
  if (i >= n)
    return;
  float v = in[i];
  if (v < 0.0f)
    return;
  out[i] = v * 2.0f;
}

// exercises: switch on a per-lane value: chain of compares and divergent branches
extern "C" __global__ void switch_dispatch(const int *op, const float *a, float *out) {
  unsigned i = global_id();
  float x = a[i];
  float r;
  switch (op[i]) {
  case 0: r = x + 1.0f; break;
  case 1: r = x * 3.0f; break;
  case 2: r = __builtin_sqrtf(x); break;
  case 3: r = -x; break;
  case 4: r = x * x * x; break;
  default: r = 0.0f; break;
  }
  out[i] = r;
}
