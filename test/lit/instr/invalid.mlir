// Malformed instr IR gets a diagnostic naming what is wrong.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

instr.hook @h() {
  %v = instr.read_reg "v3" : i64
  instr.return
}
// CHECK: reading v3 must be i32, not i64

// -----

instr.hook @h() {
  %v = instr.read_reg "q7" : i32
  instr.return
}
// CHECK: 'q7' is not a register

// -----

instr.hook @h() {
  %v = instr.read_reg "scc" : i32
  instr.return
}
// CHECK: reading scc must be i1, not i32

// -----

instr.hook @h(%x: i32) {
  instr.write_reg "s[4:5]", %x : i32
  instr.return
}
// CHECK: writing s[4:5] must be i64, not i32

// -----

instr.hook @h() {
  %w = instr.workgroup_id "w" : i32
  instr.return
}
// CHECK: instr.workgroup_id takes "x", "y" or "z", not "w"

// -----

instr.hook @h(%a: i64, %v: i32) {
  %old = instr.atomic "nand" %a, %v : i32
  instr.return
}
// CHECK: instr.atomic "nand" is not one of add, sub, min, max, umin, umax, and, or, xor, swap

// -----

instr.hook @h() {
  %k = instr.kernarg {offset = 6 : i64} : i64
  instr.return
}
// CHECK: instr.kernarg reads an aligned i32 or i64; offset 6 with i64

// -----

instr.hook @h(%x: f16) {
  instr.return
}
// CHECK: an argument of hook @h must be i1, i32, i64, f32 or f64, not f16

// -----

instr.insert @h {at = "instruction", args = [#instr.const<1.5 : i32>]}
// CHECK: 1.5 is not an integer (an i32 constant)

// -----

instr.insert @h {at = "instruction", args = [#instr.const<1 : f16>]}
// CHECK: instr.const takes an integer (i1, i32, i64) or a float (f32, f64) type

// -----

instr.insert @h {at = "instruction", args = [#instr.const<0x1FFFFFFFF : f32>]}
// CHECK: 0x1ffffffff is not the bits of an f32

// -----

instr.insert @h {at = "everywhere", args = []}
// CHECK: insertion of @h: at = "everywhere" is not one of instruction, block_entry, kernel_entry, before_return

// -----

instr.insert @h {at = "instruction", args = [5 : i32]}
// CHECK: insertion of @h: 5 : i32 is not an argument (#instr.const, #instr.reg, #instr.operand or #instr.site)

// -----

instr.insert @h {at = "instruction", first = 5 : i64, last = 2 : i64, args = []}
// CHECK: insertion of @h: the index range 5..2 is empty

// -----

instr.global @g {size = 0 : i64}
// CHECK: instr.global @g: size 0 is not between 1 and 4294967296 bytes

// -----

instr.global @g {size = 4294967297 : i64}
// CHECK: instr.global @g: size 4294967297 is not between 1 and 4294967296 bytes

// -----

instr.global @g {size = 8 : i64, alignment = 3 : i64}
// CHECK: instr.global @g: alignment 3 is not a power of two up to 65536

// -----

instr.hook @h() {
  %a = arith.constant 0 : i64
  %v = arith.constant 1.0 : f16
  instr.store %v, %a : f16
  instr.return
}
// CHECK: instr.store's value must be i32, i64, f32 or f64, not f16

// -----

instr.hook @h() {
  %a = arith.constant 0 : i64
  %v = instr.load %a : i16
  instr.return
}
// CHECK: instr.load's result must be i32, i64, f32 or f64, not i16
