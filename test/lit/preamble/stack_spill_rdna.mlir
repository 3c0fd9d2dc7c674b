// The instrumentation stack on RDNA: the @vstack payload of stack_spill.mlir (every VGPR
// of the 8 the descriptor asks for is live at the point, growth off, no AGPRs), on
// gfx1030 in wave32 and wave64, gfx1100 in wave32 and gfx1201 in wave64. Checked by hand:
// - %1 takes v0, saved to slot 0 of the stack (base: the 20-byte private segment rounded
//   up to 16, so byte 32) under a full EXEC: in wave32 one SGPR holds exec_lo (s3, dead;
//   the application has s[0:1] and s2 live) and s_mov_b32 exec_lo, -1 turns every lane
//   on; in wave64 an SGPR pair holds exec (s[4:5]).
// - gfx1030 has no flat scratch ST form, so the slot's address goes to an SGPR (s4 in
//   wave32, s3 in wave64); GFX11 and GFX12 address it with the immediate (offset:32),
//   with GFX11's names scratch_store_b32/scratch_load_b32, and GFX12's s_wait_loadcnt.
// - Every kernel's private segment grows to 36 and is enabled. gfx1030 has no
//   architected flat scratch: the preamble asks for the flat scratch init pair (s[2:3])
//   and the wave offset (s5, after workgroup id x in s4), adds them in s[6:7] (free) and
//   writes FLAT_SCRATCH through s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO/HI): GFX10 has no
//   flat_scratch operand. Then s2 = s4. GFX11+ sets FLAT_SCRATCH in hardware: an empty
//   preamble, the private segment enabled alone.
// - No VGPR count grows (v0 is the application's, saved), and the SGPR field stays 0:
//   it is reserved on GFX10+, where every wave has s0-s105.
// RUN: luthier-opt %s -p 'allocate-payload-registers{allow_budget_growth=false spill_vgprs_to_agprs=false},verify-payloads,emit-preamble,update-descriptors' | filecheck %s
// The report: sgprs stay 106 (every wave's), no AGPRs, occupancy 16 waves (8 VGPRs are
// below gfx1030's wave32 step of 16):
// RUN: luthier-opt %s -p 'allocate-payload-registers{allow_budget_growth=false spill_vgprs_to_agprs=false}' --report -o /dev/null 2>&1 | filecheck %s --check-prefix=REPORT
// REPORT:      @count  @vstack   0  v_add_nc_u32_e32 v0, s2, v0  12     v0         v0       s3 s4            -            [32:36]
// REPORT:      @vstack  1         12     106 -> 106  8 -> 8  0 -> 0  8 -> 8        16 -> 16    20 -> 36  scratch
// REPORT:      @count  @vstack   0  v_add_nc_u32_e32 v0, s2, v0  12     v0         v0       s[4:5] s3        -            [32:36]
// REPORT:      @vstack  1         12     106 -> 106  8 -> 8  0 -> 0  8 -> 8        16 -> 16    20 -> 36  scratch
// REPORT:      @count  @vstack   0  v_add_nc_u32_e32 v0, s2, v0  10     v0         v0       s3               -            [32:36]
// REPORT:      @vstack  1         10     106 -> 106  8 -> 8  0 -> 0  8 -> 8        16 -> 16    20 -> 36  scratch
// REPORT:      @count  @vstack   0  v_add_nc_u32_e32 v0, s2, v0  10     v0         v0       s[4:5]           -            [32:36]
// REPORT:      @vstack  1         10     106 -> 106  8 -> 8  0 -> 0  8 -> 8        16 -> 16    20 -> 36  scratch

amdgpu_mc.code_object "gfx1030" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1334 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, private_segment_fixed_size = 20, properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_nc_u32_e32 v0, s2, v0
    amdgpu_mc.v_add_nc_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v3, v2
    amdgpu_mc.v_add_nc_u32_e32 v4, v5, v4
    amdgpu_mc.v_add_nc_u32_e32 v6, v7, v6
    amdgpu_mc.v_add_nc_u32_e32 v0, v4, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v6, v2
    amdgpu_mc.global_store_dword v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
}
amdgpu_mc.code_object "gfx1030" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1334 : i64, abi_version = 3 : i64, wavefront_size = 64 : i64}> {
  amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, private_segment_fixed_size = 20, rsrc1.granulated_workitem_vgpr_count = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_nc_u32_e32 v0, s2, v0
    amdgpu_mc.v_add_nc_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v3, v2
    amdgpu_mc.v_add_nc_u32_e32 v4, v5, v4
    amdgpu_mc.v_add_nc_u32_e32 v6, v7, v6
    amdgpu_mc.v_add_nc_u32_e32 v0, v4, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v6, v2
    amdgpu_mc.global_store_dword v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
}
amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, private_segment_fixed_size = 20, properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_nc_u32_e32 v0, s2, v0
    amdgpu_mc.v_add_nc_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v3, v2
    amdgpu_mc.v_add_nc_u32_e32 v4, v5, v4
    amdgpu_mc.v_add_nc_u32_e32 v6, v7, v6
    amdgpu_mc.v_add_nc_u32_e32 v0, v4, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v6, v2
    amdgpu_mc.global_store_b32 v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
}
amdgpu_mc.code_object "gfx1201" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1358 : i64, abi_version = 3 : i64, wavefront_size = 64 : i64}> {
  amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx12, private_segment_fixed_size = 20, rsrc1.granulated_workitem_vgpr_count = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_nc_u32_e32 v0, s2, v0
    amdgpu_mc.v_add_nc_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v3, v2
    amdgpu_mc.v_add_nc_u32_e32 v4, v5, v4
    amdgpu_mc.v_add_nc_u32_e32 v6, v7, v6
    amdgpu_mc.v_add_nc_u32_e32 v0, v4, v0
    amdgpu_mc.v_add_nc_u32_e32 v2, v6, v2
    amdgpu_mc.global_store_b32 v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
}

// CHECK-LABEL: amdgpu_mc.code_object "gfx1030"
// CHECK-NEXT: amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, private_segment_fixed_size = 36, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_sgpr_flat_scratch_init = 1, properties.enable_wavefront_size32 = 1>}> {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.s_add_u32 s6, s2, s5
// CHECK-NEXT: amdgpu_mc.s_addc_u32 s7, s3, 0
// CHECK-NEXT: amdgpu_mc.s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO), s6
// CHECK-NEXT: amdgpu_mc.s_setreg_b32 hwreg(HW_REG_FLAT_SCR_HI), s7
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s2, s4
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @count attributes {allocation = {registers = ["v0"], coalesced = [], spilled = ["v0"], spill_registers = ["s3", "s4"], budget_growth = [], stack = 4 : i64, stack_offset = 32 : i64, stack_saved = ["v0"]}, args = []} {
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s3, exec_lo
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, -1
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s4, 32
// CHECK-NEXT: amdgpu_mc.scratch_store_dword off, v0, s4
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, s3
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v0, 7
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v0>]}
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s3, exec_lo
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, -1
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s4, 32
// CHECK-NEXT: amdgpu_mc.scratch_load_dword v0, off, s4
// CHECK-NEXT: amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, s3
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-LABEL: amdgpu_mc.code_object "gfx1030"
// CHECK-NEXT: amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, private_segment_fixed_size = 36, rsrc1.granulated_workitem_vgpr_count = 1, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_sgpr_flat_scratch_init = 1>}> {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.s_add_u32 s6, s2, s5
// CHECK-NEXT: amdgpu_mc.s_addc_u32 s7, s3, 0
// CHECK-NEXT: amdgpu_mc.s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO), s6
// CHECK-NEXT: amdgpu_mc.s_setreg_b32 hwreg(HW_REG_FLAT_SCR_HI), s7
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s2, s4
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @count attributes {allocation = {registers = ["v0"], coalesced = [], spilled = ["v0"], spill_registers = ["s[4:5]", "s3"], budget_growth = [], stack = 4 : i64, stack_offset = 32 : i64, stack_saved = ["v0"]}, args = []} {
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[4:5], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s3, 32
// CHECK-NEXT: amdgpu_mc.scratch_store_dword off, v0, s3
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[4:5]
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v0, 7
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v0>]}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[4:5], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s3, 32
// CHECK-NEXT: amdgpu_mc.scratch_load_dword v0, off, s3
// CHECK-NEXT: amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[4:5]
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-LABEL: amdgpu_mc.code_object "gfx1100"
// CHECK-NEXT: amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, private_segment_fixed_size = 36, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}> {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @count attributes {allocation = {registers = ["v0"], coalesced = [], spilled = ["v0"], spill_registers = ["s3"], budget_growth = [], stack = 4 : i64, stack_offset = 32 : i64, stack_saved = ["v0"]}, args = []} {
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s3, exec_lo
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, -1
// CHECK-NEXT: amdgpu_mc.scratch_store_b32 off, v0, off offset:32
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, s3
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v0, 7
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v0>]}
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s3, exec_lo
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, -1
// CHECK-NEXT: amdgpu_mc.scratch_load_b32 v0, off, off offset:32
// CHECK-NEXT: amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT: amdgpu_mc.s_mov_b32 exec_lo, s3
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-LABEL: amdgpu_mc.code_object "gfx1201"
// CHECK-NEXT: amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<gfx12, private_segment_fixed_size = 36, rsrc1.granulated_workitem_vgpr_count = 1, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @count attributes {allocation = {registers = ["v0"], coalesced = [], spilled = ["v0"], spill_registers = ["s[4:5]"], budget_growth = [], stack = 4 : i64, stack_offset = 32 : i64, stack_saved = ["v0"]}, args = []} {
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[4:5], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.scratch_store_b32 off, v0, off offset:32
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[4:5]
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v0, 7
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v0>]}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[4:5], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.scratch_load_b32 v0, off, off offset:32
// CHECK-NEXT: amdgpu_mc.s_wait_loadcnt 0x0
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[4:5]
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
