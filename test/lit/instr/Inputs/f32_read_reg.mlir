// A register read as a float: instr.read_reg gives integers.
instr.hook @h() {
  %a = instr.read_reg "v0" : f32
  instr.return
}
