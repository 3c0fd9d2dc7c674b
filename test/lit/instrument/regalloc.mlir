// allocate-payload-registers on hand-written payloads. Every home below was checked by hand:
//
// @alloc (budget: 12 SGPRs s0-s11, 8 VGPRs v0-v7, no AGPRs): live before the point
// (v_add_u32 v1, v0, v2) are s[0:1] (the store's address), s2 (read after the point), v0,
// v2, exec; dead: s[3:11], v1, v[3:7].
// - %1 is an entry copy of v0, read only by the add: it lives in v0 (coalesced, the copy
//   is deleted) although v0 is live, since nothing in the payload writes v0;
// - %4 is copied to s7 at exit and s7 is dead: it lives in s7 and the exit copy goes;
// - widest first: %5 (VReg_64) cannot take v[0:1] or v[2:3] (v0, v2 live) and v[3:4] is
//   odd (gfx90a aligns vector tuples): v[4:5]; its sub-registers are v4 and v5;
// - %3 (SReg_64) cannot take s[0:1] or s[2:3] (s2 live): s[4:5], halves s4 and s5;
// - %2 is live with %5 and %3: the lowest dead VGPR, v1;
// - nothing past the budget.
//
// @two: s0-s11 (the whole SGPR budget) and v0 are live at the point; two payloads sit
// before it, and the second reads s12 (dead for the application). With budget growth:
// - @first's %1 takes the lowest dead SGPR past the budget that the later payload does not
//   read: s13 (not s12);
// - @second's %1 is an entry copy of s12: it lives there (coalesced), %2 takes v1;
//   s12 and s13 are past the budget.
// Without budget growth (GROW-NOT): no SGPR is free inside the budget, so each payload saves
// s0 (the lowest live SGPR it does not name) to lane 0 of a dead VGPR around its code:
// @first uses v1 for the lane; @second gives v1 to %2 and uses v2 for the lane; %1 no
// longer coalesces (s12 is past the budget) and is copied into s0. @second still lists
// s12 under budget_growth: the hook reads a register past the kernel's allocation.
//
// RUN: luthier-opt %s -p allocate-payload-registers | filecheck %s
// RUN: luthier-opt %s -p 'allocate-payload-registers{allow_budget_growth=false}' | filecheck %s --check-prefix=GROW-NOT
// The result verifies and parses back.
// RUN: luthier-opt %s -p allocate-payload-registers | luthier-opt | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @alloc <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_load_dword s2, s[4:5], 0x8
    amdgpu_mc.v_mov_b32_e32 v2, s6
    instr.payload @probe attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, v0
      amdgpu_mc.v_add_u32_e32 %2:VGPR_32, 1, %1:VGPR_32
      amdgpu_mc.v_mov_b32_e32 %5:VReg_64.sub0, %2:VGPR_32
      amdgpu_mc.v_mov_b32_e32 %5:VReg_64.sub1, 0
      amdgpu_mc.s_getpc_b64 %3:SReg_64
      amdgpu_mc.s_add_u32 %3:SReg_64.sub0, %3:SReg_64.sub0, 4
      amdgpu_mc.s_addc_u32 %3:SReg_64.sub1, %3:SReg_64.sub1, 0
      amdgpu_mc.s_mov_b32 %4:SReg_32, 1
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<5 : VReg_64>, #amdgpu_mc.vreg<2 : VGPR_32>, #amdgpu_mc.vreg<3 : SReg_64>]}
      amdgpu_mc.s_mov_b32 s7, %4:SReg_32
      instr.return
    }
    amdgpu_mc.v_add_u32_e32 v1, v0, v2
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.v_add_u32_e32 v1, s2, v1
    amdgpu_mc.global_store_dword v0, v1, s[0:1]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @two <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}> {
    instr.payload @first attributes {args = []} {
      amdgpu_mc.s_mov_b32 %1:SReg_32, 5
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : SReg_32>]}
      instr.return
    }
    instr.payload @second attributes {args = []} {
      amdgpu_mc.s_mov_b32 %1:SReg_32, s12
      amdgpu_mc.v_mov_b32_e32 %2:VGPR_32, %1:SReg_32
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<2 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.s_add_u32 s0, s0, s1
    amdgpu_mc.s_add_u32 s2, s2, s3
    amdgpu_mc.s_add_u32 s4, s4, s5
    amdgpu_mc.s_add_u32 s6, s6, s7
    amdgpu_mc.s_add_u32 s8, s8, s9
    amdgpu_mc.s_add_u32 s10, s10, s11
    amdgpu_mc.v_mov_b32_e32 v1, v0
    amdgpu_mc.s_endpgm
  }
}

// CHECK-LABEL: amdgpu_mc.kernel @alloc
// CHECK: instr.payload @probe attributes {allocation = {registers = ["s[4:5]", "s7", "v0", "v1", "v[4:5]"], coalesced = ["s7", "v0"], spilled = [], spill_registers = [], budget_growth = []}, args = []} {
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v1, 1, v0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v4, v1
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v5, 0
// CHECK-NEXT: amdgpu_mc.s_getpc_b64 s[4:5]
// CHECK-NEXT: amdgpu_mc.s_add_u32 s4, s4, 4
// CHECK-NEXT: amdgpu_mc.s_addc_u32 s5, s5, 0
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s7, 1
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v[4:5]>, #amdgpu_mc.reg<v1>, #amdgpu_mc.reg<s[4:5]>]}
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v1, v0, v2
// CHECK-NEXT: amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v1, s2, v1
// CHECK-NEXT: amdgpu_mc.global_store_dword v0, v1, s[0:1]
// CHECK-NEXT: amdgpu_mc.s_endpgm
// CHECK-NEXT: }

// CHECK: amdgpu_mc.kernel @two <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}> {
// CHECK-NEXT: instr.payload @first attributes {allocation = {registers = ["s13"], coalesced = [], spilled = [], spill_registers = [], budget_growth = ["s13"]}, args = []} {
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s13, 5
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<s13>]}
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @second attributes {allocation = {registers = ["s12", "v1"], coalesced = ["s12"], spilled = [], spill_registers = [], budget_growth = ["s12"]}, args = []} {
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v1, s12
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v1>]}
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.s_add_u32 s0, s0, s1

// GROW-NOT: amdgpu_mc.kernel @two <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}> {
// GROW-NOT-NEXT: instr.payload @first attributes {allocation = {registers = ["s0"], coalesced = [], spilled = ["s0"], spill_registers = ["v1"], budget_growth = []}, args = []} {
// GROW-NOT-NEXT: amdgpu_mc.v_writelane_b32 v1, s0, 0
// GROW-NOT-NEXT: amdgpu_mc.s_mov_b32 s0, 5
// GROW-NOT-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<s0>]}
// GROW-NOT-NEXT: amdgpu_mc.v_readlane_b32 s0, v1, 0
// GROW-NOT-NEXT: instr.return
// GROW-NOT-NEXT: }
// GROW-NOT-NEXT: instr.payload @second attributes {allocation = {registers = ["s0", "v1"], coalesced = [], spilled = ["s0"], spill_registers = ["v2"], budget_growth = ["s12"]}, args = []} {
// GROW-NOT-NEXT: amdgpu_mc.v_writelane_b32 v2, s0, 0
// GROW-NOT-NEXT: amdgpu_mc.s_mov_b32 s0, s12
// GROW-NOT-NEXT: amdgpu_mc.v_mov_b32_e32 v1, s0
// GROW-NOT-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v1>]}
// GROW-NOT-NEXT: amdgpu_mc.v_readlane_b32 s0, v2, 0
// GROW-NOT-NEXT: instr.return
// GROW-NOT-NEXT: }
// GROW-NOT-NEXT: amdgpu_mc.s_add_u32 s0, s0, s1
