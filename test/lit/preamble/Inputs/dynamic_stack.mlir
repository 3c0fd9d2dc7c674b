// A kernel with a dynamic stack (see ../stack_invalid.test): every VGPR of the budget (v0-v7, no AGPR) is live
// at the payload's point, so its temporary must be saved to the instrumentation stack.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @recursive <{descriptor = #amdgpu_mc.kernel_descriptor<properties.uses_dynamic_stack = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, rsrc2.user_sgpr_count = 2, rsrc3.accum_offset = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 7
      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : VGPR_32>]}
      instr.return
    }
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
