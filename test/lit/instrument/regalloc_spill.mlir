// allocate-payload-registers saving a VGPR to an AGPR when no VGPR is free. Checked by hand:
// @vspill's budget (no accum_offset: 8 vector registers split at 4) is v0-v3 and a0-a3,
// 12 SGPRs. v0-v3 and s[0:1] are live at the point, s[2:11] and a0-a3 are dead.
// - Without budget growth, %1 has no dead VGPR inside the budget: v0, the lowest live VGPR
//   the payload does not name, is saved to a0 (the lowest dead AGPR) with EXEC set to every
//   lane around the copy (lanes EXEC has switched off may hold live values), EXEC kept in
//   s[2:3], the lowest dead SGPR pair; the restore mirrors it before instr.return.
// - With budget growth (GROW), v4 is dead past the budget: no spill, v4 grows the budget.
// RUN: luthier-opt %s -p 'allocate-payload-registers{allow_budget_growth=false}' | filecheck %s
// RUN: luthier-opt %s -p allocate-payload-registers | filecheck %s --check-prefix=GROW

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @vspill <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_u32_e32 v2, v3, v2
    amdgpu_mc.global_store_dword v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
}

// CHECK: instr.payload @count attributes {allocation = {registers = ["v0"], coalesced = [], spilled = ["v0"], spill_registers = ["a0", "s[2:3]"], budget_growth = []}, args = []} {
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[2:3], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.v_accvgpr_write_b32 a0, v0
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[2:3]
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 v0, 7
// CHECK-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v0>]}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 s[2:3], exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT: amdgpu_mc.v_accvgpr_read_b32 v0, a0
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, s[2:3]
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v0, v1, v0
// CHECK-NEXT: amdgpu_mc.v_add_u32_e32 v2, v3, v2
// CHECK-NEXT: amdgpu_mc.global_store_dword v0, v2, s[0:1]
// CHECK-NEXT: amdgpu_mc.s_endpgm

// GROW: instr.payload @count attributes {allocation = {registers = ["v4"], coalesced = [], spilled = [], spill_registers = [], budget_growth = ["v4"]}, args = []} {
// GROW-NEXT: amdgpu_mc.v_mov_b32_e32 v4, 7
// GROW-NEXT: instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.reg<v4>]}
// GROW-NEXT: instr.return
