// Two lines of a hook swapped (found by test/fuzz/campaign.py): %sum is used before it is
// defined. xDSL's parser takes the forward reference; the hook file is refused.
instr.global @counter {size = 8 : i64}
instr.hook @count() {
  %address = instr.global_addr @counter : i64
  %0 = instr.atomic "add" %address, %sum : i64
  %one = arith.constant 1 : i64
  %sum = arith.addi %one, %one : i64
  instr.return
}
instr.insert @count {at = "instruction", args = []}
