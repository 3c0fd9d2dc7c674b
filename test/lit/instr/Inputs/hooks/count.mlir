instr.global @calls {size = 8 : i64}
instr.hook @count() {
  %a = instr.global_addr @calls : i64
  %one = arith.constant 1 : i64
  %old = instr.atomic "add" %a, %one : i64
  instr.return
}
instr.insert @count {at = "kernel_entry", args = []}
instr.insert @count {at = "instruction", mnemonic = "global_*", args = []}
