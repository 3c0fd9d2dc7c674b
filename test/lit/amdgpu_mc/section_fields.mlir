// amdgpu_mc.section's ELF fields are unsigned 64-bit words held in i64 properties: sh_flags
// with bit 63 set prints as a negative i64 and is written back as the same 64 bits (the
// linked object's section header holds them); sh_type must be a 32-bit value, and the
// alignment a power of two read as unsigned.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: rm -rf %t && mkdir -p %t && luthier-opt %S/Inputs/top_bit_flags.mlir -o %t/out.co
// RUN: llvm-readelf-19 -S %t/out.co | filecheck %s --check-prefix=ELF
// RUN: luthier-opt --lift %t/out.co | filecheck %s --check-prefix=LIFTED

// ELF:    .luthier_flags PROGBITS 0000000000000000 {{[0-9a-f]+}} 000004 00 WXSILOCopx 0 0 1
// LIFTED: amdgpu_mc.section ".luthier_flags" <{section_type = 1 : i64, flags = -8640765326024275483 : i64, data = "62697473", layout = "{{[0-9a-f]+}}"}>

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.section ".x" <{section_type = 4294967296 : i64, flags = 0 : i64}>
}
// CHECK:      "amdgpu_mc.section"() <{section_type = 4294967296 : i64, flags = 0 : i64, section = ".x"}>
// CHECK-NEXT: ^^^^
// CHECK-NEXT: | Operation does not verify: section .x: section_type 4294967296 is not a 32-bit sh_type

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.section ".x" <{section_type = 1 : i64, flags = 0 : i64, alignment = -8 : i64}>
}
// CHECK:      "amdgpu_mc.section"() <{section_type = 1 : i64, flags = 0 : i64, alignment = -8 : i64, section = ".x"}>
// CHECK-NEXT: ^^^^
// CHECK-NEXT: | Operation does not verify: section .x: alignment 18446744073709551608 is not a power of two from 1 to
