// A branch into another function's code, written as IR: @jumps branches to the label in
// @owner. It parses, prints back, and becomes a code object whose s_branch lands on the
// instruction after the label (llvm-objdump names it). With the label renamed, the branches
// name one no function has: refused when the code object is written, in one line, with no
// output.
// RUN: luthier-opt %s | filecheck %s --check-prefix=PRINTED
// RUN: luthier-opt %s -o %t.co
// RUN: llvm-objdump-19 -d --no-show-raw-insn %t.co | filecheck %s --check-prefix=CODE
// RUN: sed 's/label "owner+0x8"/label "owner+0x9"/' %s > %t.unknown.mlir
// RUN: not luthier-opt %t.unknown.mlir -o %t.unknown.co 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not test -e %t.unknown.co

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @owner <{alignment = 256 : i64}> {
    amdgpu_mc.s_mov_b32 s0, 1
    amdgpu_mc.s_mov_b32 s1, 2
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.label "owner+0x8"
    amdgpu_mc.s_add_u32 s0, s0, s1
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  amdgpu_mc.func @jumps <{alignment = 256 : i64}> {
    amdgpu_mc.s_mov_b32 s1, 3
    amdgpu_mc.s_cmp_eq_u32 s0, 1
    amdgpu_mc.s_cbranch_scc1 "owner+0x8", ^bb1
  ^bb1:
    amdgpu_mc.s_branch "owner+0x8"
  }
}
// PRINTED:      amdgpu_mc.label "owner+0x8"
// PRINTED-NEXT: amdgpu_mc.s_add_u32 s0, s0, s1
// PRINTED:      amdgpu_mc.s_cbranch_scc1 "owner+0x8", ^bb1
// PRINTED:      amdgpu_mc.s_branch "owner+0x8"

// CODE:      <owner>:
// CODE:      s_add_u32 s0, s0, s1
// CODE:      <jumps>:
// CODE:      s_cbranch_scc1 {{.*}} <owner+0x8>
// CODE:      s_branch {{.*}} <owner+0x8>

// UNKNOWN: luthier-opt: error: {{.*}}jumps: a branch goes to label "owner+0x8", which no function has
