// Calls: __noinline__ device functions (s_swappc_b64), a function called from two kernels, a
// recursive function (a dynamic stack size) and indirect calls through function pointers.
#include "common.h"

__device__ __noinline__ float poly(float x, float a, float b) {
  return __builtin_fmaf(__builtin_fmaf(x, a, b), x, 1.0f);
}

__device__ __noinline__ int mix_bits(int v, int k) {
  for (int j = 0; j < k; ++j)
    v = (v << 3) ^ (v >> 5) ^ j;
  return v;
}

// exercises: __noinline__ device function call (s_getpc_b64 + s_swappc_b64, callee s_setpc_b64)
extern "C" __global__ void call_device_function(const float *in, float *out, float a, float b) {
  unsigned i = global_id();
  out[i] = poly(in[i], a, b);
}

// exercises: two calls to two device functions, one with a loop, one shared with another kernel
extern "C" __global__ void call_two_functions(const int *in, int *out, float *fout, int k) {
  unsigned i = global_id();
  int v = mix_bits(in[i], k);
  out[i] = v;
  fout[i] = poly((float)v, 0.5f, -1.0f);
}

__device__ __noinline__ int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

// exercises: recursive device function (fib): dynamic stack size, callee-saved registers, scratch spills
extern "C" __global__ void recursive_call(const int *in, int *out) {
  unsigned i = global_id();
  out[i] = fib(in[i] & 15);
}

__device__ __noinline__ float op_add(float x, float y) { return x + y; }
__device__ __noinline__ float op_mul(float x, float y) { return x * y; }
__device__ __noinline__ float op_max(float x, float y) { return __builtin_fmaxf(x, y); }

typedef float (*binary_op)(float, float);
__device__ binary_op op_table[3] = {op_add, op_mul, op_max};

// exercises: indirect call through a __device__ table of function pointers (R_AMDGPU_RELATIVE64 in the .co), waterfall loop over a divergent callee
extern "C" __global__ void indirect_call_table(const int *sel, const float *a, float *out) {
  unsigned i = global_id();
  binary_op f = op_table[(unsigned)sel[i] % 3];
  out[i] = f(a[i], 2.0f);
}

// exercises: indirect call through a uniform function pointer chosen with s_cselect
extern "C" __global__ void indirect_call_select(int which, const float *a, float *out) {
  unsigned i = global_id();
  binary_op f = which == 0 ? op_add : which == 1 ? op_mul : op_max;
  out[i] = f(a[i], a[i + 1]);
}
