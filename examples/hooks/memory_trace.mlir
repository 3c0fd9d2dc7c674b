// Global-memory address trace: every address each active lane loads from or stores to.
//
// Before every global_load*/global_store* of every kernel, each active lane appends its
// 64-bit address to @trace_buffer (65536 u64 entries, 512 KiB). A wave reserves room for
// its active lanes with one atomic on @trace_cursor (uniform operands: once per wave); a
// lane's slot is that base plus the number of active lanes below it. The store has
// per-lane operands, so it happens once per active lane. Slots past the capacity are
// dropped; @trace_cursor still counts them, so the host sees min(cursor, 65536) entries
// and knows how many were lost.
//
// The address comes from #instr.operand<"address">: insert-hooks reads it off each
// instruction in whichever form it has (a 64-bit vaddr plus offset, or the SADDR form:
// saddr + zext(vaddr) + offset) and inline-hooks computes the i64 sum. Atomics
// (global_atomic_*), flat_*, buffer_* and scratch accesses are not traced.
//
//   luthier-opt --lift examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/memory_trace.mlir -p insert-hooks

instr.global @trace_cursor {size = 8 : i64}
instr.global @trace_buffer {size = 524288 : i64}
instr.hook @trace_address(%address: i64) {
  %exec = instr.read_reg "exec" : i64
  %active = instr.popcount %exec : i64
  %active64 = arith.extui %active : i32 to i64
  %cursor = instr.global_addr @trace_cursor : i64
  %base = instr.atomic "add" %cursor, %active64 : i64
  %lane = instr.lane_id : i32
  %lane64 = arith.extui %lane : i32 to i64
  %one = arith.constant 1 : i64
  %bit = arith.shli %one, %lane64 : i64
  %below = arith.subi %bit, %one : i64
  %earlier = arith.andi %exec, %below : i64
  %rank = instr.popcount %earlier : i64
  %rank64 = arith.extui %rank : i32 to i64
  %slot = arith.addi %base, %rank64 : i64
  %capacity = arith.constant 65536 : i64
  %fits = arith.cmpi ult, %slot, %capacity : i64
  scf.if %fits {
    %buffer = instr.global_addr @trace_buffer : i64
    %eight = arith.constant 8 : i64
    %bytes = arith.muli %slot, %eight : i64
    %entry = arith.addi %buffer, %bytes : i64
    instr.store %address, %entry : i64
  }
  instr.return
}
instr.insert @trace_address {at = "instruction", mnemonic = "global_load*", args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "global_store*", args = [#instr.operand<"address">]}
