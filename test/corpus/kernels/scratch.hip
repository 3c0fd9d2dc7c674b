// Private memory: local arrays indexed with run-time values live in scratch (buffer/scratch
// loads and stores through the private segment), also when a callee reads them.
#include "common.h"

// exercises: private array indexed dynamically: scratch stores and loads
extern "C" __global__ void private_array(const int *idx, const float *in, float *out) {
  float local[32];
  unsigned i = global_id();
  for (int k = 0; k < 32; ++k)
    local[k] = in[i * 32 + k];
  out[i] = local[idx[i] & 31] + local[(idx[i] + 7) & 31];
}

// exercises: insertion sort in a private array: data-dependent scratch indices, nested loops
extern "C" __global__ void private_sort(const int *in, int *out) {
  int v[16];
  unsigned i = global_id();
  for (int k = 0; k < 16; ++k)
    v[k] = in[i * 16 + k];
  for (int a = 1; a < 16; ++a) {  // insertion sort with data-dependent indices
    int key = v[a];
    int b = a - 1;
    while (b >= 0 && v[b] > key) {
      v[b + 1] = v[b];
      --b;
    }
    v[b + 1] = key;
  }
  for (int k = 0; k < 16; ++k)
    out[i * 16 + k] = v[k];
}

__device__ __noinline__ float sum_private(const float *buf, unsigned count, unsigned stride) {
  float acc = 0.0f;
  for (unsigned k = 0; k < count; ++k)
    acc += buf[(k * stride) & 63] * (float)k;
  return acc;
}

// LLVM 19 rejects a dynamic alloca on AMDGPU ("unsupported dynamic alloca"), so the stack
// object here has a fixed size; passing its address to a callee keeps it in scratch and makes
// the kernel set up a stack pointer (s32) for the call.
// exercises: stack object whose address is passed to a __noinline__ callee (stack pointer s32, scratch through a call)
extern "C" __global__ void private_array_via_call(const float *in, float *out, unsigned count,
                                                  unsigned stride) {
  float buf[64];
  unsigned i = global_id();
  for (unsigned k = 0; k < 64; ++k)
    buf[k] = in[i + k];
  out[i] = sum_private(buf, count, stride);
}
