// Hand-reviewed statements per encoding class; llvm-mc-19 must agree with every CHECK.
// REQUIRES: luthier-mc
// RUN: luthier-mc -mcpu=gfx942 -show-encoding %s | filecheck %s
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding %s | filecheck %s

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
s_nop 1
// CHECK: s_nop 1 ; encoding: [0x01,0x00,0x80,0xbf]
s_waitcnt vmcnt(0) & lgkmcnt(0)
// CHECK: s_waitcnt vmcnt(0) lgkmcnt(0) ; encoding: [0x70,0x00,0x8c,0xbf]
s_mov_b32 s0, 0x12345
// CHECK: s_mov_b32 s0, 0x12345 ; encoding: [0xff,0x00,0x80,0xbe,0x45,0x23,0x01,0x00]
s_load_dwordx2 s[0:1], s[4:5], 0x10
// CHECK: s_load_dwordx2 s[0:1], s[4:5], 0x10 ; encoding: [0x02,0x00,0x06,0xc0,0x10,0x00,0x00,0x00]
v_add_f32 v0, s1, v0
// CHECK: v_add_f32_e32 v0, s1, v0 ; encoding: [0x01,0x00,0x00,0x02]
v_add_f32 v0, -v1, |v2|
// CHECK: v_add_f32_e64 v0, -v1, |v2| ; encoding: [0x00,0x02,0x01,0xd1,0x01,0x05,0x02,0x20]
v_cmp_eq_f32 vcc, v1, v2
// CHECK: v_cmp_eq_f32_e32 vcc, v1, v2 ; encoding: [0x01,0x05,0x84,0x7c]
v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]
// CHECK: v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7] ; encoding: [0x00,0x40,0xb0,0xd3,0x02,0x09,0x1a,0x1c]
v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 src0_sel:BYTE_0
// CHECK: v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 ; encoding: [0xf9,0x02,0x02,0x7e,0x02,0x15,0x00,0x00]
v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0x1
// CHECK: v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0x1 bank_mask:0xf ; encoding: [0xfa,0x02,0x02,0x7e,0x02,0xb1,0x00,0x1f]
global_load_dword v1, v[2:3], off offset:16 sc0
// CHECK: global_load_dword v1, v[2:3], off offset:16 sc0 ; encoding: [0x10,0x80,0x51,0xdc,0x02,0x00,0x7f,0x01]
buffer_load_dword v1, v2, s[4:7], s1 offen offset:4
// CHECK: buffer_load_dword v1, v2, s[4:7], s1 offen offset:4 ; encoding: [0x04,0x10,0x50,0xe0,0x02,0x01,0x01,0x01]
ds_write_b32 v1, v2 offset:16
// CHECK: ds_write_b32 v1, v2 offset:16 ; encoding: [0x10,0x00,0x1a,0xd8,0x01,0x02,0x00,0x00]
