// Kernels that each lack some kind of memory access (and one device function), for
// memory_trace.test: memory_trace must instrument each where it can and report the rest.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @store_only <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.global_store_dword v1, v2, s[2:3] offset:16
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @atomic_only <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.global_atomic_add v1, v2, s[2:3]
    amdgpu_mc.global_atomic_cmpswap v3, v[4:5], v[6:7], off offset:-8 glc
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @flat_only <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.flat_load_dword v2, v[4:5]
    amdgpu_mc.flat_store_dword v[4:5], v2 offset:256
    amdgpu_mc.flat_atomic_add v[4:5], v2
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @lds_only <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.ds_write_b32 v1, v2
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @buffer_and_scratch <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.buffer_store_dword v2, v1, s[4:7], 0 offen
    amdgpu_mc.buffer_load_dword v2, v1, s[4:7], 0 offen
    amdgpu_mc.buffer_atomic_add v2, v1, s[4:7], 0 offen
    amdgpu_mc.buffer_store_dword v2, v1, s[4:7], 0 offen offset:4
    amdgpu_mc.buffer_wbl2
    amdgpu_mc.scratch_store_dword v1, v2, off
    amdgpu_mc.global_load_dword v2, v[4:5], off
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.func @device_function {
    amdgpu_mc.buffer_load_dword v2, v1, s[4:7], 0 offen
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
