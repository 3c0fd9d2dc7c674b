// emit-preamble on a kernel without scratch (gfx942) and one with it (gfx90a): the
// payloads read the launch sizes, which the preamble computes from the dispatch packet
// into SVA lanes 5-7 (grid size in workgroups) and 8-10 (workgroup size).
//
// @without_scratch: user SGPRs are the kernarg pointer s[0:1], then workgroup id x (s2).
// Asking for the dispatch pointer puts it first (s[0:1]): the kernarg pointer moves to
// s[2:3] and workgroup id x to s4. The preamble loads packet bytes 4-19 (workgroup sizes,
// grid sizes x/y) into the first free aligned quadruple s[8:11] and grid_size_z (byte 20)
// into s12; workgroup size z is the low half of s9 (byte 8); grid_dim z = ceil(s12 / s15)
// into s18 (the reciprocal estimate in the SVA VGPR v3 before its lanes are written, one
// Newton step, two corrections, rounding up; on gfx942 an s_nop 0 after the
// transcendental v_rcp_iflag_f32, whose result a non-transcendental VALU op reads next);
// lanes 7 and 10 get the results; the three shifted SGPRs move back down in ascending
// order.
//
// @with_scratch: the application set up scratch itself: private segment buffer s[0:3],
// kernarg pointer s[4:5], flat scratch init s[6:7], workgroup id x s8 and the private
// segment wave offset s9, which its own code adds into FLAT_SCRATCH. The dispatch pointer
// goes after the private segment buffer (s[4:5]) and workgroup id z is new (after x):
// kernarg s[6:7], flat scratch init s[8:9], workgroup id x s10, z s11, wave offset s12.
// The preamble reads the packet through s[4:5] into s[16:19], computes grid_dim x =
// ceil(s18 / s21) into s24, writes lanes 4 (workgroup id z from s11), 5 and 9, then
// moves kernarg, flat scratch init, workgroup id x and the wave offset back to s4-s9:
// the application's own scratch setup reads the values it was compiled for.
//
// RUN: luthier-opt %s --split-input-file -p place-sva,lower-intrinsics,emit-preamble | filecheck %s

amdgpu_mc.code_object "gfx942" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1356 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @without_scratch <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    instr.payload @sizes attributes {args = []} {
      instr.mc_intrinsic "grid_dim" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = [], dim = "z"}
      instr.mc_intrinsic "block_dim" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [], dim = "z"}
      instr.return
    }
    amdgpu_mc.s_load_dwordx2 s[0:1], s[0:1], 0x0
    amdgpu_mc.v_add_u32_e32 v1, s2, v0
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_store_dword v2, v1, s[0:1]
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @without_scratch <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_dispatch_ptr = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> attributes {instr.sva = "v3", instr.entry_state = ["grid_dim.z", "block_dim.z"]} {
// CHECK-NEXT:   instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.s_load_dwordx4 s[8:11], s[0:1], 0x4
// CHECK-NEXT:     amdgpu_mc.s_load_dword s12, s[0:1], 0x14
// CHECK-NEXT:     amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:     amdgpu_mc.s_and_b32 s15, s9, 0xffff
// CHECK-NEXT:     amdgpu_mc.v_cvt_f32_u32_e32 v3, s15
// CHECK-NEXT:     amdgpu_mc.v_rcp_iflag_f32_e32 v3, v3
// CHECK-NEXT:     amdgpu_mc.s_nop 0
// CHECK-NEXT:     amdgpu_mc.v_mul_f32_e32 v3, 0x4f7ffffe, v3
// CHECK-NEXT:     amdgpu_mc.v_cvt_u32_f32_e32 v3, v3
// CHECK-NEXT:     amdgpu_mc.v_readfirstlane_b32 s19, v3
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s20, 0, s15
// CHECK-NEXT:     amdgpu_mc.s_mul_i32 s20, s20, s19
// CHECK-NEXT:     amdgpu_mc.s_mul_hi_u32 s20, s19, s20
// CHECK-NEXT:     amdgpu_mc.s_add_i32 s19, s19, s20
// CHECK-NEXT:     amdgpu_mc.s_mul_hi_u32 s18, s12, s19
// CHECK-NEXT:     amdgpu_mc.s_mul_i32 s20, s18, s15
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s21, s12, s20
// CHECK-NEXT:     amdgpu_mc.s_add_i32 s19, s18, 1
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s20, s21, s15
// CHECK-NEXT:     amdgpu_mc.s_cmp_ge_u32 s21, s15
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s18, s19, s18
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT:     amdgpu_mc.s_add_i32 s19, s18, 1
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s20, s21, s15
// CHECK-NEXT:     amdgpu_mc.s_cmp_ge_u32 s21, s15
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s18, s19, s18
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT:     amdgpu_mc.s_cmp_lg_u32 s21, 0
// CHECK-NEXT:     amdgpu_mc.s_addc_u32 s18, s18, 0
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s18, 7
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s15, 10
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s0, s2
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s1, s3
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s2, s4
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @with_scratch <{descriptor = #amdgpu_mc.kernel_descriptor<private_segment_fixed_size = 16, rsrc2.user_sgpr_count = 8, rsrc2.enable_private_segment = 1, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_sgpr_flat_scratch_init = 1>}> {
    instr.payload @launch attributes {args = []} {
      instr.mc_intrinsic "grid_dim" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = [], dim = "x"}
      instr.mc_intrinsic "block_dim" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [], dim = "y"}
      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<3 : SReg_32>], uses = [], dim = "z"}
      instr.return
    }
    amdgpu_mc.s_add_u32 flat_scratch_lo, s6, s9
    amdgpu_mc.s_addc_u32 flat_scratch_hi, s7, 0
    amdgpu_mc.v_add_u32_e32 v1, s8, v0
    amdgpu_mc.buffer_store_dword v1, off, s[0:3], s9 offset:4
    amdgpu_mc.s_load_dwordx2 s[10:11], s[4:5], 0x0
    amdgpu_mc.buffer_load_dword v1, off, s[0:3], s9 offset:4
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_waitcnt vmcnt(0) lgkmcnt(0)
    amdgpu_mc.global_store_dword v2, v1, s[10:11]
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @with_scratch <{descriptor = #amdgpu_mc.kernel_descriptor<private_segment_fixed_size = 16, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 10, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc2.enable_sgpr_workgroup_id_z = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_dispatch_ptr = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_sgpr_flat_scratch_init = 1>}> attributes {instr.sva = "v3", instr.entry_state = ["workgroup_id.z", "grid_dim.x", "block_dim.y"]} {
// CHECK-NEXT:   instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.s_load_dwordx4 s[16:19], s[4:5], 0x4
// CHECK-NEXT:     amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:     amdgpu_mc.s_and_b32 s21, s16, 0xffff
// CHECK-NEXT:     amdgpu_mc.s_lshr_b32 s22, s16, 16
// CHECK-NEXT:     amdgpu_mc.v_cvt_f32_u32_e32 v3, s21
// CHECK-NEXT:     amdgpu_mc.v_rcp_iflag_f32_e32 v3, v3
// CHECK-NEXT:     amdgpu_mc.v_mul_f32_e32 v3, 0x4f7ffffe, v3
// CHECK-NEXT:     amdgpu_mc.v_cvt_u32_f32_e32 v3, v3
// CHECK-NEXT:     amdgpu_mc.v_readfirstlane_b32 s27, v3
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s28, 0, s21
// CHECK-NEXT:     amdgpu_mc.s_mul_i32 s28, s28, s27
// CHECK-NEXT:     amdgpu_mc.s_mul_hi_u32 s28, s27, s28
// CHECK-NEXT:     amdgpu_mc.s_add_i32 s27, s27, s28
// CHECK-NEXT:     amdgpu_mc.s_mul_hi_u32 s24, s18, s27
// CHECK-NEXT:     amdgpu_mc.s_mul_i32 s28, s24, s21
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s29, s18, s28
// CHECK-NEXT:     amdgpu_mc.s_add_i32 s27, s24, 1
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s28, s29, s21
// CHECK-NEXT:     amdgpu_mc.s_cmp_ge_u32 s29, s21
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s24, s27, s24
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s29, s28, s29
// CHECK-NEXT:     amdgpu_mc.s_add_i32 s27, s24, 1
// CHECK-NEXT:     amdgpu_mc.s_sub_i32 s28, s29, s21
// CHECK-NEXT:     amdgpu_mc.s_cmp_ge_u32 s29, s21
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s24, s27, s24
// CHECK-NEXT:     amdgpu_mc.s_cselect_b32 s29, s28, s29
// CHECK-NEXT:     amdgpu_mc.s_cmp_lg_u32 s29, 0
// CHECK-NEXT:     amdgpu_mc.s_addc_u32 s24, s24, 0
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s11, 4
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s24, 5
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s22, 9
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s4, s6
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s5, s7
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s6, s8
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s7, s9
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s8, s10
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s9, s12
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }
