// A value defined inside an scf.if branch, used after it (found by test/fuzz/campaign.py):
// not visible there (xDSL's parser says so itself, with the line), refused.
instr.global @counter {size = 8 : i64}
instr.hook @count() {
  %lane = instr.lane_id : i32
  %zero = arith.constant 0 : i32
  %first = arith.cmpi eq, %lane, %zero : i32
  scf.if %first {
    %inner = arith.constant 2 : i64
  }
  %address = instr.global_addr @counter : i64
  %0 = instr.atomic "add" %address, %inner : i64
  instr.return
}
instr.insert @count {at = "instruction", args = []}
