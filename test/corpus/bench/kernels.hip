// Benchmark corpus for the MC layer: realistic HIP kernels whose machine code covers the common
// AMDGPU encoding classes (SOP*/SMEM, VOP1/2/3/3P/C, DPP, SDWA-prone 16-bit code, VOP3P MFMA,
// DS with LDS reductions and atomics, FLAT/GLOBAL/SCRATCH or MUBUF scratch, global atomics).
//
// Plain HIP without the ROCm headers or device libraries (build.sh passes -nogpuinc -nogpulib),
// so `__global__`, `__shared__` and the thread index are spelled with the attributes and AMDGPU
// builtins that hip_runtime.h would wrap, and only math that the backend lowers by itself is
// used (no ocml calls). Templates instantiated over several sizes give the code object its bulk
// (several thousand instructions) without a single giant function.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define INLINE __attribute__((always_inline)) inline

typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
typedef double double4v __attribute__((ext_vector_type(4)));
typedef int int4v __attribute__((ext_vector_type(4)));
typedef int int16v __attribute__((ext_vector_type(16)));
typedef _Float16 half2v __attribute__((ext_vector_type(2)));
typedef _Float16 half4v __attribute__((ext_vector_type(4)));
typedef short short4v __attribute__((ext_vector_type(4)));

__device__ INLINE unsigned lane_id() { return __builtin_amdgcn_workitem_id_x() & 63u; }
__device__ INLINE unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
__device__ INLINE unsigned block_dim() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ INLINE unsigned global_id() {
  return __builtin_amdgcn_workgroup_id_x() * block_dim() + tid();
}
__device__ INLINE void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// -- unrolled elementwise math (VOP1/VOP2/VOP3, literals, inline constants) ----------------

template <int UNROLL>
__device__ INLINE void saxpy_poly_body(float *y, const float *x, float a, float b, unsigned n) {
  unsigned base = global_id() * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    unsigned i = base + u;
    if (i < n) {
      float v = x[i];
      float p = __builtin_fmaf(v, 0.125f, -3.5f);
      p = __builtin_fmaf(p, v, 1.0f / (u + 1));
      p = __builtin_fmaf(p, v, a);
      float r = __builtin_sqrtf(__builtin_fabsf(p) + 1e-6f);
      float s = __builtin_amdgcn_sinf(v * 0.15915494f) + __builtin_amdgcn_cosf(b * v);
      float e = __builtin_amdgcn_exp2f(-v * v) * __builtin_amdgcn_rcpf(r + 2.0f);
      y[i] = __builtin_fmaxf(__builtin_fminf(a * y[i] + p * r + s - e, 1e30f), -1e30f);
    }
  }
}

#define SAXPY(U)                                                                              \
  extern "C" __global__ void saxpy_poly_##U(float *y, const float *x, float a, float b,      \
                                            unsigned n) {                                   \
    saxpy_poly_body<U>(y, x, a, b, n);                                                       \
  }
SAXPY(4)
SAXPY(8)
SAXPY(16)

// -- double precision and 64-bit integer work -----------------------------------------------

template <int UNROLL>
__device__ INLINE void dmath_body(double *out, const double *in, const long *idx, long n) {
  long base = (long)global_id() * UNROLL;
  double acc = 0.0;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    long i = base + u;
    if (i < n) {
      double v = in[idx[i] % n];
      acc = __builtin_fma(acc, v, 0.5 + u);
      acc += __builtin_sqrt(__builtin_fabs(v)) / (v * v + 3.0);
      long k = (long)(v * 1024.0);
      acc += (double)((k * 0x9E3779B97F4A7C15L) >> (u + 7));
    }
  }
  out[global_id()] = acc;
}

#define DMATH(U)                                                                              \
  extern "C" __global__ void dmath_##U(double *out, const double *in, const long *idx,       \
                                       long n) {                                             \
    dmath_body<U>(out, in, idx, n);                                                          \
  }
DMATH(4)
DMATH(8)

// -- integer division, bit manipulation, 16-bit packed math ----------------------------------

extern "C" __global__ void int_mix(unsigned *out, const unsigned *in, const int *sgn,
                                   unsigned divisor, unsigned n) {
  unsigned i = global_id();
  if (i >= n)
    return;
  unsigned v = in[i];
  int s = sgn[i];
  unsigned r = v / divisor + v % (divisor | 1u);
  r ^= (unsigned)(s / (int)(divisor + 7)) * 2654435761u;
  r += __builtin_popcount(v) + __builtin_clz(v | 1u) + __builtin_ctz(v | 0x80000000u);
  r += __builtin_amdgcn_ubfe(v, 5, 9) + (unsigned)__builtin_amdgcn_sbfe(s, 3, 11);
  r = __builtin_bitreverse32(r) + __builtin_bswap32(v);
  r += (unsigned)__builtin_amdgcn_ds_swizzle((int)r, 0x041f);
  r += (unsigned)__builtin_amdgcn_readfirstlane((int)v);
  unsigned long long ballot = __builtin_amdgcn_ballot_w64(r & 1u);
  r += (unsigned)__builtin_popcountll(ballot);
  out[i] = r;
}

extern "C" __global__ void half_math(half2v *out, const half2v *a, const half2v *b,
                                     const short *c, unsigned n) {
  unsigned i = global_id();
  if (i >= n)
    return;
  half2v x = a[i], y = b[i];
  half2v z = x * y + (half2v){(_Float16)1.0f, (_Float16)0.5f};
  z = z - x * (_Float16)0.25f;
  z.x = __builtin_fmaf16(z.x, y.y, x.y);
  z.y = z.y > x.x ? z.y : x.x;
  short cs = c[i];
  z.x += (_Float16)(cs >> 3);
  z.y *= (_Float16)(short)(cs * 3 + 1);
  out[i] = z;
}

// -- LDS reductions, DPP and cross-lane operations -------------------------------------------

template <int BLOCK>
__device__ INLINE float block_reduce(float v) {
  __shared__ float partial[BLOCK / 64];
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v),
                                                             0x111, 0xf, 0xf, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v),
                                                             0x112, 0xf, 0xf, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_mov_dpp(__builtin_bit_cast(int, v), 0x114,
                                                          0xf, 0xe, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_mov_dpp(__builtin_bit_cast(int, v), 0x118,
                                                          0xf, 0xc, false));
  for (int off = 16; off > 0; off >>= 1)
    v += __builtin_bit_cast(
        float, __builtin_amdgcn_ds_bpermute((int)((lane_id() ^ off) << 2),
                                            __builtin_bit_cast(int, v)));
  if (lane_id() == 0)
    partial[tid() / 64] = v;
  sync_threads();
  v = tid() < BLOCK / 64 ? partial[tid()] : 0.0f;
  if (tid() < 64) {
#pragma unroll
    for (int off = BLOCK / 128; off > 0; off >>= 1)
      v += __builtin_bit_cast(
          float, __builtin_amdgcn_ds_bpermute((int)((lane_id() ^ off) << 2),
                                              __builtin_bit_cast(int, v)));
  }
  return v;
}

template <int BLOCK, int ITEMS>
__device__ INLINE void reduce_body(float *out, const float *in, unsigned n) {
  __shared__ float tile[BLOCK * ITEMS];
  unsigned base = __builtin_amdgcn_workgroup_id_x() * BLOCK * ITEMS;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    unsigned i = base + k * BLOCK + tid();
    tile[k * BLOCK + tid()] = i < n ? in[i] : 0.0f;
  }
  sync_threads();
  float v = 0.0f;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    v += tile[tid() * ITEMS + k] * tile[(tid() * ITEMS + k + 1) % (BLOCK * ITEMS)];
  v = block_reduce<BLOCK>(v);
  if (tid() == 0)
    __hip_atomic_fetch_add(out, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

#define REDUCE(B, I)                                                                          \
  extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(B, B))) void              \
  reduce_##B##_##I(float *out, const float *in, unsigned n) {                                \
    reduce_body<B, I>(out, in, n);                                                           \
  }
REDUCE(256, 4)
REDUCE(256, 8)
REDUCE(1024, 2)

// -- atomics: global, LDS, CAS loops, 64-bit ---------------------------------------------------

extern "C" __global__ void histogram(unsigned *bins, unsigned long long *total, float *fmax,
                                     double *dsum, const unsigned *keys, unsigned n) {
  __shared__ unsigned local[256];
  __shared__ float lmax;
  if (tid() < 256)
    local[tid()] = 0;
  if (tid() == 0)
    lmax = -1e30f;
  sync_threads();
  for (unsigned i = global_id(); i < n; i += block_dim() * 1024u) {
    unsigned k = keys[i];
    __hip_atomic_fetch_add(&local[k & 255u], 1u, __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_max(&lmax, (float)k, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __hip_atomic_fetch_xor(&bins[(k >> 8) & 255u], k, __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
  }
  sync_threads();
  if (tid() < 256) {
    unsigned c = local[tid()];
    unsigned old = __hip_atomic_fetch_add(&bins[tid()], c, __ATOMIC_RELAXED,
                                          __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(total, (unsigned long long)c + old, __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_min(&bins[256 + tid()], old, __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(dsum, (double)c, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
  if (tid() == 0) {
    float seen = __hip_atomic_load(fmax, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    while (seen < lmax &&
           !__hip_atomic_compare_exchange_strong(fmax, &seen, lmax, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
    }
  }
}

// -- private arrays with dynamic indexing (scratch: MUBUF on gfx90a, SCRATCH on gfx942) ------

extern "C" __global__ void private_sort(float *data, const int *perm, unsigned n) {
  float local[48];
  unsigned base = global_id() * 48;
#pragma unroll 4
  for (int k = 0; k < 48; ++k)
    local[k] = base + k < n ? data[base + k] : 0.0f;
  for (int k = 0; k < 48; ++k) {
    int j = perm[(base + k) % n] % 48;
    float t = local[k];
    local[k] = local[j];
    local[j] = t;
  }
#pragma unroll 2
  for (int a = 1; a < 48; ++a) {
    float key = local[a];
    int b = a - 1;
    while (b >= 0 && local[b] > key) {
      local[b + 1] = local[b];
      --b;
    }
    local[b + 1] = key;
  }
#pragma unroll 4
  for (int k = 0; k < 48; ++k)
    if (base + k < n)
      data[base + k] = local[k];
}

// -- tiled matrix multiply with LDS (plain FMA) ------------------------------------------------

template <int TILE>
__device__ INLINE void sgemm_body(float *c, const float *a, const float *b, unsigned n) {
  __shared__ float as[TILE][TILE + 1];
  __shared__ float bs[TILE][TILE + 1];
  unsigned tx = tid() % TILE, ty = tid() / TILE;
  unsigned row = __builtin_amdgcn_workgroup_id_y() * TILE + ty;
  unsigned col = __builtin_amdgcn_workgroup_id_x() * TILE + tx;
  float acc = 0.0f;
  for (unsigned t = 0; t < n; t += TILE) {
    as[ty][tx] = a[row * n + t + tx];
    bs[ty][tx] = b[(t + ty) * n + col];
    sync_threads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc = __builtin_fmaf(as[ty][k], bs[k][tx], acc);
    sync_threads();
  }
  c[row * n + col] = acc;
}

#define SGEMM(T)                                                                              \
  extern "C" __global__ void sgemm_##T(float *c, const float *a, const float *b, unsigned n) { \
    sgemm_body<T>(c, a, b, n);                                                               \
  }
SGEMM(8)
SGEMM(16)
SGEMM(32)

// -- matrix cores: MFMA ---------------------------------------------------------------------

template <int STEPS>
__device__ INLINE void mfma_f16_body(float16v *c, const half4v *a, const half4v *b) {
  unsigned t = global_id();
  float16v acc = c[t];
#pragma unroll
  for (int k = 0; k < STEPS; ++k)
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a[t * STEPS + k], b[t * STEPS + k], acc, 0, 0,
                                               0);
  c[t] = acc;
}

template <int STEPS>
__device__ INLINE void mfma_f32_body(float4v *c, const float *a, const float *b) {
  unsigned t = global_id();
  float4v acc = c[t];
#pragma unroll
  for (int k = 0; k < STEPS; ++k)
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[t * STEPS + k], b[t * STEPS + k], acc, 0, 0,
                                               0);
  float4v acc2 = acc;
#pragma unroll
  for (int k = 0; k < STEPS; ++k)
    acc2 = __builtin_amdgcn_mfma_f32_16x16x4f32(a[k], b[k], acc2, 1, 2, 3);
  c[t] = acc + acc2;
}

template <int STEPS>
__device__ INLINE void mfma_f64_body(double4v *c, const double *a, const double *b) {
  unsigned t = global_id();
  double4v acc = c[t];
#pragma unroll
  for (int k = 0; k < STEPS; ++k)
    acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a[t * STEPS + k], b[t * STEPS + k], acc, 0, 0,
                                               0);
  c[t] = acc;
}

template <int STEPS>
__device__ INLINE void mfma_bf16_body(float16v *c, const short4v *a, const short4v *b) {
  unsigned t = global_id();
  float16v acc = c[t];
#pragma unroll
  for (int k = 0; k < STEPS; ++k)
    acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a[t * STEPS + k], b[t * STEPS + k], acc, 0,
                                                   0, 0);
  c[t] = acc;
}

template <int STEPS>
__device__ INLINE void mfma_i8_body(int16v *c, const long *a, const long *b, const int *ai,
                                    const int *bi) {
  unsigned t = global_id();
  int16v acc = c[t];
#pragma unroll
  for (int k = 0; k < STEPS; ++k) {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
    acc = __builtin_amdgcn_mfma_i32_32x32x16_i8(a[t * STEPS + k], b[t * STEPS + k], acc, 0, 0,
                                                0);
#else
    acc = __builtin_amdgcn_mfma_i32_32x32x8i8(ai[t * STEPS + k], bi[t * STEPS + k], acc, 0, 0,
                                              0);
#endif
  }
  c[t] = acc;
}

#define MFMA(S)                                                                               \
  extern "C" __global__ void mfma_f16_##S(float16v *c, const half4v *a, const half4v *b) {   \
    mfma_f16_body<S>(c, a, b);                                                               \
  }                                                                                          \
  extern "C" __global__ void mfma_f32_##S(float4v *c, const float *a, const float *b) {      \
    mfma_f32_body<S>(c, a, b);                                                               \
  }                                                                                          \
  extern "C" __global__ void mfma_f64_##S(double4v *c, const double *a, const double *b) {   \
    mfma_f64_body<S>(c, a, b);                                                               \
  }                                                                                          \
  extern "C" __global__ void mfma_bf16_##S(float16v *c, const short4v *a, const short4v *b) { \
    mfma_bf16_body<S>(c, a, b);                                                              \
  }                                                                                          \
  extern "C" __global__ void mfma_i8_##S(int16v *c, const long *a, const long *b,            \
                                         const int *ai, const int *bi) {                     \
    mfma_i8_body<S>(c, a, b, ai, bi);                                                        \
  }
MFMA(4)
MFMA(16)

// MFMA on an LDS-staged tile: a small, realistic GEMM inner loop.
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(256, 256))) void
mfma_gemm_lds(float4v *c, const float *a, const float *b, unsigned k_tiles) {
  __shared__ float as[64 * 17];
  __shared__ float bs[64 * 17];
  unsigned wave = tid() / 64, lane = lane_id();
  float4v acc[4] = {};
  for (unsigned kt = 0; kt < k_tiles; ++kt) {
    as[(tid() % 64) * 17 + tid() / 64] = a[kt * 256 + tid()];
    bs[(tid() % 64) * 17 + tid() / 64] = b[kt * 256 + tid()];
    sync_threads();
#pragma unroll
    for (int m = 0; m < 4; ++m)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        acc[m] = __builtin_amdgcn_mfma_f32_16x16x4f32(as[(lane % 16 + 16 * m) * 17 + k],
                                                      bs[(lane / 16 + 4 * wave) * 17 + k],
                                                      acc[m], 0, 0, 0);
    sync_threads();
  }
#pragma unroll
  for (int m = 0; m < 4; ++m)
    c[(__builtin_amdgcn_workgroup_id_x() * 4 + wave) * 4 + m] = acc[m];
}
