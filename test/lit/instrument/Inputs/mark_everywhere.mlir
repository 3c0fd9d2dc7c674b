// An empty hook before every instruction and at the kernel entry.
instr.hook @mark() {
  instr.return
}
instr.insert @mark {at = "instruction", args = []}
instr.insert @mark {at = "kernel_entry", args = []}
