// As a user runs it: a clobber stops luthier-opt with one line and exit 1, no output file.
// (s[4:5] are dead after the load, so writing them is fine; s0 is not.)
// RUN: rm -f %t.out.mlir
// RUN: not luthier-opt %s -p verify-payloads -o %t.out.mlir 2>&1 | filecheck %s
// RUN: not test -e %t.out.mlir

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[4:5], 0
      amdgpu_mc.s_add_u32 s0, s0, 1
      instr.return
    }
    amdgpu_mc.s_add_u32 s0, s0, s1
    amdgpu_mc.s_endpgm
  }
}
// CHECK: luthier-opt: error: verify-payloads: @count in @k before 's_add_u32 s0, s0, s1' (#1): writes s0, live there
// CHECK-NOT: {{.}}
