// What insert-hooks refuses about address operands and skip insertions, and the one
// warning it gives (exit 0) when a tool's insertions are all optional and match nothing.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p insert-hooks | filecheck %s
//
// Optional insertions that all match nothing: the output is written (exit 0) with one
// warning saying nothing is instrumented; the same insertions, not optional, are refused.
// RUN: luthier-opt %S/Inputs/memory_kinds.mlir --hooks %S/Inputs/trace_lds_only.mlir \
// RUN:   -p insert-hooks -o %t.mlir 2>&1 | filecheck %s --check-prefix=NOTHING
// RUN: not grep instr.payload %t.mlir
// RUN: sed "s/, optional//" %S/Inputs/trace_lds_only.mlir > %t.required.mlir
// RUN: not luthier-opt %S/Inputs/memory_kinds.mlir --hooks %t.required.mlir -p insert-hooks \
// RUN:   2>&1 | filecheck %s --check-prefix=REQUIRED
// NOTHING:      luthier-opt: warning: {{.*}}memory_kinds.mlir: no insertion matches anything: nothing is instrumented (@trace: at instruction, kernel lds_only, mnemonic global_*; @trace: at instruction, kernel lds_only, mnemonic flat_*)
// NOTHING-EMPTY:
// REQUIRED:      luthier-opt: error: insert-hooks: @trace: the insertion matches nothing (at instruction, kernel lds_only, mnemonic global_*)
// REQUIRED-EMPTY:

// A scratch access's address is an offset in the lane's private segment, not an address:
// refused, not approximated.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.scratch_store_dword v1, v2, off
    amdgpu_mc.s_endpgm
  }
}
instr.hook @trace(%address: i64) {
  instr.return
}
instr.insert @trace {at = "instruction", mnemonic = "scratch_*", args = [#instr.operand<"address">]}
// CHECK: insert-hooks: @trace: @k, scratch_store_dword is a scratch access: its address is an offset in the lane's private segment, not a 64-bit address operand

// -----

// A buffer access's address is made by the V# when the kernel runs: refused, even in an
// optional insertion (optional excuses matching nothing, not a wrong argument).
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.buffer_load_dword v2, v1, s[4:7], 0 offen
    amdgpu_mc.s_endpgm
  }
}
instr.hook @trace(%address: i64) {
  instr.return
}
instr.insert @trace {at = "instruction", mnemonic = "buffer_*", optional, args = [#instr.operand<"address">]}
// CHECK: insert-hooks: @trace: @k, buffer_load_dword is a buffer access: its address is made by the buffer resource (V#) it names when the kernel runs; there is no 64-bit address operand

// -----

// A skip insertion must say why: its reason is what the warning tells the user.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @trace(%address: i64) {
  instr.return
}
instr.insert @trace {at = "instruction", mnemonic = "scratch_*", skip = "", args = [#instr.operand<"address">]}
// CHECK: insertion of @trace: skip needs a reason (what the report says of the instructions left out)

// -----

// A skip insertion is checked as any other: its hook must exist.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.insert @missing {at = "instruction", mnemonic = "scratch_*", skip = "not traced", args = []}
// CHECK: insert-hooks: @missing: no instr.hook of that name
