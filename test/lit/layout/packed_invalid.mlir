// Packed payload code (amdgpu_mc.packed) exists only in memory, between lower-hooks and
// emission: its code attribute names shared instruction ops that text cannot hold, so IR
// text that spells one is refused with one line naming the input and the reason, and no
// output file is written.
// RUN: rm -f %t.co
// RUN: not luthier-opt %s -o %t.co 2>&1 | filecheck %s
// RUN: not test -e %t.co
// CHECK: packed_invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: #amdgpu_mc.packed_code is built in memory by lower-hooks and cannot be parsed (IR that luthier-opt prints never holds it)
// CHECK-NOT: Traceback

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    "amdgpu_mc.packed"() <{code = #amdgpu_mc.packed_code<"V_MOV_B32_e32_vi">}> : () -> ()
    amdgpu_mc.s_endpgm
  }
}
