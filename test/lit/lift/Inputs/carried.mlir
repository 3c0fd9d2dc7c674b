amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>, alignment = 256 : i64, binding = "GLOBAL", visibility = "PROTECTED", descriptor_visibility = "DEFAULT"}> {
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.extern @elsewhere <{symbol_type = "NOTYPE", binding = "GLOBAL", visibility = "DEFAULT"}>
  amdgpu_mc.section ".debug_str" <{section_type = 1 : i64, flags = 48 : i64, entry_size = 1 : i64, data = "6b00"}>
  amdgpu_mc.section ".debug_line" <{section_type = 1 : i64, flags = 0 : i64, data = "01020304", layout = "00000000000000000000000000000000"}>
}
