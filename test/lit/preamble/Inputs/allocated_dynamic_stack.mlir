// An allocated payload that uses the instrumentation stack, in a kernel with a dynamic stack
// (see ../stack_invalid.test): the passes after allocation refuse it too.
amdgpu_mc.code_object "gfx942" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1356 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @recursive <{descriptor = #amdgpu_mc.kernel_descriptor<properties.uses_dynamic_stack = 1>}> {
    instr.payload @count attributes {allocation = {registers = ["v0"], coalesced = [], spilled = ["v0"], spill_registers = ["s[4:5]"], budget_growth = [], stack = 4 : i64, stack_offset = 0 : i64, stack_saved = ["v0"]}, args = []} {
      amdgpu_mc.s_mov_b64 s[4:5], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.scratch_store_dword off, v0, off
      amdgpu_mc.s_mov_b64 exec, s[4:5]
      amdgpu_mc.v_mov_b32_e32 v0, 7
      amdgpu_mc.s_mov_b64 s[4:5], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.scratch_load_dword v0, off, off
      amdgpu_mc.s_waitcnt vmcnt(0)
      amdgpu_mc.s_mov_b64 exec, s[4:5]
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
