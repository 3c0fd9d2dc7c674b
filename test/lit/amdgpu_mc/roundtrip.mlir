// The amdgpu_mc syntax round trips: custom form -> IR -> custom form, and through the
// generic form. Instructions are assembly after the op name; branches name successors
// (taken, then fall-through); a virtual register prints as %N:Class in the
// assembly syntax (written in properties form below, printed short, and parsed back).
// RUN: luthier-opt %s | filecheck %s
// RUN: luthier-opt %s | luthier-opt | filecheck %s
// RUN: luthier-opt %s --print-op-generic | luthier-opt | filecheck %s

amdgpu_mc.code_object "gfx90a:xnack-" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{alignment = 256 : i64, descriptor = #amdgpu_mc.kernel_descriptor<kernarg_size = 16, rsrc2.user_sgpr_count = 6, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.v_add_f32_e64 v0, |v1|, -v2 clamp
    amdgpu_mc.global_load_dword v3, v[4:5], off offset:16 glc
    amdgpu_mc.s_getpc_b64 s[6:7]
    amdgpu_mc.s_add_u32 s6, s6, counter@rel32@lo+4
    amdgpu_mc.s_addc_u32 s7, s7, counter@rel32@hi+12
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.vreg<3 : SReg_32>, #builtin.int<5>]}>
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_waitcnt vmcnt(0) lgkmcnt(0)
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @counter <{section = ".bss", size = 4 : i64, alignment = 4 : i64}>
}

// CHECK:      amdgpu_mc.code_object "gfx90a:xnack-" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
// CHECK-NEXT:   amdgpu_mc.kernel @k <{alignment = 256 : i64, descriptor = #amdgpu_mc.kernel_descriptor<kernarg_size = 16, rsrc2.user_sgpr_count = 6, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
// CHECK-NEXT:     amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
// CHECK-NEXT:     amdgpu_mc.v_add_f32_e64 v0, |v1|, -v2 clamp
// CHECK-NEXT:     amdgpu_mc.global_load_dword v3, v[4:5], off offset:16 glc
// CHECK-NEXT:     amdgpu_mc.s_getpc_b64 s[6:7]
// CHECK-NEXT:     amdgpu_mc.s_add_u32 s6, s6, counter@rel32@lo+4
// CHECK-NEXT:     amdgpu_mc.s_addc_u32 s7, s7, counter@rel32@hi+12
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 %3:SReg_32, 5
// CHECK-NEXT:     amdgpu_mc.s_cmp_eq_u32 s0, 0
// CHECK-NEXT:     amdgpu_mc.s_cbranch_scc1 ^[[EXIT:bb[0-9]+]], ^[[BODY:bb[0-9]+]]
// CHECK-NEXT:   ^[[BODY]]:
// CHECK-NEXT:     amdgpu_mc.s_waitcnt vmcnt(0) lgkmcnt(0)
// CHECK-NEXT:     amdgpu_mc.fallthrough ^[[EXIT]]
// CHECK-NEXT:   ^[[EXIT]]:
// CHECK-NEXT:     amdgpu_mc.s_endpgm
// CHECK-NEXT:   }
// CHECK-NEXT:   amdgpu_mc.global @counter <{section = ".bss", size = 4 : i64, alignment = 4 : i64}>
// CHECK-NEXT: }
