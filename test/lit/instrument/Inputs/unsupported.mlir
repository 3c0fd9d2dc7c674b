// A hook using an op the selector does not lower (integer division): --inline-hooks must
// fail with one line naming the hook, the kernel and the instruction, and write nothing.
instr.hook @divide() {
  %l = instr.lane_id : i32
  %x = arith.divui %l, %l : i32
  instr.return
}
instr.insert @divide {at = "kernel_entry", args = []}
