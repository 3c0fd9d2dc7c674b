// luthier_hooks.h: write luthier-xdsl instrumentation hooks in HIP.
//
// Compiled by `luthier-opt --hooks tool.hip` with clang-19 alone (no ROCm install: the
// driver passes -nogpuinc -nogpulib and puts this header on the include path). See
// docs/hip-hooks.md for what a hook may do; in short:
//
//   #include "luthier_hooks.h"
//
//   LUTHIER_GLOBAL unsigned long long Counter;            // a tool global, zero at load
//
//   LUTHIER_HOOK void count(bool PerWave) {               // bool, 32- or 64-bit params
//     unsigned long long Exec = luthier_read_exec();
//     if (luthier_lane_id() == luthier_first_active_lane(Exec))
//       atomicAdd(&Counter, PerWave ? 1ull : __popcll(Exec));
//   }
//
//   LUTHIER_INSERT(count, at = "instruction", args = [#instr.const<1 : i1>]);
//
// A hook runs before the instruction it instruments, once per wave, with the wave's EXEC;
// values every lane agrees on are computed once (SALU), the others per lane. Helpers are
// inlined (LUTHIER_DEVICE); float/double take + - * / (IEEE, as HIP computes them), compares
// and casts, and a float/double parameter takes a constant (#instr.const<0.5 : f32>); loops,
// recursion, inline assembly, stack arrays, integer division and math calls are refused
// with the hook's line.
#ifndef LUTHIER_HOOKS_H
#define LUTHIER_HOOKS_H

#ifndef __device__
#define __device__ __attribute__((device))
#endif

// A hook: an unmangled device function the importer finds by its section.
#define LUTHIER_HOOK extern "C" __attribute__((device, used, section(".luthier.hooks")))
// A tool global: device memory the tool owns, zero at load, exported under its name
// (luthier-run --global NAME reads it back).
#define LUTHIER_GLOBAL __attribute__((device))
// A helper a hook calls: always inlined into the hook.
#define LUTHIER_DEVICE static __attribute__((device, always_inline)) inline

#define LUTHIER_CAT_(a, b) a##b
#define LUTHIER_CAT(a, b) LUTHIER_CAT_(a, b)
// LUTHIER_INSERT(hook, attributes of instr.insert): where the hook runs and what it gets,
// written as in MLIR: at = "instruction" | "block_entry" | "kernel_entry" |
// "before_return", kernel = "name", mnemonic = "global_load*",
// class = "...", first/last = N, args = [#instr.const<V : iN>, #instr.const<X : f32>,
// #instr.reg<"s4">, #instr.operand<"vaddr">, #instr.site<"opcode">].
#define LUTHIER_INSERT(hook, ...)                                                           \
  extern "C" __attribute__((device, used, section(".luthier.inserts"))) const char         \
      LUTHIER_CAT(__luthier_insert_, __COUNTER__)[] = #hook " " #__VA_ARGS__

// Intrinsics: declared here, recognised by name (their calls become instr ops). A
// register name is a string literal: "s4", "s[4:5]", "v0", "vcc", "m0", "exec".
extern "C" {
__attribute__((device)) unsigned int luthier_read_reg32(const char *Register);
__attribute__((device)) unsigned long long luthier_read_reg64(const char *Register);
__attribute__((device)) void luthier_write_reg32(const char *Register, unsigned int Value);
__attribute__((device)) void luthier_write_reg64(const char *Register,
                                                 unsigned long long Value);
__attribute__((device)) void luthier_write_exec(unsigned long long Value);
// The instrumented kernel's argument at byte Offset (a constant).
__attribute__((device)) unsigned int luthier_kernarg32(unsigned int Offset);
__attribute__((device)) unsigned long long luthier_kernarg64(unsigned int Offset);
// HIP's gridDim and blockDim of the instrumented launch: Dim is 0 (x), 1 (y) or 2 (z).
__attribute__((device)) unsigned int luthier_grid_dim(unsigned int Dim);
__attribute__((device)) unsigned int luthier_block_dim(unsigned int Dim);
}

// EXEC: the lanes running the instrumented instruction.
LUTHIER_DEVICE unsigned long long luthier_read_exec() { return __builtin_amdgcn_read_exec(); }
// The lane's index in the wave (HIP's __lane_id()).
LUTHIER_DEVICE unsigned int luthier_lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
// The lowest lane of Exec (Exec as luthier_read_exec() gave it).
LUTHIER_DEVICE unsigned int luthier_first_active_lane(unsigned long long Exec) {
  return __builtin_ctzll(Exec);
}
LUTHIER_DEVICE unsigned int __popcll(unsigned long long Value) {
  return __builtin_popcountll(Value);
}
LUTHIER_DEVICE int __ffsll(unsigned long long Value) { return __builtin_ffsll(Value); }
LUTHIER_DEVICE unsigned int luthier_workgroup_id(unsigned int Dim) {
  return Dim == 0 ? __builtin_amdgcn_workgroup_id_x()
                  : Dim == 1 ? __builtin_amdgcn_workgroup_id_y()
                             : __builtin_amdgcn_workgroup_id_z();
}
LUTHIER_DEVICE unsigned int luthier_workitem_id(unsigned int Dim) {
  return Dim == 0 ? __builtin_amdgcn_workitem_id_x()
                  : Dim == 1 ? __builtin_amdgcn_workitem_id_y()
                             : __builtin_amdgcn_workitem_id_z();
}
// HIP's atomicAdd and friends on a tool global (relaxed, device scope, as HIP's).
#define LUTHIER_ATOMIC(name, builtin)                                                      \
  LUTHIER_DEVICE unsigned int name(unsigned int *Address, unsigned int Value) {            \
    return builtin(Address, Value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);            \
  }                                                                                        \
  LUTHIER_DEVICE unsigned long long name(unsigned long long *Address,                      \
                                         unsigned long long Value) {                       \
    return builtin(Address, Value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);            \
  }
LUTHIER_ATOMIC(atomicAdd, __hip_atomic_fetch_add)
LUTHIER_ATOMIC(atomicSub, __hip_atomic_fetch_sub)
LUTHIER_ATOMIC(atomicMax, __hip_atomic_fetch_max)
LUTHIER_ATOMIC(atomicMin, __hip_atomic_fetch_min)
LUTHIER_ATOMIC(atomicAnd, __hip_atomic_fetch_and)
LUTHIER_ATOMIC(atomicOr, __hip_atomic_fetch_or)
LUTHIER_ATOMIC(atomicXor, __hip_atomic_fetch_xor)
LUTHIER_ATOMIC(atomicExch, __hip_atomic_exchange)
#undef LUTHIER_ATOMIC

#endif // LUTHIER_HOOKS_H
