// amdgpu_mc.label marks where another function's branch lands ("<function>+<offset>"); a
// branch names it instead of its taken block. The verifier holds the name to the function
// it is in and a branch to its blocks: one for s_branch, the taken one and the fall-through
// for a conditional branch, one less when it names a label.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @owner {
    amdgpu_mc.label "other+0x4"
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: Operation does not verify: label "other+0x4" in @owner must be named "owner+<offset>" (a branch finds its function by the name)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @jumps {
    amdgpu_mc.s_cmp_eq_u32 s0, 1
    amdgpu_mc.s_cbranch_scc1 "other+0x4"
  }
}
// CHECK: Operation does not verify: s_cbranch_scc1 names 0 blocks, expected 1

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @jumps {
    amdgpu_mc.s_branch "other+0x4", ^bb1
  ^bb1:
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: Operation does not verify: s_branch names 1 blocks, expected 0
