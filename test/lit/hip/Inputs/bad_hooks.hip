// One hook per refusal of the importer, chosen with -D<CASE> (build.sh makes
// bad_<case>.ll of each; hip_invalid.test checks each message). Line numbers matter: the
// messages name them.
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned int Counter;

#ifdef INLINE_ASM
LUTHIER_HOOK void hook() { asm volatile("s_nop 0"); }
#endif

#ifdef FLOAT
LUTHIER_HOOK void hook(unsigned int X) { Counter = (unsigned int)(_Float16)(float)X; }
#endif

#ifdef CMPXCHG
LUTHIER_HOOK void hook(unsigned int X) { __hip_atomic_compare_exchange_strong(&Counter, &X, 1u, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
#endif

#ifdef LOOP
LUTHIER_HOOK void hook(unsigned int N) {
  for (unsigned int I = 0; I < N; ++I)
    atomicAdd(&Counter, I);
}
#endif

#ifdef RECURSION
__attribute__((device, noinline)) unsigned int fib(unsigned int N) {
  return N < 2 ? N : fib(N - 1) + fib(N - 2);
}
LUTHIER_HOOK void hook(unsigned int N) { Counter = fib(N); }
#endif

#ifdef ALLOCA
LUTHIER_HOOK void hook(unsigned int N) {
  volatile unsigned int *Scratch = (volatile unsigned int *)__builtin_alloca(N * 4);
  Scratch[0] = N;
  Counter = Scratch[0];
}
#endif

#ifdef POINTER
LUTHIER_HOOK void hook(unsigned int *Data) { Counter = *Data; }
#endif

#ifdef UNDEFINED_GLOBAL
extern __attribute__((device)) unsigned int Elsewhere;
LUTHIER_HOOK void hook() { atomicAdd(&Elsewhere, 1u); }
#endif

#ifdef INITIALIZED_GLOBAL
LUTHIER_GLOBAL unsigned int Start = 5;
LUTHIER_HOOK void hook() { atomicAdd(&Start, 1u); }
#endif

#ifdef UNKNOWN_FUNCTION
extern "C" __attribute__((device)) unsigned int not_an_intrinsic(unsigned int);
LUTHIER_HOOK void hook(unsigned int X) { Counter = not_an_intrinsic(X); }
#endif

#ifdef REGISTER_WIDTH
LUTHIER_HOOK void hook() { Counter = luthier_read_reg32("s[4:5]"); }
#endif

#ifdef INSERT_SELECTOR
LUTHIER_HOOK void hook() { atomicAdd(&Counter, 1u); }
LUTHIER_INSERT(hook, at = "everywhere");
#endif

#ifdef INSERT_UNKNOWN_HOOK
LUTHIER_HOOK void hook() { atomicAdd(&Counter, 1u); }
LUTHIER_INSERT(missing, at = "instruction");
#endif

#ifdef UNSUPPORTED_INTRINSIC
LUTHIER_HOOK void hook() {
  __builtin_amdgcn_s_sleep(1);
  atomicAdd(&Counter, 1u);
}
#endif

#ifdef NO_HOOK
__attribute__((device)) void helper() {}
#endif

#ifdef MATH
LUTHIER_HOOK void hook(unsigned int X) { Counter = (unsigned int)__builtin_sqrtf((float)X); }
#endif

#ifdef FLOAT_ATOMIC
LUTHIER_GLOBAL float Sum;
LUTHIER_HOOK void hook(unsigned int X) { __hip_atomic_fetch_add(&Sum, (float)X, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
#endif

// Every case that gets this far inserts its hook (the mistake must be found before).
#if !defined(NO_HOOK) && !defined(INSERT_SELECTOR) && !defined(INSERT_UNKNOWN_HOOK)
LUTHIER_INSERT(hook, at = "kernel_entry", args = [#instr.const<1 : i32>]);
#endif
