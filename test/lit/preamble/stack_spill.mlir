// The instrumentation stack: a payload saves an application VGPR to scratch memory, and the
// kernel is set up to reach it. Checked by hand:
// - @vstack (gfx90a and gfx942): the budget is v0-v7 with no AGPR (accum_offset 8) and
//   every one is live at the point, growth is off, and spill_vgprs_to_agprs=false: %1 takes
//   v0, saved to slot 0 of the stack under a full EXEC (held in s[4:5], dead: the
//   application only has s[0:1] (kernarg pointer) and s2 (workgroup id x) live). The stack
//   base is the private segment (20 bytes) rounded up to 16: 32. GFX942 addresses the slot
//   with the immediate (offset:32); GFX90A has no such form, so the base goes to s3, dead.
//   The descriptor's private segment grows to 32 + 4 = 36 and enables the private segment.
//   GFX90A's preamble asks for the flat scratch init pair (user SGPRs s[2:3], after the
//   kernarg pointer), so the workgroup id moves from s2 to s4 and the wave offset comes in
//   s5: FLAT_SCRATCH = s[2:3] + s5 first, then s2 = s4 (moved back). GFX942 initialises
//   FLAT_SCRATCH in hardware: the preamble is empty, only the private segment is enabled.
//   The SGPR counts grow by what the payload adds past s2 (s5: 3 more) plus FLAT_SCRATCH on
//   gfx90a (11 or 13: one more block of 8).
// - @holder (gfx90a, assume_live: every SGPR but one dead pair and one more SGPR, and every
//   VGPR, counts as live): %1 and %2 take the dead s[2:3] and s4; %4 takes s0 (live: the
//   kernarg pointer) and %3 takes v0 (live). No VGPR is dead to hold s0's lane, so v1 (live,
//   not named) is saved to the stack too and holds it: stores first, then the lane write;
//   at exit the lane read, then the loads. EXEC sits in s[2:3] and the base in s4 while
//   slots are accessed (the temporaries are dead there). The base is 0 (no private
//   segment), 8 bytes are used.
// verify-payloads accepts both: the saves round trip through the stack.
// RUN: luthier-opt %s -p 'allocate-payload-registers{allow_budget_growth=false spill_vgprs_to_agprs=false},verify-payloads,emit-preamble,update-descriptors' | filecheck %s
// RUN: luthier-opt %s -p 'allocate-payload-registers{allow_budget_growth=false spill_vgprs_to_agprs=false assume_live=true},verify-payloads,emit-preamble,update-descriptors' | filecheck %s --check-prefix=HOLDER
// The report shows each payload's slots (bytes [offset:top)) and each kernel's private
// segment before and after:
// RUN: luthier-opt %s -p 'allocate-payload-registers{allow_budget_growth=false spill_vgprs_to_agprs=false assume_live=true}' --report -o /dev/null 2>&1 | filecheck %s --check-prefix=REPORT
// REPORT:      instrumentation points:
// REPORT-NEXT:   hook    function  #  instruction               added  registers        spilled   spill registers  past budget  stack
// REPORT-NEXT:   @count  @vstack   0  v_add_u32_e32 v0, s2, v0  12     v0               v0        s[4:5] s3        -            [32:36]
// REPORT-NEXT:   @lanes  @holder   0  v_add_u32_e32 v0, v1, v0  19     s0 s[2:3] s4 v0  s0 v0 v1  s[2:3] s4        -            [0:8]
// REPORT:        kernel   payloads  added  sgprs     vgprs   agprs   vector alloc  waves/SIMD  scratch   changed
// REPORT-NEXT:   @vstack  1         12     12 -> 12  8 -> 8  0 -> 0  8 -> 8        8 -> 8      20 -> 36  scratch
// REPORT-NEXT:   @holder  1         19     12 -> 12  8 -> 8  0 -> 0  8 -> 8        8 -> 8      0 -> 8    scratch

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<private_segment_fixed_size = 20, properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_u32_e32 v0, s2, v0
    amdgpu_mc.v_add_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_u32_e32 v2, v3, v2
    amdgpu_mc.v_add_u32_e32 v4, v5, v4
    amdgpu_mc.v_add_u32_e32 v6, v7, v6
    amdgpu_mc.v_add_u32_e32 v0, v4, v0
    amdgpu_mc.v_add_u32_e32 v2, v6, v2
    amdgpu_mc.global_store_dword v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @holder <{descriptor = #amdgpu_mc.kernel_descriptor<properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc3.accum_offset = 1>}> {
    instr.payload @lanes attributes {args = []} {
      amdgpu_mc.s_mov_b64 %1:SReg_64, 0
      amdgpu_mc.s_mov_b32 %2:SReg_32, 1
      amdgpu_mc.s_mov_b32 %4:SReg_32, 2
      amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : SReg_64>, #amdgpu_mc.vreg<2 : SReg_32>, #amdgpu_mc.vreg<4 : SReg_32>, #amdgpu_mc.vreg<3 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_u32_e32 v0, v1, v0
    amdgpu_mc.global_store_dword v0, v0, s[0:1]
    amdgpu_mc.s_endpgm
  }
}
amdgpu_mc.code_object "gfx942" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1356 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<private_segment_fixed_size = 20, properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_u32_e32 v0, s2, v0
    amdgpu_mc.v_add_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_u32_e32 v2, v3, v2
    amdgpu_mc.v_add_u32_e32 v4, v5, v4
    amdgpu_mc.v_add_u32_e32 v6, v7, v6
    amdgpu_mc.v_add_u32_e32 v0, v4, v0
    amdgpu_mc.v_add_u32_e32 v2, v6, v2
    amdgpu_mc.global_store_dword v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
}

// CHECK-LABEL: amdgpu_mc.code_object "gfx90a"
// CHECK: amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<private_segment_fixed_size = 36, rsrc1.granulated_wavefront_sgpr_count = 1, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 4, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_sgpr_flat_scratch_init = 1>}> {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: amdgpu_mc.s_add_u32 flat_scratch_lo, s2, s5
// CHECK-NEXT: amdgpu_mc.s_addc_u32 flat_scratch_hi, s3, 0
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
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v0, s2, v0
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v0, v1, v0
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v2, v3, v2
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v4, v5, v4
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v6, v7, v6
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v0, v4, v0
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v2, v6, v2
// CHECK-NEXT: amdgpu_mc.global_store_dword v0, v2, s[0:1]
// CHECK-NEXT: amdgpu_mc.s_endpgm
// CHECK-LABEL: amdgpu_mc.code_object "gfx942"
// CHECK: amdgpu_mc.kernel @vstack <{descriptor = #amdgpu_mc.kernel_descriptor<private_segment_fixed_size = 36, rsrc1.granulated_wavefront_sgpr_count = 1, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 2, rsrc2.enable_sgpr_workgroup_id_x = 1, rsrc3.accum_offset = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
// CHECK-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @count attributes {allocation = {registers = ["v0"], coalesced = [], spilled = ["v0"], spill_registers = ["s[4:5]"], budget_growth = [], stack = 4 : i64, stack_offset = 32 : i64, stack_saved = ["v0"]}, args = []} {
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[4:5], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.scratch_store_dword off, v0, off offset:32
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[4:5]
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v0, 7
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v0>]}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[4:5], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.scratch_load_dword v0, off, off offset:32
// CHECK-NEXT: amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[4:5]
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v0, s2, v0
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v0, v1, v0
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v2, v3, v2
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v4, v5, v4
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v6, v7, v6
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v0, v4, v0
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v2, v6, v2
// CHECK-NEXT: amdgpu_mc.global_store_dword v0, v2, s[0:1]
// CHECK-NEXT: amdgpu_mc.s_endpgm

// HOLDER-LABEL: amdgpu_mc.kernel @holder <{descriptor = #amdgpu_mc.kernel_descriptor<private_segment_fixed_size = 8, rsrc1.granulated_wavefront_sgpr_count = 1, rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 4, rsrc3.accum_offset = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_sgpr_flat_scratch_init = 1>}> {
// HOLDER-NEXT: instr.payload @luthier.preamble attributes {args = []} {
// HOLDER-NEXT: amdgpu_mc.s_add_u32 flat_scratch_lo, s2, s4
// HOLDER-NEXT: amdgpu_mc.s_addc_u32 flat_scratch_hi, s3, 0
// HOLDER-NEXT: instr.return
// HOLDER-NEXT: }
// HOLDER-NEXT: instr.payload @lanes attributes {allocation = {registers = ["s0", "s[2:3]", "s4", "v0"], coalesced = [], spilled = ["s0", "v0", "v1"], spill_registers = ["s[2:3]", "s4"], budget_growth = [], stack = 8 : i64, stack_offset = 0 : i64, stack_saved = ["v0", "v1"]}, args = []} {
// HOLDER-NEXT: amdgpu_mc.s_mov_b64 s[2:3], exec
// HOLDER-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// HOLDER-NEXT: amdgpu_mc.s_mov_b32 s4, 0
// HOLDER-NEXT: amdgpu_mc.scratch_store_dword off, v0, s4
// HOLDER-NEXT: amdgpu_mc.scratch_store_dword off, v1, s4 offset:4
// HOLDER-NEXT: amdgpu_mc.s_mov_b64 exec, s[2:3]
// HOLDER-NEXT: amdgpu_mc.v_writelane_b32 v1, s0, 0
// HOLDER-NEXT: amdgpu_mc.s_mov_b64 s[2:3], 0
// HOLDER-NEXT: amdgpu_mc.s_mov_b32 s4, 1
// HOLDER-NEXT: amdgpu_mc.s_mov_b32 s0, 2
// HOLDER-NEXT: amdgpu_mc.v_mov_b32_e32 v0, 7
// HOLDER-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<s[2:3]>, #amdgpu_mc.reg<s4>, #amdgpu_mc.reg<s0>, #amdgpu_mc.reg<v0>]}
// HOLDER-NEXT: amdgpu_mc.v_readlane_b32 s0, v1, 0
// HOLDER-NEXT: amdgpu_mc.s_mov_b64 s[2:3], exec
// HOLDER-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// HOLDER-NEXT: amdgpu_mc.s_mov_b32 s4, 0
// HOLDER-NEXT: amdgpu_mc.scratch_load_dword v0, off, s4
// HOLDER-NEXT: amdgpu_mc.scratch_load_dword v1, off, s4 offset:4
// HOLDER-NEXT: amdgpu_mc.s_waitcnt vmcnt(0)
// HOLDER-NEXT: amdgpu_mc.s_mov_b64 exec, s[2:3]
// HOLDER-NEXT: instr.return
// HOLDER-NEXT: }
// HOLDER-NEXT: amdgpu_mc.v_add_u32_e32 v0, v1, v0
// HOLDER-NEXT: amdgpu_mc.global_store_dword v0, v0, s[0:1]
// HOLDER-NEXT: amdgpu_mc.s_endpgm
