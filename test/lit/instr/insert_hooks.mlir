// insert-hooks: one payload per selected point, before the instrumented instruction, in
// the order of the insertions. Checked by hand:
// - the first insertion (every instruction of every kernel) puts @count(1) before each of
//   @k's seven instructions, not before amdgpu_mc.fallthrough (not an instruction) and not
//   in the device function @f (device functions are instrumented only when named);
// - @addr goes before the one global load; #instr.operand<"vaddr"> is v1 (the SADDR form's
//   operands are vdst, saddr, vaddr, ...), #instr.reg is passed as written;
// - block entries filtered to the SALU class: ^bb1's s_waitcnt and ^bb2's s_endpgm, not
//   ^bb0's s_load (SMEM);
// - before_return in @f: before its s_setpc_b64 s[30:31];
// - the instr.insert ops are consumed; hooks stay for inline-hooks.
// RUN: luthier-opt %s -p insert-hooks | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.v_lshlrev_b32_e32 v1, 2, v0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_load_dword v2, v1, s[0:1]
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.func @f {
    amdgpu_mc.v_add_u32_e32 v0, 1, v0
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
instr.hook @count(%n: i32) {
  instr.return
}
instr.hook @addr(%lo: i32, %off: i64) {
  instr.return
}
instr.insert @count {at = "instruction", args = [#instr.const<1 : i32>]}
instr.insert @addr {at = "instruction", mnemonic = "global_load_*", args = [#instr.operand<"vaddr">, #instr.reg<"s[0:1]">]}
instr.insert @count {at = "block_entry", class = "SALU", args = [#instr.const<7 : i32>]}
instr.insert @count {at = "before_return", kernel = "f", args = [#instr.const<2 : i32>]}

// CHECK:      amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
// CHECK-NEXT:   amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<1 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<1 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.v_lshlrev_b32_e32 v1, 2, v0
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<1 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_cmp_eq_u32 s6, 0
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<1 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
// CHECK-NEXT:   ^bb1:
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<1 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<7 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<1 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @addr attributes {args = [#instr.reg<"v1">, #instr.reg<"s[0:1]">]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.global_load_dword v2, v1, s[0:1]
// CHECK-NEXT:     amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT:   ^bb2:
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<1 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<7 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_endpgm
// CHECK-NEXT:   }
// CHECK-NEXT:   amdgpu_mc.func @f {
// CHECK-NEXT:     amdgpu_mc.v_add_u32_e32 v0, 1, v0
// CHECK-NEXT:     instr.payload @count attributes {args = [#instr.const<2 : i32>]} {
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_setpc_b64 s[30:31]
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: instr.hook @count(%n: i32) {
// CHECK-NEXT:   instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.hook @addr(%lo: i32, %off: i64) {
// CHECK-NEXT:   instr.return
// CHECK-NEXT: }
// CHECK-NOT:  instr.insert
