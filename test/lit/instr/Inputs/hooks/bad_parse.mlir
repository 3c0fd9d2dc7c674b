instr.global @calls {size = 8 : i64}
instr.hook @count() {
  %a = instr.global_addr @calls : i64
  %b = arith.frobnicate %a : i64
  instr.return
}
