// place-sva, lower-intrinsics and emit-preamble on hand-written payloads (before
// allocation: the state intrinsics' results are virtual registers).
//
// @free (budget: 8 VGPRs): the application touches v0-v2, the hardware writes v0 at
// entry; the payload reads a kernel argument, workgroup id y and work-item id z. Homes:
// the SVA is v3, the lowest VGPR nothing touches, the work-item home v4 (next).
// lower-intrinsics reads them: the kernarg pointer from SVA lanes 0-1, then an s_load
// at the argument's offset; workgroup id y from lane 3; work-item id z is bits 20-29
// of the packed home. emit-preamble enables what the kernel lacked: workgroup id y
// (a system SGPR after workgroup id x: s6 stays, s7 is new) and work-item ids up to z;
// the preamble copies v0 to the home and masks v0 back to x (10 bits: the kernel asked
// for x only), and fills SVA lanes 0-1 from s[4:5] and lane 3 from s7. No SGPR the
// application had moved, so nothing is moved back.
//
// @no_kernarg_ptr: v0 is written at entry, v1 by the application: the SVA is v2. The
// kernel did not ask for the kernarg segment pointer. Enabling it
// puts it at s[4:5] (after the private segment buffer s[0:3]): the user SGPRs become 6
// and workgroup id x moves from s4 to s6. The preamble saves the pointer (s[4:5]) in
// lanes 0-1, then moves workgroup id x back to s4.
//
// RUN: luthier-opt %s -p place-sva,lower-intrinsics,emit-preamble | filecheck %s
// The result parses back (the homes are attributes of the kernel).
// RUN: luthier-opt %s -p place-sva,lower-intrinsics,emit-preamble | luthier-opt | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
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
  amdgpu_mc.kernel @no_kernarg_ptr <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1>}> {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = [], offset = 0 : i64}
      instr.return
    }
    amdgpu_mc.v_mov_b32_e32 v1, s4
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @free <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc2.enable_sgpr_workgroup_id_y = 1, rsrc2.enable_vgpr_workitem_id = 2, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> attributes {instr.sva = "v3", instr.workitem_home = "v4", instr.entry_state = ["kernarg", "workgroup_id.y", "workitem_id.z"]} {
// CHECK-NEXT:   instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.v_mov_b32_e32 v4, v0
// CHECK-NEXT:     amdgpu_mc.v_and_b32_e32 v0, 0x3ff, v0
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

// CHECK:      amdgpu_mc.kernel @no_kernarg_ptr <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> attributes {instr.sva = "v2", instr.entry_state = ["kernarg"]} {
// CHECK-NEXT:   instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v2, s4, 0
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v2, s5, 1
// CHECK-NEXT:     amdgpu_mc.s_mov_b32 s4, s6
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }
// CHECK-NEXT:   instr.payload @state attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.v_readlane_b32 %2:SReg_64.sub0, v2, 0
// CHECK-NEXT:     amdgpu_mc.v_readlane_b32 %2:SReg_64.sub1, v2, 1
// CHECK-NEXT:     amdgpu_mc.s_load_dword %1:SReg_32, %2:SReg_64, 0x0
// CHECK-NEXT:     amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 v1, s4
