// Shared memory (LDS): block reductions with __syncthreads (s_barrier), a tiled transpose,
// dynamic shared memory (extern __shared__) and an LDS histogram with ds atomics.
#include "common.h"

// exercises: static LDS, tree reduction loop with __syncthreads (s_barrier), divergent tail
extern "C" __global__ void block_reduce_sum(const float *in, float *out, unsigned n) {
  __shared__ float buf[256];
  unsigned t = tid();
  unsigned i = global_id();
  buf[t] = i < n ? in[i] : 0.0f;
  sync_threads();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (t < s)
      buf[t] += buf[t + s];
    sync_threads();
  }
  if (t == 0)
    out[block_id()] = buf[0];
}

// exercises: unrolled LDS reduction (s_barrier per step), integer max
extern "C" __global__ void block_reduce_max_int(const int *in, int *out) {
  __shared__ int buf[64];
  unsigned t = tid();
  buf[t] = in[global_id()];
  sync_threads();
#pragma unroll
  for (unsigned s = 32; s > 0; s >>= 1) {
    if (t < s)
      buf[t] = __builtin_elementwise_max(buf[t], buf[t + s]);
    sync_threads();
  }
  if (t == 0)
    out[block_id()] = buf[0];
}

// exercises: padded 2-D LDS tile, integer division by a run-time value
extern "C" __global__ void transpose_tile(const float *in, float *out, unsigned width) {
  __shared__ float tile[16][17];
  unsigned tx = tid() & 15, ty = tid() >> 4;
  unsigned bx = block_id() % (width / 16), by = block_id() / (width / 16);
  tile[ty][tx] = in[(by * 16 + ty) * width + bx * 16 + tx];
  sync_threads();
  out[(bx * 16 + ty) * width + by * 16 + tx] = tile[tx][ty];
}

extern __shared__ float dynamic_lds[];

// exercises: dynamic shared memory (extern __shared__, group_segment_fixed_size 0), scan loop with two barriers
extern "C" __global__ void dynamic_shared_scan(const float *in, float *out, unsigned n) {
  unsigned t = tid();
  unsigned i = global_id();
  dynamic_lds[t] = i < n ? in[i] : 0.0f;
  sync_threads();
  for (unsigned off = 1; off < block_dim(); off <<= 1) {
    float v = t >= off ? dynamic_lds[t - off] : 0.0f;
    sync_threads();
    dynamic_lds[t] += v;
    sync_threads();
  }
  if (i < n)
    out[i] = dynamic_lds[t];
}

// exercises: LDS atomics (ds_add_u32), grid-stride loop, global atomic add
extern "C" __global__ void lds_histogram(const unsigned char *in, unsigned *bins, unsigned n) {
  __shared__ unsigned local[256];
  unsigned t = tid();
  local[t & 255] = 0;
  sync_threads();
  for (unsigned i = global_id(); i < n; i += grid_size())
    __hip_atomic_fetch_add(&local[in[i]], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  sync_threads();
  if (t < 256)
    __hip_atomic_fetch_add(&bins[t], local[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
