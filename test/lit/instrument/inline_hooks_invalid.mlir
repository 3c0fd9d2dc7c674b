// inline-hooks errors: a payload whose hook does not exist; an argument left unresolved
// (an #instr.operand that only insert-hooks can resolve).
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p inline-hooks | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @missing attributes {args = []} {
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: inline-hooks: @missing: no instr.hook of that name

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @h attributes {args = [#instr.operand<"vaddr">]} {
    }
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%a: i32) {
  instr.return
}
// CHECK: inline-hooks: @h: argument 0 (#instr.operand<"vaddr">) is not bound to a constant or a register; run insert-hooks first
