// The kernel of unknown_branch.mlir with a lowered payload before its first instruction,
// as a pass developer might write it: splice-payloads refuses it.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @jumps <{alignment = 256 : i64, binding = "GLOBAL", visibility = "PROTECTED", descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_mov_b32 s8, 1
      instr.return
    }
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.s_setpc_b64 s[0:1]
  }
}
