// Edge cases an emulator gets wrong without noticing when the original and the instrumented
// run share the mistake: negative immediate offsets (a stencil's halo), sign and zero
// extension of narrow loads, signed versus unsigned division, shifts and comparisons at the
// limits of the type, and wave-wide reductions through cross-lane operations. Each kernel has
// a host reference in test/unit/emulator/host_references.py that shares no code with the
// emulator.
#include "common.h"

// exercises: global loads with negative immediate offsets (offset:-28, offset:-4000), a halo
// the bounds check keeps inside the buffer
extern "C" __global__ void stencil_1d(const float *in, float *out, unsigned n) {
  unsigned i = global_id();
  if (i < 1000 || i + 1000 >= n)
    return;
  const float *p = in + i;
  out[i] = p[-1000] + 0.5f * p[-7] + 0.25f * p[-1] + p[0] + 0.25f * p[1] + 0.5f * p[7] +
           p[1000];
}

// exercises: negative offsets on narrow loads and stores: global_load_sbyte/ubyte/sshort/
// ushort (sign and zero extension), global_store_byte/short at offset -1/-2
extern "C" __global__ void narrow_halo(const signed char *sc, const unsigned char *uc,
                                       const short *ss, const unsigned short *us, int *out,
                                       signed char *bytes, short *shorts, unsigned n) {
  unsigned i = global_id();
  if (i < 4 || i >= n)
    return;
  const signed char *a = sc + i;
  const unsigned char *b = uc + i;
  const short *c = ss + i;
  const unsigned short *d = us + i;
  out[4 * i + 0] = a[-3] + a[0];
  out[4 * i + 1] = b[-3] + b[0];
  out[4 * i + 2] = c[-2] * c[0];
  out[4 * i + 3] = (int)((unsigned)d[-2] * d[0]);
  bytes[i - 1] = (signed char)(a[0] - b[0]);
  shorts[i - 2] = (short)(c[0] + d[0]);
}

// exercises: signed and unsigned 32-bit division and remainder (the expanded sequences),
// arithmetic versus logical shifts, signed versus unsigned comparisons and min/max, abs of
// INT_MIN (written without undefined behaviour, so the host reference is the C meaning)
extern "C" __global__ void signed_unsigned(const int *a, const int *b, int *out, unsigned n) {
  unsigned i = global_id();
  if (i >= n)
    return;
  int x = a[i], y = b[i];                  // y is never 0, and never -1 when x is INT_MIN
  unsigned ux = (unsigned)x, uy = (unsigned)y;
  int *o = out + 8 * i;
  o[0] = x / y;
  o[1] = x % y;
  o[2] = (int)(ux / uy);
  o[3] = (int)(ux % uy);
  o[4] = (x >> (y & 31)) ^ (int)(ux >> (uy & 31));
  o[5] = (x < y) | ((ux < uy) << 1) | ((x <= ~y) << 2);
  o[6] = (int)((unsigned)(x < y ? x : y) + (ux > uy ? ux : uy));
  o[7] = (int)(x < 0 ? 0u - ux : ux);
}

// exercises: 64-bit signed and unsigned arithmetic at the limits: high halves of products,
// 64-bit shifts by amounts above 31, bit counting and reversal
extern "C" __global__ void wide_edges(const long *a, const unsigned *b, long *out, unsigned n) {
  unsigned i = global_id();
  if (i >= n)
    return;
  long x = a[i];
  unsigned y = b[i];
  unsigned long ux = (unsigned long)x;
  long *o = out + 6 * i;
  o[0] = (long)(((unsigned __int128)ux * y) >> 32);
  o[1] = (long)(((__int128)x * (int)y) >> 64);
  o[2] = x >> (y & 63);
  o[3] = (long)((ux >> ((y >> 8) & 63)) + (ux << ((y >> 16) & 63)));
  o[4] = __builtin_popcountl(ux) | (__builtin_clzl(ux | 1) << 8) |
         ((long)__builtin_ctz(y | 0x80000000u) << 16);
  o[5] = (long)(__builtin_bitreverse32(y) | ((unsigned long)__builtin_bswap32(y) << 32));
}

// exercises: a wave-wide sum and maximum through ds_bpermute (shuffles across the 64 lanes),
// readfirstlane, ballot and its popcount, one result per wave
extern "C" __global__ void wave_reduce(const int *in, int *sums, int *maxima, long *ballots) {
  unsigned i = global_id();
  int lane = (int)__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  int sum = in[i], most = in[i];
  for (int step = 32; step > 0; step >>= 1) {
    int from = (lane ^ step) << 2;
    sum += __builtin_amdgcn_ds_bpermute(from, sum);
    int other = __builtin_amdgcn_ds_bpermute(from, most);
    most = other > most ? other : most;
  }
  unsigned long ballot = __builtin_amdgcn_ballot_w64(in[i] < 0);
  unsigned wave = i / 64;
  if (lane == 0) {
    sums[wave] = __builtin_amdgcn_readfirstlane(sum);
    maxima[wave] = most;
    ballots[wave] = (long)(ballot ^ ((unsigned long)__builtin_popcountl(ballot) << 56));
  }
}
