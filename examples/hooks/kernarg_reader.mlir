// Launch reader: the grid and block sizes of the dispatch and its first kernel argument.
//
// At the entry of every kernel, each wave writes a 32-byte record to @kernarg_record:
//   offset  0, 4, 8:  grid_dim x, y, z   (u32: workgroups in the grid, HIP's gridDim)
//   offset 12, 16, 20: block_dim x, y, z (u32: work-items per workgroup, HIP's blockDim)
//   offset 24:         the kernel argument at byte 0 of the argument segment (u64; the
//                      first pointer of vector_add)
// Every operand is uniform, so each store happens once per wave; every wave writes the
// same values, so the record is right whichever wave writes last. With several kernels
// instrumented, the record holds the last dispatch's.
//
//   luthier-opt --lift examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/kernarg_reader.mlir -p insert-hooks

instr.global @kernarg_record {size = 32 : i64}
instr.hook @read_launch() {
  %record = instr.global_addr @kernarg_record : i64
  %gx = instr.grid_dim "x" : i32
  instr.store %gx, %record : i32
  %gy = instr.grid_dim "y" : i32
  %c4 = arith.constant 4 : i64
  %a4 = arith.addi %record, %c4 : i64
  instr.store %gy, %a4 : i32
  %gz = instr.grid_dim "z" : i32
  %c8 = arith.constant 8 : i64
  %a8 = arith.addi %record, %c8 : i64
  instr.store %gz, %a8 : i32
  %bx = instr.block_dim "x" : i32
  %c12 = arith.constant 12 : i64
  %a12 = arith.addi %record, %c12 : i64
  instr.store %bx, %a12 : i32
  %by = instr.block_dim "y" : i32
  %c16 = arith.constant 16 : i64
  %a16 = arith.addi %record, %c16 : i64
  instr.store %by, %a16 : i32
  %bz = instr.block_dim "z" : i32
  %c20 = arith.constant 20 : i64
  %a20 = arith.addi %record, %c20 : i64
  instr.store %bz, %a20 : i32
  %arg0 = instr.kernarg {offset = 0 : i64} : i64
  %c24 = arith.constant 24 : i64
  %a24 = arith.addi %record, %c24 : i64
  instr.store %arg0, %a24 : i64
  instr.return
}
instr.insert @read_launch {at = "kernel_entry", args = []}
