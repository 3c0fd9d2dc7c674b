// allocate-payload-registers failures: one line naming the hook, the function and the
// instruction (its index in layout order and its text), the register file that is short,
// how many registers the payload needs at once and how many are free, and why nothing
// else helps.
// - @nospill: v0-v3 (the whole VGPR budget) are live, growth and spilling are off;
// - @nohome: v0-v7 (the whole budget, accum_offset 8: no AGPR) are live, spilling is on
//   but there is no dead AGPR inside the budget to save a VGPR in (growth is off), and the
//   kernel's dynamic stack leaves the instrumentation stack no place either.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p 'allocate-payload-registers{allow_budget_growth=false spill=false}' | filecheck %s --check-prefix=OFF
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p 'allocate-payload-registers{allow_budget_growth=false}' | filecheck %s --check-prefix=ON

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @nospill <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s0, 0
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      amdgpu_mc.v_mov_b32_e32 %2:VGPR_32, 8
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>, #amdgpu_mc.vreg<2 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_u32_e32 v2, v3, v2
    amdgpu_mc.global_store_dword v0, v2, s[0:1]
    amdgpu_mc.s_endpgm
  }
}
// OFF: allocate-payload-registers: @count in @nospill before 'v_add_u32_e32 v0, v1, v0' (#1): needs 2 VGPRs, 0 free, spilling is off

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @nohome <{descriptor = #amdgpu_mc.kernel_descriptor<properties.uses_dynamic_stack = 1, rsrc3.accum_offset = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
    amdgpu_mc.v_add_u32_e32 v0, v1, v0
    amdgpu_mc.v_add_u32_e32 v2, v3, v2
    amdgpu_mc.v_add_u32_e32 v4, v5, v4
    amdgpu_mc.v_add_u32_e32 v6, v7, v6
    amdgpu_mc.s_endpgm
  }
}
// OFF: allocate-payload-registers: @count in @nohome before 'v_add_u32_e32 v0, v1, v0' (#0): needs 1 VGPR, 0 free, spilling is off
// ON: allocate-payload-registers: @nohome: the kernel uses a dynamic stack, so the instrumentation stack has no fixed place above it
