// amdgpu_mc.fallthrough ends its block and names the block laid out right after it: the
// verifier refuses any other use, so emitters and layout passes need not check it.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @skips_a_block {
    amdgpu_mc.s_mov_b32 s0, 5
    amdgpu_mc.fallthrough ^bb2
  ^bb1:
    amdgpu_mc.s_mov_b32 s1, 6
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// The first fall-through skips ^bb1.
// CHECK:      "amdgpu_mc.func"() <{sym_name = "skips_a_block"}>
// CHECK-NEXT:   "amdgpu_mc.s_mov_b32"()
// CHECK-NEXT:   "amdgpu_mc.fallthrough"() [^bb2]
// CHECK-NEXT:   ^^^^
// CHECK-NEXT:   | Operation does not verify: amdgpu_mc.fallthrough must name the next block (insert a branch to reach another one)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @falls_back {
    amdgpu_mc.s_mov_b32 s0, 5
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.s_mov_b32 s1, 6
    amdgpu_mc.fallthrough ^bb1
  }
}
// The last block has no next block to fall into.
// CHECK:      "amdgpu_mc.func"() <{sym_name = "falls_back"}>
// CHECK:        "amdgpu_mc.s_mov_b32"() <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.reg<s1>
// CHECK-NEXT:   "amdgpu_mc.fallthrough"() [^bb1]
// CHECK-NEXT:   ^^^^
// CHECK-NEXT:   | Operation does not verify: amdgpu_mc.fallthrough must name the next block (insert a branch to reach another one)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @not_last {
    amdgpu_mc.s_mov_b32 s0, 5
    amdgpu_mc.fallthrough ^bb1
    amdgpu_mc.s_mov_b32 s2, 7
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// A fall-through ends its block (xDSL's terminator rule).
// CHECK: Operation amdgpu_mc.fallthrough with block successors must terminate its parent block
