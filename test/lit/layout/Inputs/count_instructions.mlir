// Counts the instructions a wave issues (one atomic add per instruction).
instr.global @count {size = 8 : i64}
instr.hook @count_instruction() {
  %counter = instr.global_addr @count : i64
  %one = arith.constant 1 : i64
  %old = instr.atomic "add" %counter, %one : i64
  instr.return
}
instr.insert @count_instruction {at = "instruction", args = []}
