// The instr dialect round trips: hooks with every intrinsic, tool globals, insertions.
// RUN: luthier-opt %s | filecheck %s
// RUN: luthier-opt %s | luthier-opt | filecheck %s

instr.global @counter {size = 8 : i64}
instr.hook @count(%n: i32) {
  %a = instr.global_addr @counter : i64
  %one = arith.constant 1 : i64
  %old = instr.atomic "add" %a, %one : i64
  instr.return
}
instr.hook @trace(%lo: i32, %hi: i32) {
  %lane = instr.lane_id : i32
  %v = instr.read_reg "s[4:5]" : i64
  %e = instr.read_reg "exec" : i64
  %c = instr.read_reg "scc" : i1
  %m = instr.ballot %c : i64
  %n = instr.popcount %m : i64
  %w = instr.workgroup_id "x" : i32
  %g = instr.grid_dim "x" : i32
  %k = instr.kernarg {offset = 8 : i64} : i64
  %x = instr.load %k : i32
  instr.store %x, %k : i32
  %f = instr.readfirstlane %x : i32
  instr.write_reg "m0", %f : i32
  instr.return
}
instr.insert @count {at = "instruction", kernel = "vector_add", mnemonic = "global_*", args = [#instr.const<1 : i32>]}
instr.insert @trace {at = "block_entry", args = [#instr.operand<1>, #instr.reg<"v0">]}
instr.hook @scale(%a: f32, %b: f64, %c: f32, %d: f64, %e: f32, %f: f64) {
  instr.return
}
instr.insert @scale {at = "kernel_entry", args = [#instr.const<0.1 : f32>, #instr.const<-2.5e-300 : f64>, #instr.const<0x7F800000 : f32>, #instr.const<0xFFF8000000000000 : f64>, #instr.const<3 : f32>, #instr.const<-0.0 : f64>]}

// CHECK:      instr.global @counter {size = 8 : i64}
// CHECK-NEXT: instr.hook @count(%n: i32) {
// CHECK-NEXT:   %a = instr.global_addr @counter : i64
// CHECK-NEXT:   %one = arith.constant 1 : i64
// CHECK-NEXT:   %old = instr.atomic "add" %a, %one : i64
// CHECK-NEXT:   instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.hook @trace(%lo: i32, %hi: i32) {
// CHECK-NEXT:   %lane = instr.lane_id : i32
// CHECK-NEXT:   %v = instr.read_reg "s[4:5]" : i64
// CHECK-NEXT:   %e = instr.read_reg "exec" : i64
// CHECK-NEXT:   %c = instr.read_reg "scc" : i1
// CHECK-NEXT:   %m = instr.ballot %c : i64
// CHECK-NEXT:   %n = instr.popcount %m : i64
// CHECK-NEXT:   %w = instr.workgroup_id "x" : i32
// CHECK-NEXT:   %g = instr.grid_dim "x" : i32
// CHECK-NEXT:   %k = instr.kernarg {offset = 8 : i64} : i64
// CHECK-NEXT:   %x = instr.load %k : i32
// CHECK-NEXT:   instr.store %x, %k : i32
// CHECK-NEXT:   %f = instr.readfirstlane %x : i32
// CHECK-NEXT:   instr.write_reg "m0", %f : i32
// CHECK-NEXT:   instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.insert @count {at = "instruction", kernel = "vector_add", mnemonic = "global_*", args = [#instr.const<1 : i32>]}
// CHECK-NEXT: instr.insert @trace {at = "block_entry", args = [#instr.operand<1>, #instr.reg<"v0">]}
// A hook's parameters may be f32/f64 (constants at the insertion). A float constant prints
// as the shortest decimal that reads back to its bits; infinities and NaNs as their bits,
// as MLIR writes them; an integer beside a float type is its value.
// CHECK-NEXT: instr.hook @scale(%a: f32, %b: f64, %c: f32, %d: f64, %e: f32, %f: f64) {
// CHECK-NEXT:   instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.insert @scale {at = "kernel_entry", args = [#instr.const<0.1 : f32>, #instr.const<-2.5e-300 : f64>, #instr.const<0x7F800000 : f32>, #instr.const<0xFFF8000000000000 : f64>, #instr.const<3.0 : f32>, #instr.const<-0.0 : f64>]}
