// place-sva, lower-intrinsics and emit-preamble on gfx908 (CDNA1), which writes each
// work-item id to its own VGPR at entry (v0 = x, v1 = y, v2 = z) instead of packing them
// into v0, and has no accum_offset (its AGPRs are a separate file).
//
// @free: the application touches v0-v2; the payload reads a kernel argument, workgroup id
// y and work-item id z. Enabling work-item ids up to z makes the hardware write v1 and v2
// too, so no home may be one of v0-v2: the SVA is v3, the work-item home v4. The preamble
// packs the ids into the home in gfx90a's layout (x in bits 0-9, y 10-19, z 20-29:
// v_lshl_or_b32 puts v1 << 10 and v2 << 20 over v0), so lower-intrinsics reads z with the
// same v_bfe_u32 as on gfx90a. v0 is x alone here, so it is not masked (gfx90a masks the
// packed v0 back to the ids the kernel asked for). The SVA lanes: 0-1 from the kernarg
// pointer s[4:5], 3 from workgroup id y, a new system SGPR after x: s7.
//
// @no_kernarg_ptr: the kernel did not ask for the kernarg pointer; enabling it puts it at
// s[4:5] (after the private segment buffer s[0:3]) and moves workgroup id x from s4 to s6:
// the preamble saves the pointer in SVA lanes 0-1 and moves s6 back to s4.
//
// RUN: luthier-opt %s -p place-sva,lower-intrinsics,emit-preamble | filecheck %s
// RUN: luthier-opt %s -p place-sva,lower-intrinsics,emit-preamble | luthier-opt | filecheck %s

amdgpu_mc.code_object "gfx908" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1328 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_64>], uses = [], offset = 8 : i64}
      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [], dim = "y"}
      instr.mc_intrinsic "workitem_id" {defs = [#amdgpu_mc.vreg<3 : VGPR_32>], uses = [], dim = "z"}
      instr.return
    }
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.v_add_u32_e32 v1, s6, v0
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_store_dword v2, v1, s[0:1]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @no_kernarg_ptr <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_private_segment_buffer = 1>}> {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = [], offset = 0 : i64}
      instr.return
    }
    amdgpu_mc.v_mov_b32_e32 v1, s4
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc2.enable_sgpr_workgroup_id_y = 1, rsrc2.enable_vgpr_workitem_id = 2, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> attributes {instr.sva = "v3", instr.workitem_home = "v4", instr.entry_state = ["kernarg", "workgroup_id.y", "workitem_id.z"]} {
// CHECK-NEXT:   instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.v_lshl_or_b32 v4, v1, 10, v0
// CHECK-NEXT:     amdgpu_mc.v_lshl_or_b32 v4, v2, 20, v4
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s4, 0
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s5, 1
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s7, 3
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }
// CHECK-NEXT:   instr.payload @state attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.v_readlane_b32 %4:SReg_64.sub0, v3, 0
// CHECK-NEXT:     amdgpu_mc.v_readlane_b32 %4:SReg_64.sub1, v3, 1
// CHECK-NEXT:     amdgpu_mc.s_load_dwordx2 %1:SReg_64, %4:SReg_64, 0x8
// CHECK-NEXT:     amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:     amdgpu_mc.v_readlane_b32 %2:SReg_32, v3, 3
// CHECK-NEXT:     amdgpu_mc.v_bfe_u32 %3:VGPR_32, v4, 20, 10
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }
// CHECK-NEXT:   amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0

// CHECK:      amdgpu_mc.kernel @no_kernarg_ptr <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> attributes {instr.sva = "v2", instr.entry_state = ["kernarg"]} {
// CHECK-NEXT:   instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v2, s4, 0
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v2, s5, 1
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s4, s6
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }
