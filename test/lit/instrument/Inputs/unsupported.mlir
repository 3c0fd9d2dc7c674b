// A hook the selector cannot lower (an integer division by the constant 0): --inline-hooks
// must fail with one line naming the hook, the kernel and the instruction, and write nothing.
instr.hook @divide() {
  %l = instr.lane_id : i32
  %zero = arith.constant 0 : i32
  %x = arith.divui %l, %zero : i32
  instr.return
}
instr.insert @divide {at = "kernel_entry", args = []}
