// insert-hooks errors: one line naming the hook (and the function and instruction where
// there is one), exit 1.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p insert-hooks | filecheck %s
// (insert_hooks_exit.mlir checks the exit status and that no output is written.)

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.insert @missing {at = "instruction", args = []}
// CHECK: insert-hooks: @missing: no instr.hook of that name

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i32) {
  instr.return
}
instr.insert @h {at = "instruction", args = []}
// CHECK: insert-hooks: @h: the hook takes 1 arguments, the insertion passes 0

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i64) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.reg<"v0">]}
// CHECK: insert-hooks: @h: argument 0 is 32 bits, the hook takes i64

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i32) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.operand<"vaddr">]}
// CHECK: insert-hooks: @h: @k, s_endpgm has no operand named vaddr (it has simm16)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i32) {
  instr.return
}
instr.insert @h {at = "instruction", mnemonic = "global_*", args = [#instr.const<1 : i32>]}
// CHECK: insert-hooks: @h: the insertion matches nothing (at instruction, every kernel, mnemonic global_*)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i32) {
  instr.return
}
instr.insert @h {at = "kernel_entry", kernel = "nope", args = [#instr.const<1 : i32>]}
// CHECK: insert-hooks: @h: the insertion matches nothing (at kernel_entry, kernel nope)

// -----

instr.hook @h(%n: i32) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.const<1 : i32>]}
// CHECK: insert-hooks: there is no code object to instrument (lift one first)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%address: i64) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.operand<"address">]}
// CHECK: insert-hooks: @h: @k, s_endpgm is not a global or flat memory access: it has no address operand

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i32) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.const<0.5 : f32>]}
// CHECK: insert-hooks: @h: argument 0 is an f32 constant, the hook takes i32

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%x: f64) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.const<0.5 : f32>]}
// CHECK: insert-hooks: @h: argument 0 is an f32 constant, the hook takes f64

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%x: f32) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.reg<"v0">]}
// CHECK: insert-hooks: @h: argument 0 is 32 bits, the hook takes f32
