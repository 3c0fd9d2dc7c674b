// Memory address trace: every 64-bit address each active lane loads from, stores to or
// accesses atomically with a global_* or flat_* instruction.
//
// Before every global_* and flat_* instruction (loads, stores and atomics) of every
// kernel, each active lane appends its 64-bit address to @trace_buffer (65536 u64
// entries, 512 KiB). A wave reserves room for its active lanes with one atomic on
// @trace_cursor (uniform operands: once per wave); a lane's slot is that base plus the
// number of active lanes below it. The store has per-lane operands, so it happens once per
// active lane. Slots past the capacity are dropped; @trace_cursor still counts them, so
// the host sees min(cursor, 65536) entries and knows how many were lost.
//
// The address comes from #instr.operand<"address">: insert-hooks reads it off each
// instruction in whichever form it has (a 64-bit vaddr plus offset, or the SADDR form:
// saddr + zext(vaddr) + offset) and inline-hooks computes the i64 sum. A flat address is
// a generic one: it may fall in the LDS (shared) or scratch (private) aperture, which the
// host tells apart by comparing it with the apertures the runtime reports.
//
// Both insertions are optional: a kernel lacking some kind of access (store-only,
// atomic-only, no flat pointer, even none at all) is traced where it has the others, not
// refused (when nothing matches anywhere, luthier-opt warns that nothing is
// instrumented). buffer_*,
// tbuffer_* and scratch_* accesses have no 64-bit address operand (a buffer address is
// what its V# descriptor makes of the offsets when the kernel runs, a scratch address an
// offset in the lane's swizzled private memory), so they are not traced; the skip
// insertions make luthier-opt say, per kernel, how many it left out:
//
//   luthier-opt: warning: X.co: @k: @trace_address skips 2 buffer_load* and 32
//     buffer_store*: buffer and scratch accesses are not traced: ...
//
// GFX12's cache controls (global_wb, global_inv, global_wbinv) are global_* instructions
// with no address: skip insertions leave them out of global_* (a skip leaves its
// instructions out of every insertion of the same hook).
//
// LDS (ds_*) and scalar (s_load*, s_buffer_load*) accesses are not traced either, and not
// counted; nor are device functions' accesses (the insertions name no kernel, so they go
// in every kernel and in no device function).
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
instr.insert @trace_address {at = "instruction", mnemonic = "global_*", optional, args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "flat_*", optional, args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "buffer_load*", skip = "buffer and scratch accesses are not traced: they have no 64-bit address operand", args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "buffer_store*", skip = "buffer and scratch accesses are not traced: they have no 64-bit address operand", args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "buffer_atomic*", skip = "buffer and scratch accesses are not traced: they have no 64-bit address operand", args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "tbuffer_*", skip = "buffer and scratch accesses are not traced: they have no 64-bit address operand", args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "scratch_*", skip = "buffer and scratch accesses are not traced: they have no 64-bit address operand", args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "global_wb*", skip = "cache controls (GFX12's global_wb, global_wbinv) access no address", args = [#instr.operand<"address">]}
instr.insert @trace_address {at = "instruction", mnemonic = "global_inv", skip = "cache controls (GFX12's global_inv) access no address", args = [#instr.operand<"address">]}
