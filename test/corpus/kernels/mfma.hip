// Matrix cores: MFMA builtins (VOP3P-MAI, AGPRs / accumulation registers). The int8 kernel uses
// the 16x16x16 form on gfx90a and the 16x16x32 form on gfx942, which dropped the former.
// gfx908 (CDNA1) has no f64 MFMA, so mfma_f64_16x16x4f64 is left out there (the test tables
// name the targets it runs on), and no bf16_1k form: mfma_bf16_1k uses v_mfma_f32_16x16x8bf16
// there (two bf16 per lane, K = 8: items 0 and 1 of each a[t] and b[t]).
#include "common.h"

// exercises: four chained v_mfma_f32_32x32x2f32, 16-register accumulator in VGPRs (gfx90a+)
extern "C" __global__ void mfma_f32_32x32x2f32(const float *a, const float *b, float *d) {
  unsigned t = tid();
  float16v acc = {};
  for (int k = 0; k < 4; ++k)
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a[t + 64 * k], b[t + 64 * k], acc, 0, 0, 0);
  for (int j = 0; j < 16; ++j)
    d[t * 16 + j] = acc[j];
}

// exercises: v_mfma_f32_16x16x4f32
extern "C" __global__ void mfma_f32_16x16x4f32(const float *a, const float *b, float *d) {
  unsigned t = tid();
  float4v acc = {};
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[t], b[t], acc, 0, 0, 0);
  for (int j = 0; j < 4; ++j)
    d[t * 4 + j] = acc[j];
}

#if !defined(__gfx908__)
// exercises: v_mfma_f64_16x16x4f64 (double-precision matrix core; gfx90a+)
extern "C" __global__ void mfma_f64_16x16x4f64(const double *a, const double *b, double *d) {
  unsigned t = tid();
  double4v acc = {};
  acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a[t], b[t], acc, 0, 0, 0);
  for (int j = 0; j < 4; ++j)
    d[t * 4 + j] = acc[j];
}
#endif

// exercises: v_mfma_f32_32x32x8f16 with packed half inputs
extern "C" __global__ void mfma_f32_32x32x8f16(const half4v *a, const half4v *b, float *d) {
  unsigned t = tid();
  float16v acc = {};
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a[t], b[t], acc, 0, 0, 0);
  for (int j = 0; j < 16; ++j)
    d[t * 16 + j] = acc[j];
}

#if defined(__gfx908__)
typedef short short2v __attribute__((ext_vector_type(2)));
#endif

// exercises: v_mfma_f32_16x16x16bf16_1k (v_mfma_f32_16x16x8bf16 on gfx908)
extern "C" __global__ void mfma_bf16_1k(const short4v *a, const short4v *b, float *d) {
  unsigned t = tid();
  float4v acc = {};
#if defined(__gfx908__)
  short4v at = a[t], bt = b[t];
  acc = __builtin_amdgcn_mfma_f32_16x16x8bf16(at.xy, bt.xy, acc, 0, 0, 0);
#else
  acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a[t], b[t], acc, 0, 0, 0);
#endif
  for (int j = 0; j < 4; ++j)
    d[t * 4 + j] = acc[j];
}

// exercises: integer MFMA: v_mfma_i32_16x16x16i8 on gfx90a, v_mfma_i32_16x16x32_i8 on gfx942
extern "C" __global__ void mfma_i8(const long *a, const long *b, int *d) {
  unsigned t = tid();
  int4v acc = {};
#if defined(__gfx942__)
  acc = __builtin_amdgcn_mfma_i32_16x16x32_i8(a[t], b[t], acc, 0, 0, 0);
#else
  acc = __builtin_amdgcn_mfma_i32_16x16x16i8((int)a[t], (int)b[t], acc, 0, 0, 0);
#endif
  for (int j = 0; j < 4; ++j)
    d[t * 4 + j] = acc[j];
}

// exercises: accumulator pinned to AGPRs by an inline-asm "a" constraint: v_accvgpr_write/read
extern "C" __global__ void mfma_agpr_accumulator(const float *a, const float *b, float *d,
                                                 int steps) {
  unsigned t = tid();
  float4v acc = {};
  for (int k = 0; k < steps; ++k) {
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[t + 64 * k], b[t + 64 * k], acc, 0, 0, 0);
    asm volatile("; acc in %0" : "+a"(acc));
  }
  for (int j = 0; j < 4; ++j)
    d[t * 4 + j] = acc[j];
}
