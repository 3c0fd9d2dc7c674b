// Straight-line elementwise kernels: global loads and stores, a bounds check, scalar kernel
// arguments (many of them in many_args, which fills a long run of SGPR kernarg loads).
#include "common.h"

// exercises: global loads/stores, workgroup size from the implicit kernel arguments, bounds check
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = global_id();
  if (i < n)
    c[i] = a[i] + b[i];
}

// exercises: a float scalar argument, v_fma_f32
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
  unsigned i = global_id();
  if (i < n)
    y[i] = __builtin_fmaf(a, x[i], y[i]);
}

// exercises: double-precision arguments and v_fma_f64, 64-bit global loads
extern "C" __global__ void daxpy(double a, const double *x, double *y, unsigned n) {
  unsigned i = global_id();
  if (i < n)
    y[i] = __builtin_fma(a, x[i], y[i]);
}

// exercises: 64-bit integer multiply, shifts and xor (VOP3 64-bit ALU)
extern "C" __global__ void int_mix(const int *a, const long *b, long *out, int shift) {
  unsigned i = global_id();
  long v = (long)(a[i] << shift) ^ b[i];
  out[i] = v * 0x9E3779B97F4A7C15L + (v >> 7);
}

// exercises: 21 kernel arguments (ints, longs, floats, doubles, pointers): a long run of SGPR kernarg loads, early return
extern "C" __global__ void many_args(float *out, const float *in, int i0, int i1, int i2, int i3,
                                     int i4, int i5, int i6, int i7, long l0, long l1, float f0,
                                     float f1, float f2, float f3, double d0, double d1,
                                     const int *p0, const int *p1, unsigned n) {
  unsigned i = global_id();
  if (i >= n)
    return;
  float acc = in[i] * f0 + f1;
  acc += (float)(i0 * i1 + i2 * i3) - (float)(i4 ^ i5) + (float)(i6 - i7);
  acc += (float)(l0 + l1) * f2 - f3;
  acc += (float)(d0 * d1);
  acc += (float)(p0[i % 16] + p1[(i + 1) % 16]);
  out[i] = acc;
}
