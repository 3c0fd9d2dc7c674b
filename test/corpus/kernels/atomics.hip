// Atomics: global integer and 64-bit atomics, a native float atomic add, a compare-and-swap
// loop, atomic min/max/exchange, and a wave-level ballot for a single atomic per wave.
#include "common.h"

// exercises: global_atomic_add without return
extern "C" __global__ void atomic_add_int(const int *in, int *total) {
  __hip_atomic_fetch_add(total, in[global_id()], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// exercises: seq_cst system-scope 64-bit atomic add with return (cache maintenance around it)
extern "C" __global__ void atomic_add_u64_returning(const unsigned long *in, unsigned long *ctr,
                                                   unsigned long *old) {
  unsigned i = global_id();
  old[i] = __hip_atomic_fetch_add(ctr, in[i], __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_SYSTEM);
}

// exercises: global_atomic_add_f32 (native float atomic). gfx908 has only the no-return form
// and clang-19 selects it only under -munsafe-fp-atomics (a whole-build flag), so gfx908 issues
// the same instruction by inline assembly. gfx1030 (RDNA2) has no global float atomic add: there
// a float fetch-add, which clang-19 expands into a compare-and-swap loop.
extern "C" __global__ void atomic_fadd_native(const float *in, float *sum) {
#if defined(__gfx908__)
  asm volatile("global_atomic_add_f32 %0, %1, off" : : "v"(sum), "v"(in[global_id()]) : "memory");
#elif defined(__gfx1030__)
  __hip_atomic_fetch_add(sum, in[global_id()], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
  __builtin_amdgcn_global_atomic_fadd_f32(sum, in[global_id()]);
#endif
}

// exercises: compare-and-swap loop (global_atomic_cmpswap) for a float max
extern "C" __global__ void atomic_cas_loop(const float *in, float *maximum) {
  float v = in[global_id()];
  unsigned *addr = (unsigned *)maximum;
  unsigned old = *addr;
  while (__builtin_bit_cast(float, old) < v) {
    unsigned expected = old;
    if (__hip_atomic_compare_exchange_strong(addr, &expected, __builtin_bit_cast(unsigned, v),
                                             __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                             __HIP_MEMORY_SCOPE_AGENT))
      break;
    old = expected;
  }
}

// exercises: atomic smin, smax and a release exchange (global_atomic_swap)
extern "C" __global__ void atomic_min_max_xchg(const int *in, int *mn, int *mx, int *last) {
  int v = in[global_id()];
  __hip_atomic_fetch_min(mn, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(mx, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_exchange(last, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}

// exercises: wave ballot (v_cmp to SGPR pair), s_bcnt1, one atomic per wave
extern "C" __global__ void wave_aggregated_count(const int *flags, unsigned *count) {
  unsigned long mask = __builtin_amdgcn_ballot_w64(flags[global_id()] != 0);
  if ((tid() & 63) == 0)
    __hip_atomic_fetch_add(count, (unsigned)__builtin_popcountl(mask), __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT);
}
