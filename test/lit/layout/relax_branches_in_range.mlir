// relax-branches leaves code whose branches all reach as it is: the IR prints the same,
// and the emitted code object is the same, byte for byte. Here: a kernel with a forward
// conditional branch, a loop's back edge and an s_branch, and a device function with a
// PC-relative address (s_getpc_b64 + rel32 adds) and a branch over it.
// RUN: luthier-opt %s -o %t.before.mlir
// RUN: luthier-opt %s -p relax-branches -o %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir
// RUN: luthier-opt %s -o %t.before.co
// RUN: luthier-opt %s -p relax-branches -o %t.after.co
// RUN: cmp %t.before.co %t.after.co
// RUN: filecheck %s --input-file=%t.after.mlir

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @loop <{alignment = 256 : i64, binding = "GLOBAL", visibility = "PROTECTED", descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s2, 4
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb3, ^bb1
  ^bb1:
    amdgpu_mc.s_sub_u32 s2, s2, 1
    amdgpu_mc.s_cmp_eq_u32 s2, 0
    amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb2
  ^bb2:
    amdgpu_mc.s_branch ^bb3
  ^bb3:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.func @address <{alignment = 4 : i64, binding = "GLOBAL", visibility = "PROTECTED"}> {
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, table@rel32@lo+4
    amdgpu_mc.s_addc_u32 s5, s5, table@rel32@hi+12
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  amdgpu_mc.global @table <{section = ".data", size = 4 : i64, alignment = 4 : i64, binding = "GLOBAL", visibility = "PROTECTED", data = "2a000000"}>
}

// CHECK:      amdgpu_mc.kernel @loop
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s2, 4
// CHECK-NEXT:   amdgpu_mc.s_cmp_eq_u32 s0, 0
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc1 ^bb3, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   amdgpu_mc.s_sub_u32 s2, s2, 1
// CHECK-NEXT:   amdgpu_mc.s_cmp_eq_u32 s2, 0
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   amdgpu_mc.s_branch ^bb3
// CHECK-NEXT: ^bb3:
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.func @address
// CHECK-NEXT:   amdgpu_mc.s_cmp_eq_u32 s0, 0
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   amdgpu_mc.s_getpc_b64 s[4:5]
// CHECK-NEXT:   amdgpu_mc.s_add_u32 s4, s4, table@rel32@lo+4
// CHECK-NEXT:   amdgpu_mc.s_addc_u32 s5, s5, table@rel32@hi+12
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   amdgpu_mc.s_setpc_b64 s[30:31]
// CHECK-NEXT: }
