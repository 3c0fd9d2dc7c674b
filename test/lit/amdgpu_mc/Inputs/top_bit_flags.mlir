// A carried section whose sh_flags has bit 63 set (as a damaged input can have): see section_fields.mlir.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>, alignment = 256 : i64, binding = "GLOBAL", visibility = "PROTECTED", descriptor_visibility = "DEFAULT"}> {
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.section ".luthier_flags" <{section_type = 1 : i64, flags = -8640765326024275483 : i64, data = "62697473"}>
}
