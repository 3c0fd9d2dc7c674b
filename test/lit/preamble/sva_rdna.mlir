// place-sva, lower-intrinsics and emit-preamble on RDNA, one kernel per target and wave
// size: gfx1030 in wave32 and wave64, gfx1100 and gfx1201 in wave32. The payload reads a
// kernel argument, workgroup id y, work-item id z and the grid's size in workgroups (x).
// Checked by hand:
// - Homes: the application touches v0-v2 (v0 written at entry), so the SVA is v3 and the
//   work-item home v4, both inside the 8 VGPRs the descriptor asks for (one step of 8 in
//   wave32; two steps of 4 in wave64). The SVA's lanes 0-10 fit a wave32 VGPR.
// - The descriptor gains the dispatch pointer (s[0:1]), which moves the kernarg pointer
//   to s[2:3] (user SGPRs 2 -> 4), workgroup id x to s4, and adds workgroup id y (s5).
// - Work-item ids: gfx1030 gives y and z VGPRs of their own (v1, v2: no packed ids before
//   GFX11); the preamble packs them into the home like GFX90A's v0 (x | y << 10 | z <<
//   20). GFX11+ packs them in v0 itself: the home is a copy, and v0 is masked back to x.
// - Launch sizes: the dispatch packet's workgroup sizes and grid sizes (16 bytes from
//   offset 4) in free SGPRs (s8 on, past the entry SGPRs), then grid_size_x / wg_size_x
//   rounded up, into lane 5. GFX12 spells the scalar adds s_add_co_i32/s_sub_co_i32/
//   s_add_co_ci_u32 and waits with s_wait_kmcnt; GFX11 loads with s_load_b128.
// - The SVA gets the kernarg pointer (lanes 0-1 from s[2:3]), workgroup id y (lane 3 from
//   s5) and grid_dim.x (lane 5); then the moved SGPRs go back (s[0:1] = s[2:3], s2 = s4).
// RUN: luthier-opt %s -p place-sva,lower-intrinsics,emit-preamble | filecheck %s

amdgpu_mc.code_object "gfx1030" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1334 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_64>], uses = [], offset = 8 : i64}
      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [], dim = "y"}
      instr.mc_intrinsic "workitem_id" {defs = [#amdgpu_mc.vreg<3 : VGPR_32>], uses = [], dim = "z"}
      instr.mc_intrinsic "grid_dim" {defs = [#amdgpu_mc.vreg<4 : SReg_32>], uses = [], dim = "x"}
      instr.return
    }
    amdgpu_mc.s_load_dwordx2 s[4:5], s[0:1], 0x0
    amdgpu_mc.v_add_nc_u32_e32 v1, s2, v0
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_store_dword v2, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
}
amdgpu_mc.code_object "gfx1030" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1334 : i64, abi_version = 3 : i64, wavefront_size = 64 : i64}> {
  amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc1.granulated_workitem_vgpr_count = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_64>], uses = [], offset = 8 : i64}
      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [], dim = "y"}
      instr.mc_intrinsic "workitem_id" {defs = [#amdgpu_mc.vreg<3 : VGPR_32>], uses = [], dim = "z"}
      instr.mc_intrinsic "grid_dim" {defs = [#amdgpu_mc.vreg<4 : SReg_32>], uses = [], dim = "x"}
      instr.return
    }
    amdgpu_mc.s_load_dwordx2 s[4:5], s[0:1], 0x0
    amdgpu_mc.v_add_nc_u32_e32 v1, s2, v0
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_store_dword v2, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
}
amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_64>], uses = [], offset = 8 : i64}
      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [], dim = "y"}
      instr.mc_intrinsic "workitem_id" {defs = [#amdgpu_mc.vreg<3 : VGPR_32>], uses = [], dim = "z"}
      instr.mc_intrinsic "grid_dim" {defs = [#amdgpu_mc.vreg<4 : SReg_32>], uses = [], dim = "x"}
      instr.return
    }
    amdgpu_mc.s_load_b64 s[4:5], s[0:1], 0x0
    amdgpu_mc.v_add_nc_u32_e32 v1, s2, v0
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_store_b32 v2, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
}
amdgpu_mc.code_object "gfx1201" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1358 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx12, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_64>], uses = [], offset = 8 : i64}
      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [], dim = "y"}
      instr.mc_intrinsic "workitem_id" {defs = [#amdgpu_mc.vreg<3 : VGPR_32>], uses = [], dim = "z"}
      instr.mc_intrinsic "grid_dim" {defs = [#amdgpu_mc.vreg<4 : SReg_32>], uses = [], dim = "x"}
      instr.return
    }
    amdgpu_mc.s_load_b64 s[4:5], s[0:1], 0x0
    amdgpu_mc.v_add_nc_u32_e32 v1, s2, v0
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_wait_kmcnt 0x0
    amdgpu_mc.global_store_b32 v2, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
}

// CHECK-LABEL: amdgpu_mc.code_object "gfx1030"
// CHECK-NEXT: amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc2.enable_sgpr_workgroup_id_y = 1, rsrc2.enable_vgpr_workitem_id = 2, properties.enable_sgpr_dispatch_ptr = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}> attributes {instr.sva = "v3", instr.workitem_home = "v4", instr.entry_state = ["kernarg", "workgroup_id.y", "workitem_id.z", "grid_dim.x"]} {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_lshl_or_b32 v4, v1, 10, v0
// CHECK-NEXT: amdgpu_mc.v_lshl_or_b32 v4, v2, 20, v4
// CHECK-NEXT: amdgpu_mc.s_load_dwordx4 s[8:11], s[0:1], 0x4
// CHECK-NEXT: amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgpu_mc.s_and_b32 s13, s8, 0xffff
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_u32_e32 v3, s13
// CHECK-NEXT: amdgpu_mc.v_rcp_iflag_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_mul_f32_e32 v3, 0x4f7ffffe, v3
// CHECK-NEXT: amdgpu_mc.v_cvt_u32_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_readfirstlane_b32 s19, v3
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, 0, s13
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s20, s19
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s20, s19, s20
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s19, s20
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s16, s10, s19
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s16, s13
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s21, s10, s20
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_cmp_lg_u32 s21, 0
// CHECK-NEXT: amdgpu_mc.s_addc_u32 s16, s16, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s2, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s3, 1
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s5, 3
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s16, 5
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s0, s2
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s1, s3
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s2, s4
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @state attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub0, v3, 0
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub1, v3, 1
// CHECK-NEXT: amdgpu_mc.s_load_dwordx2 %1:SReg_64, %5:SReg_64, 0x8
// CHECK-NEXT: amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %2:SReg_32, v3, 3
// CHECK-NEXT: amdgpu_mc.v_bfe_u32 %3:VGPR_32, v4, 20, 10
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %4:SReg_32, v3, 5
// CHECK-NEXT: instr.return
// CHECK-LABEL: amdgpu_mc.code_object "gfx1030"
// CHECK-NEXT: amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc1.granulated_workitem_vgpr_count = 1, rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc2.enable_sgpr_workgroup_id_y = 1, rsrc2.enable_vgpr_workitem_id = 2, properties.enable_sgpr_dispatch_ptr = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> attributes {instr.sva = "v3", instr.workitem_home = "v4", instr.entry_state = ["kernarg", "workgroup_id.y", "workitem_id.z", "grid_dim.x"]} {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_lshl_or_b32 v4, v1, 10, v0
// CHECK-NEXT: amdgpu_mc.v_lshl_or_b32 v4, v2, 20, v4
// CHECK-NEXT: amdgpu_mc.s_load_dwordx4 s[8:11], s[0:1], 0x4
// CHECK-NEXT: amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgpu_mc.s_and_b32 s13, s8, 0xffff
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_u32_e32 v3, s13
// CHECK-NEXT: amdgpu_mc.v_rcp_iflag_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_mul_f32_e32 v3, 0x4f7ffffe, v3
// CHECK-NEXT: amdgpu_mc.v_cvt_u32_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_readfirstlane_b32 s19, v3
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, 0, s13
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s20, s19
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s20, s19, s20
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s19, s20
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s16, s10, s19
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s16, s13
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s21, s10, s20
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_cmp_lg_u32 s21, 0
// CHECK-NEXT: amdgpu_mc.s_addc_u32 s16, s16, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s2, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s3, 1
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s5, 3
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s16, 5
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s0, s2
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s1, s3
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s2, s4
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @state attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub0, v3, 0
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub1, v3, 1
// CHECK-NEXT: amdgpu_mc.s_load_dwordx2 %1:SReg_64, %5:SReg_64, 0x8
// CHECK-NEXT: amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %2:SReg_32, v3, 3
// CHECK-NEXT: amdgpu_mc.v_bfe_u32 %3:VGPR_32, v4, 20, 10
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %4:SReg_32, v3, 5
// CHECK-NEXT: instr.return
// CHECK-LABEL: amdgpu_mc.code_object "gfx1100"
// CHECK-NEXT: amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc2.enable_sgpr_workgroup_id_y = 1, rsrc2.enable_vgpr_workitem_id = 2, properties.enable_sgpr_dispatch_ptr = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}> attributes {instr.sva = "v3", instr.workitem_home = "v4", instr.entry_state = ["kernarg", "workgroup_id.y", "workitem_id.z", "grid_dim.x"]} {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v4, v0
// CHECK-NEXT: amdgpu_mc.v_and_b32_e32 v0, 0x3ff, v0
// CHECK-NEXT: amdgpu_mc.s_load_b128 s[8:11], s[0:1], 0x4
// CHECK-NEXT: amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgpu_mc.s_and_b32 s13, s8, 0xffff
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_u32_e32 v3, s13
// CHECK-NEXT: amdgpu_mc.v_rcp_iflag_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_mul_f32_e32 v3, 0x4f7ffffe, v3
// CHECK-NEXT: amdgpu_mc.v_cvt_u32_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_readfirstlane_b32 s19, v3
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, 0, s13
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s20, s19
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s20, s19, s20
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s19, s20
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s16, s10, s19
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s16, s13
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s21, s10, s20
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_add_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_cmp_lg_u32 s21, 0
// CHECK-NEXT: amdgpu_mc.s_addc_u32 s16, s16, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s2, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s3, 1
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s5, 3
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s16, 5
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s0, s2
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s1, s3
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s2, s4
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @state attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub0, v3, 0
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub1, v3, 1
// CHECK-NEXT: amdgpu_mc.s_load_b64 %1:SReg_64, %5:SReg_64, 0x8
// CHECK-NEXT: amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %2:SReg_32, v3, 3
// CHECK-NEXT: amdgpu_mc.v_bfe_u32 %3:VGPR_32, v4, 20, 10
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %4:SReg_32, v3, 5
// CHECK-NEXT: instr.return
// CHECK-LABEL: amdgpu_mc.code_object "gfx1201"
// CHECK-NEXT: amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<gfx12, rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc2.enable_sgpr_workgroup_id_y = 1, rsrc2.enable_vgpr_workitem_id = 2, properties.enable_sgpr_dispatch_ptr = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}> attributes {instr.sva = "v3", instr.workitem_home = "v4", instr.entry_state = ["kernarg", "workgroup_id.y", "workitem_id.z", "grid_dim.x"]} {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v4, v0
// CHECK-NEXT: amdgpu_mc.v_and_b32_e32 v0, 0x3ff, v0
// CHECK-NEXT: amdgpu_mc.s_load_b128 s[8:11], s[0:1], 0x4
// CHECK-NEXT: amdgpu_mc.s_wait_kmcnt 0x0
// CHECK-NEXT: amdgpu_mc.s_and_b32 s13, s8, 0xffff
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_u32_e32 v3, s13
// CHECK-NEXT: amdgpu_mc.v_rcp_iflag_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_mul_f32_e32 v3, 0x4f7ffffe, v3
// CHECK-NEXT: amdgpu_mc.v_cvt_u32_f32_e32 v3, v3
// CHECK-NEXT: amdgpu_mc.v_readfirstlane_b32 s19, v3
// CHECK-NEXT: amdgpu_mc.s_sub_co_i32 s20, 0, s13
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s20, s19
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s20, s19, s20
// CHECK-NEXT: amdgpu_mc.s_add_co_i32 s19, s19, s20
// CHECK-NEXT: amdgpu_mc.s_mul_hi_u32 s16, s10, s19
// CHECK-NEXT: amdgpu_mc.s_mul_i32 s20, s16, s13
// CHECK-NEXT: amdgpu_mc.s_sub_co_i32 s21, s10, s20
// CHECK-NEXT: amdgpu_mc.s_add_co_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_co_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_add_co_i32 s19, s16, 1
// CHECK-NEXT: amdgpu_mc.s_sub_co_i32 s20, s21, s13
// CHECK-NEXT: amdgpu_mc.s_cmp_ge_u32 s21, s13
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s16, s19, s16
// CHECK-NEXT: amdgpu_mc.s_cselect_b32 s21, s20, s21
// CHECK-NEXT: amdgpu_mc.s_cmp_lg_u32 s21, 0
// CHECK-NEXT: amdgpu_mc.s_add_co_ci_u32 s16, s16, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s2, 0
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s3, 1
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s5, 3
// CHECK-NEXT: amdgpu_mc.v_writelane_b32 v3, s16, 5
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s0, s2
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s1, s3
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s2, s4
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @state attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub0, v3, 0
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %5:SReg_64.sub1, v3, 1
// CHECK-NEXT: amdgpu_mc.s_load_b64 %1:SReg_64, %5:SReg_64, 0x8
// CHECK-NEXT: amdgpu_mc.s_wait_kmcnt 0x0
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %2:SReg_32, v3, 3
// CHECK-NEXT: amdgpu_mc.v_bfe_u32 %3:VGPR_32, v4, 20, 10
// CHECK-NEXT: amdgpu_mc.v_readlane_b32 %4:SReg_32, v3, 5
// CHECK-NEXT: instr.return
