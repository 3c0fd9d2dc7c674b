// Symbolic operands are left to fixups, printed as llvm-mc prints them.
// REQUIRES: luthier-mc
// RUN: luthier-mc -mcpu=gfx90a -show-encoding %s | filecheck %s
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx90a -show-encoding %s | filecheck %s

loop_end:
// CHECK: loop_end:
s_branch loop_end
// CHECK: s_branch loop_end ; encoding: [A,A,0x82,0xbf]
// CHECK-NEXT: ;   fixup A - offset: 0, value: loop_end, kind: fixup_si_sopp_br
s_mov_b32 s0, lds0@abs32@lo
// CHECK: s_mov_b32 s0, lds0@abs32@lo ; encoding: [0xff,0x00,0x80,0xbe,A,A,A,A]
// CHECK-NEXT: ;   fixup A - offset: 4, value: lds0@abs32@lo, kind: FK_Data_4
v_and_b32 v0, -i1+3, v0
// CHECK: v_and_b32_e32 v0, (-i1)+3, v0 ; encoding: [0xff,0x00,0x00,0x26,A,A,A,A]
// CHECK-NEXT: ;   fixup A - offset: 4, value: (-i1)+3, kind: FK_PCRel_4
s_sub_u32 vcc_lo, vcc_lo, (BB2+4)-BB1
// CHECK: s_sub_u32 vcc_lo, vcc_lo, (BB2+4)-BB1 ; encoding: [0x6a,0xff,0xea,0x80,A,A,A,A]
// CHECK-NEXT: ;   fixup A - offset: 4, value: (BB2+4)-BB1, kind: FK_Data_4
