// Opcode histogram: how many times waves execute each opcode.
//
// @opcode_histogram is a table of 16384 u64 counters (128 KiB), indexed by the opcode number
// #instr.site<"opcode"> passes: the instruction's record index in its target's ISA table
// (3870 records on gfx90a, 3533 on gfx942, 5454 on gfx908, 8603 on gfx1030; the host maps
// an index back to its mnemonic with luthier.frontend.hooks.opcode_names(processor)).
// 16384 covers every supported target; the bounds check keeps a larger future table from
// writing past the end. Counts are per wave: the opcode is a constant at each point, so the atomic's
// operands are uniform.
//
//   luthier-opt --lift examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/opcode_histogram.mlir -p insert-hooks

instr.global @opcode_histogram {size = 131072 : i64}
instr.hook @count_opcode(%opcode: i32) {
  %entries = arith.constant 16384 : i32
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
