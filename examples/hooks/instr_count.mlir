// Instruction counter: how many instructions the kernels execute, per wave and per thread.
//
// Before every instruction of every kernel, each wave that reaches it adds 1 to
// @instr_count_wave (all operands are uniform, so the atomic happens once per wave) and the
// number of its active lanes, popcount(exec), to @instr_count_thread. Both are u64, zero at
// load; the host reads them by name after the dispatch.
//
//   luthier-opt --lift examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/instr_count.mlir -p insert-hooks

instr.global @instr_count_wave {size = 8 : i64}
instr.global @instr_count_thread {size = 8 : i64}
instr.hook @count_instruction() {
  %waves = instr.global_addr @instr_count_wave : i64
  %one = arith.constant 1 : i64
  %0 = instr.atomic "add" %waves, %one : i64
  %threads = instr.global_addr @instr_count_thread : i64
  %exec = instr.read_reg "exec" : i64
  %active = instr.popcount %exec : i64
  %active64 = arith.extui %active : i32 to i64
  %1 = instr.atomic "add" %threads, %active64 : i64
  instr.return
}
instr.insert @count_instruction {at = "instruction", args = []}
