// #instr.site errors: a fact it does not know; a hook argument that is not i32 (every site
// fact is an i32 constant). An instruction the target's tables lack (no opcode number, no
// size for "offset") cannot reach insert-hooks: it does not verify.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics -p insert-hooks | filecheck %s

instr.hook @h(%n: i32) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.site<"pc">]}
// CHECK: #instr.site<"pc"> is not one of opcode, index, offset

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i64) {
  instr.return
}
instr.insert @h {at = "instruction", args = [#instr.site<"index">]}
// CHECK: insert-hooks: @h: argument 0 is 32 bits, the hook takes i64
