// #instr.operand<"address">: insert-hooks reads the per-lane address off each global
// access in whichever encoding it has. Checked by hand: the SADDR form (saddr s[0:1],
// 32-bit vaddr v1, offset 16) gives #instr.address<"s[0:1]", "v1", 16>; the 64-bit vaddr
// form with "off" gives #instr.address<"v[2:3]", "", -8> (no index register).
// RUN: luthier-opt %s -p insert-hooks | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.global_load_dword v4, v1, s[0:1] offset:16
    amdgpu_mc.global_store_dword v[2:3], v4, off offset:-8
    amdgpu_mc.s_endpgm
  }
}
instr.hook @trace(%address: i64) {
  instr.return
}
instr.insert @trace {at = "instruction", mnemonic = "global_*", args = [#instr.operand<"address">]}

// CHECK:      instr.payload @trace attributes {args = [#instr.address<"s[0:1]", "v1", 16>]} {
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.global_load_dword v4, v1, s[0:1] offset:16
// CHECK-NEXT: instr.payload @trace attributes {args = [#instr.address<"v[2:3]", "", -8>]} {
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.global_store_dword v[2:3], v4, off offset:-8
