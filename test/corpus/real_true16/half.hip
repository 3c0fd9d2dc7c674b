// Half-precision and 16-bit integer kernels, compiled by a newer LLVM than the project's
// (build.sh): from LLVM 21 on, GFX11 code is "real true16", whose 16-bit VOP1/VOP2/VOPC
// operands name halves of VGPRs (v_fmac_f16_e32 v0.h, s2, v0.l) and whose VOP3 16-bit
// operations set op_sel bits that LLVM 19's records leave undefined (v_cndmask_b16).
#include "../kernels/common.h"

typedef _Float16 h16;

extern "C" __global__ void axpy_h(h16 *y, const h16 *x, h16 a, unsigned n) {
  unsigned i = global_id();
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void mix_h(h16 *out, const h16 *a, const h16 *b, const float *f,
                                 short *s, unsigned n) {
  unsigned i = global_id();
  if (i >= n) return;
  h16 x = a[i], z = b[i];
  h16 m = x > z ? x - z : z * x;
  m = __builtin_fmaf16(m, x, z);
  m = m < (h16)0 ? -m : m;
  m = __builtin_sqrtf16(m) + (h16)f[i];
  float g = (float)m * f[i];
  short t = (short)(s[i] * 3 + (short)x);
  s[i] = t >> 2;
  out[i] = (h16)g + __builtin_fmaxf16(x, z) - __builtin_fminf16(x, m) + (h16)(float)t;
}

extern "C" __global__ void dot_h(float *out, const h16 *a, const h16 *b, unsigned n) {
  h16 acc = 0;
  for (unsigned i = tid(); i < n; i += block_dim()) acc += a[i] * b[i];
  out[tid()] = (float)acc;
}

extern "C" __global__ void clamp_convert_h(h16 *out, const float *in, const short *lo,
                                           unsigned n) {
  unsigned i = global_id();
  if (i >= n) return;
  h16 v = (h16)in[i];
  h16 floor_v = (h16)lo[i];
  v = v < floor_v ? floor_v : v;
  v = __builtin_ceilf16(v) * (h16)0.5f - __builtin_truncf16(v);
  unsigned short bits = __builtin_bit_cast(unsigned short, v);
  bits ^= (unsigned short)(i & 0x8000u);
  out[i] = __builtin_bit_cast(h16, bits);
}
