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
v_add_f32_e64 v0, s0, s1
// CHECK: gfx90a_invalid.s:16:23: error: invalid operand (violates constant bus restrictions)
global_atomic_add_f32 v[1:2], v2, off
// CHECK: gfx90a_invalid.s:18:1: error: invalid register class: vgpr tuples must be 64 bit aligned
s_mov_b32 s0, tba_lo
// CHECK: gfx90a_invalid.s:20:15: error: register not available on this GPU
ds_add_u32 v0, v1 gds
// CHECK: gfx90a_invalid.s:22:19: error: gds modifier is not supported on this GPU
s_sendmsg sendmsg(MSG_GS, GS_OP_NOP)
// CHECK: gfx90a_invalid.s:24:27: error: invalid operation id
ds_add_u32 v2, v4 offset:0x10000
// CHECK: gfx90a_invalid.s:26:19: error: expected a 16-bit unsigned offset
