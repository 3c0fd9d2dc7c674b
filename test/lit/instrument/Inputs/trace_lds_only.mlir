// memory_trace's insertions restricted to a kernel with no global or flat access
// (memory_kinds.mlir's @lds_only): both optional, so nothing matches and nothing is refused.
instr.hook @trace(%address: i64) {
  instr.return
}
instr.insert @trace {at = "instruction", kernel = "lds_only", mnemonic = "global_*", optional, args = [#instr.operand<"address">]}
instr.insert @trace {at = "instruction", kernel = "lds_only", mnemonic = "flat_*", optional, args = [#instr.operand<"address">]}
