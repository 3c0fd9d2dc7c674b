// Device global variables: reading and writing them takes s_getpc_b64 + s_add_u32/s_addc_u32
// with R_AMDGPU_REL32_LO/HI relocations in the relocatable object, resolved when linked.
#include "common.h"

__device__ float scale_factor = 1.5f;
__device__ int call_counter;
__device__ float lookup_table[64];
__constant__ int coefficients[8] = {1, -2, 3, -4, 5, -6, 7, -8};

// exercises: reads a __device__ float: s_getpc_b64 + s_add_u32/s_addc_u32 (R_AMDGPU_REL32_LO/HI in the .o)
extern "C" __global__ void read_global(const float *in, float *out) {
  unsigned i = global_id();
  out[i] = in[i] * scale_factor;
}

// exercises: writes a __device__ int from one thread
extern "C" __global__ void write_global(const int *in) {
  if (global_id() == 0)
    call_counter = in[0] + 1;
}

// exercises: indexes a __device__ array and reads a __device__ scalar (two PC-relative addresses)
extern "C" __global__ void global_table_lookup(const int *idx, float *out) {
  unsigned i = global_id();
  out[i] = lookup_table[idx[i] & 63] + scale_factor;
}

// exercises: unrolled loop over a __constant__ table (scalar loads of constant data)
extern "C" __global__ void constant_coefficients(const int *in, int *out) {
  unsigned i = global_id();
  int acc = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k)
    acc += coefficients[k] * in[i + k];
  out[i] = acc;
}
