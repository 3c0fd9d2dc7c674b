// Test hook: before each s_endpgm, every active work-item writes two u32 at
// @ids[8 * global flat id]: its work-item ids packed (x | y << 10 | z << 20) and its
// workgroup's ids packed the same way. The global flat id is computed from the
// workgroup ids, the work-item ids, grid_dim and block_dim, so a wrong value anywhere
// lands the record in the wrong slot. Read at the end of the kernel, after the
// application has overwritten every register it uses: the homes must have survived.
instr.global @ids {size = 65536 : i64}
instr.hook @record_ids() {
  %x = instr.workitem_id "x" : i32
  %y = instr.workitem_id "y" : i32
  %z = instr.workitem_id "z" : i32
  %gx = instr.workgroup_id "x" : i32
  %gy = instr.workgroup_id "y" : i32
  %gz = instr.workgroup_id "z" : i32
  %nx = instr.grid_dim "x" : i32
  %ny = instr.grid_dim "y" : i32
  %bx = instr.block_dim "x" : i32
  %by = instr.block_dim "y" : i32
  %bz = instr.block_dim "z" : i32
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  %y10 = arith.shli %y, %c10 : i32
  %z20 = arith.shli %z, %c20 : i32
  %xy = arith.ori %x, %y10 : i32
  %items = arith.ori %xy, %z20 : i32
  %gy10 = arith.shli %gy, %c10 : i32
  %gz20 = arith.shli %gz, %c20 : i32
  %gxy = arith.ori %gx, %gy10 : i32
  %groups = arith.ori %gxy, %gz20 : i32
  // group = (gz * ny + gy) * nx + gx; local = (z * by + y) * bx + x
  %gzny = arith.muli %gz, %ny : i32
  %gzy = arith.addi %gzny, %gy : i32
  %gzynx = arith.muli %gzy, %nx : i32
  %group = arith.addi %gzynx, %gx : i32
  %zby = arith.muli %z, %by : i32
  %zy = arith.addi %zby, %y : i32
  %zybx = arith.muli %zy, %bx : i32
  %local = arith.addi %zybx, %x : i32
  %bxy = arith.muli %bx, %by : i32
  %size = arith.muli %bxy, %bz : i32
  %first = arith.muli %group, %size : i32
  %flat = arith.addi %first, %local : i32
  %flat64 = arith.extui %flat : i32 to i64
  %c8 = arith.constant 8 : i64
  %offset = arith.muli %flat64, %c8 : i64
  %base = instr.global_addr @ids : i64
  %slot = arith.addi %base, %offset : i64
  instr.store %items, %slot : i32
  %c4 = arith.constant 4 : i64
  %slot4 = arith.addi %slot, %c4 : i64
  instr.store %groups, %slot4 : i32
  instr.return
}
instr.insert @record_ids {at = "instruction", mnemonic = "s_endpgm", args = []}
