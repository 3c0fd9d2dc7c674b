// As a user runs it: an insertion error stops with one line, exit 1 and no output file.
// RUN: rm -f %t.out.mlir
// RUN: not luthier-opt %s -p insert-hooks -o %t.out.mlir 2>&1 | filecheck %s
// RUN: not test -e %t.out.mlir

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @count(%n: i32) {
  instr.return
}
instr.insert @count {at = "instruction", mnemonic = "v_*", args = [#instr.const<1 : i32>]}
// CHECK: luthier-opt: error: insert-hooks: @count: the insertion matches nothing (at instruction, every kernel, mnemonic v_*)
// CHECK-NOT: {{.}}
