// A payload that saves v0 to one stack slot and loads it back from another (see
// ../stack_invalid.test): verify-payloads follows values through the slots, so it finds v0
// clobbered. A payload that stores under the application's EXEC but loads under a full one
// loses the switched-off lanes (which the application reads after it restores EXEC). The same payload with the right slot and EXEC verifies.
amdgpu_mc.code_object "gfx942" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1356 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v0, 1
    amdgpu_mc.s_and_saveexec_b64 s[6:7], s[8:9]
    instr.payload @wrong attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[4:5], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.scratch_store_dword off, v0, off
      amdgpu_mc.s_mov_b64 exec, s[4:5]
      amdgpu_mc.v_mov_b32_e32 v0, 7
      amdgpu_mc.s_mov_b64 s[4:5], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.scratch_load_dword v0, off, off offset:4
      amdgpu_mc.s_waitcnt vmcnt(0)
      amdgpu_mc.s_mov_b64 exec, s[4:5]
      instr.return
    }
    instr.payload @partial attributes {args = []} {
      amdgpu_mc.scratch_store_dword off, v0, off offset:8
      amdgpu_mc.v_mov_b32_e32 v0, 7
      amdgpu_mc.s_mov_b64 s[4:5], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.scratch_load_dword v0, off, off offset:8
      amdgpu_mc.s_waitcnt vmcnt(0)
      amdgpu_mc.s_mov_b64 exec, s[4:5]
      instr.return
    }
    instr.payload @right attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[4:5], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.scratch_store_dword off, v0, off offset:4
      amdgpu_mc.s_mov_b64 exec, s[4:5]
      amdgpu_mc.v_mov_b32_e32 v0, 7
      amdgpu_mc.s_mov_b64 s[4:5], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.scratch_load_dword v0, off, off offset:4
      amdgpu_mc.s_waitcnt vmcnt(0)
      amdgpu_mc.s_mov_b64 exec, s[4:5]
      instr.return
    }
    amdgpu_mc.global_store_dword v0, v0, s[0:1]
    amdgpu_mc.s_or_b64 exec, exec, s[6:7]
    amdgpu_mc.global_store_dword v0, v0, s[0:1]
    amdgpu_mc.s_endpgm
  }
}
