// Opcode histogram: how many times waves execute each opcode.
//
// @opcode_histogram is a table of 4096 u64 counters (32 KiB), indexed by the opcode number
// #instr.site<"opcode"> passes: the instruction's record index in its target's ISA table
// (3870 on gfx90a, 3533 on gfx942; luthier.frontend.hooks.opcode_names(processor) maps
// indexes back to mnemonics). 4096 covers every supported target; the bounds check keeps
// a larger future table from writing past the end. Counts are per wave: the opcode is a
// constant at each point, so the atomic's operands are uniform.
//
//   luthier-opt --lift examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/opcode_histogram.mlir -p insert-hooks

instr.global @opcode_histogram {size = 32768 : i64}
instr.hook @count_opcode(%opcode: i32) {
  %entries = arith.constant 4096 : i32
  %inside = arith.cmpi ult, %opcode, %entries : i32
  scf.if %inside {
    %table = instr.global_addr @opcode_histogram : i64
    %index = arith.extui %opcode : i32 to i64
    %eight = arith.constant 8 : i64
    %offset = arith.muli %index, %eight : i64
    %slot = arith.addi %table, %offset : i64
    %one = arith.constant 1 : i64
    %0 = instr.atomic "add" %slot, %one : i64
  }
  instr.return
}
instr.insert @count_opcode {at = "instruction", args = [#instr.site<"opcode">]}
