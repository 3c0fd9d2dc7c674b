// #instr.site arguments become #instr.const<N : i32> per point. Checked by hand:
// - "index" counts the function's instructions in layout order from 0 (as first/last do),
//   not amdgpu_mc.fallthrough;
// - "offset" is the byte offset from the function's first instruction, from llvm-mc-19
//   -mcpu=gfx90a -show-encoding of the same lines: s_load_dwordx2 8 bytes, v_lshlrev 4,
//   s_cmp_eq_u32 with a literal 8, s_cbranch 4, s_waitcnt 4, global_load 8, so 0, 8, 12,
//   20, 24, 28, 36; payloads placed by the first insertion take no room for the second;
// - "opcode" is the record's position in load_target("gfx90a").instructions:
//   S_LOAD_DWORDX2_IMM_vi 2438, V_LSHLREV_B32_e32_vi 3483, S_CMP_EQ_U32_vi 2391,
//   S_CBRANCH_SCC1_vi 2372, S_WAITCNT_vi 2560, GLOBAL_LOAD_DWORD_SADDR_vi 1315,
//   S_ENDPGM_vi 2421 (test/unit/frontend/hooks checks opcode_names maps them back).
// - site arguments mix with the other kinds, in order.
// RUN: luthier-opt %s -p insert-hooks | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.v_lshlrev_b32_e32 v1, 2, v0
    amdgpu_mc.s_cmp_eq_u32 s6, 0x1234
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_load_dword v2, v1, s[0:1]
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
}
instr.hook @site(%opcode: i32, %index: i32, %offset: i32) {
  instr.return
}
instr.hook @mixed(%vaddr: i32, %offset: i32, %tag: i32) {
  instr.return
}
instr.insert @site {at = "instruction", args = [#instr.site<"opcode">, #instr.site<"index">, #instr.site<"offset">]}
instr.insert @mixed {at = "block_entry", args = [#instr.reg<"v1">, #instr.site<"offset">, #instr.const<7 : i32>]}

// CHECK:      amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:     instr.payload @site attributes {args = [#instr.const<2438 : i32>, #instr.const<0 : i32>, #instr.const<0 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @mixed attributes {args = [#instr.reg<"v1">, #instr.const<0 : i32>, #instr.const<7 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
// CHECK-NEXT:     instr.payload @site attributes {args = [#instr.const<3483 : i32>, #instr.const<1 : i32>, #instr.const<8 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.v_lshlrev_b32_e32 v1, 2, v0
// CHECK-NEXT:     instr.payload @site attributes {args = [#instr.const<2391 : i32>, #instr.const<2 : i32>, #instr.const<12 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_cmp_eq_u32 s6, 0x1234
// CHECK-NEXT:     instr.payload @site attributes {args = [#instr.const<2372 : i32>, #instr.const<3 : i32>, #instr.const<20 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
// CHECK-NEXT:   ^bb1:
// CHECK-NEXT:     instr.payload @site attributes {args = [#instr.const<2560 : i32>, #instr.const<4 : i32>, #instr.const<24 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @mixed attributes {args = [#instr.reg<"v1">, #instr.const<24 : i32>, #instr.const<7 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:     instr.payload @site attributes {args = [#instr.const<1315 : i32>, #instr.const<5 : i32>, #instr.const<28 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.global_load_dword v2, v1, s[0:1]
// CHECK-NEXT:     amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT:   ^bb2:
// CHECK-NEXT:     instr.payload @site attributes {args = [#instr.const<2421 : i32>, #instr.const<6 : i32>, #instr.const<36 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @mixed attributes {args = [#instr.reg<"v1">, #instr.const<36 : i32>, #instr.const<7 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_endpgm
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  instr.insert

// The site arguments round trip before insert-hooks.
// RUN: luthier-opt %s | filecheck %s --check-prefix=ROUND
// ROUND: instr.insert @site {at = "instruction", args = [#instr.site<"opcode">, #instr.site<"index">, #instr.site<"offset">]}
