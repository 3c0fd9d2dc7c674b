// One-line diagnostics, as llvm-mc reports them (llvm-mc adds the source line and a caret).
// REQUIRES: luthier-mc
// RUN: not luthier-mc -mcpu=gfx90a -show-encoding %s 2>&1 | filecheck %s
// RUN: not llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx90a -show-encoding %s 2>&1 | filecheck %s

bogus v0
// CHECK: gfx90a_invalid.s:6:1: error: invalid instruction
v_add_f32 v0
// CHECK: gfx90a_invalid.s:8:1: error: too few operands for instruction
s_mov_b32 s0, s[1:2]
// CHECK: gfx90a_invalid.s:10:15: error: invalid register alignment
v_mov_b32 v300, v1
// CHECK: gfx90a_invalid.s:12:11: error: register index is out of range
s_movk_i32 s0, 0x12345
// CHECK: gfx90a_invalid.s:14:16: error: invalid operand for instruction
