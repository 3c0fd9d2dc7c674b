// splice-payloads on hand-written, already allocated payloads.
//
// @straight: a one-block payload sits between the application's s_getpc_b64 and the
// s_add_u32/s_addc_u32 that use the PC: its s_mov_b32 (4 bytes) moves the adds 4 bytes
// further from the getpc, so their addends grow by 4 (lo: +4 -> +8, hi: +12 -> +16) and
// the address they compute is still @table's. A payload with control flow before the
// global_load splits the block: its entry code joins the instructions before it, its
// middle block follows, and the instrumented load continues the payload's exit block.
//
// @loop: the payload sits at the head of the loop block ^bb1, which the back edge
// targets: the head keeps the payload's entry code, so every iteration runs the payload;
// the loop body continues in the payload's exit block and branches back to the head.
//
// RUN: luthier-opt %s -p splice-payloads | filecheck %s
// The result verifies, parses back and encodes.
// RUN: luthier-opt %s -p splice-payloads | luthier-opt | filecheck %s
// RUN: luthier-opt %s -p splice-payloads -o %t.o && llvm-objdump-19 -d -r %t.o | filecheck %s --check-prefix=OBJ

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "rel", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @straight <{alignment = 256 : i64, descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.s_getpc_b64 s[0:1]
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_mov_b32 s4, 1
      instr.return
    }
    amdgpu_mc.s_add_u32 s0, s0, table@rel32@lo+4
    amdgpu_mc.s_addc_u32 s1, s1, table@rel32@hi+12
    instr.payload @branchy attributes {args = []} {
      amdgpu_mc.s_cmp_eq_u32 s4, 0
      amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
    ^bb1:
      amdgpu_mc.s_mov_b32 s5, 2
      amdgpu_mc.fallthrough ^bb2
    ^bb2:
      instr.return
    }
    amdgpu_mc.global_load_dword v1, v0, s[0:1]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @loop <{alignment = 256 : i64, descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}> {
    amdgpu_mc.s_mov_b32 s2, 4
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    instr.payload @branchy attributes {args = []} {
      amdgpu_mc.s_cmp_eq_u32 s4, 0
      amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
    ^bb1:
      amdgpu_mc.s_mov_b32 s5, 2
      amdgpu_mc.fallthrough ^bb2
    ^bb2:
      instr.return
    }
    amdgpu_mc.s_sub_u32 s2, s2, 1
    amdgpu_mc.s_cmp_lg_u32 s2, 0
    amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @table <{section = ".data", size = 4 : i64, alignment = 4 : i64, binding = "GLOBAL", visibility = "PROTECTED", data = "2a000000"}>
}

// CHECK:      amdgpu_mc.kernel @straight
// CHECK-NEXT:   amdgpu_mc.s_getpc_b64 s[0:1]
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s4, 1
// CHECK-NEXT:   amdgpu_mc.s_add_u32 s0, s0, table@rel32@lo+8
// CHECK-NEXT:   amdgpu_mc.s_addc_u32 s1, s1, table@rel32@hi+16
// CHECK-NEXT:   amdgpu_mc.s_cmp_eq_u32 s4, 0
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc1 ^[[EXIT:bb[0-9]+]], ^[[MID:bb[0-9]+]]
// CHECK-NEXT: ^[[MID]]:
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s5, 2
// CHECK-NEXT:   amdgpu_mc.fallthrough ^[[EXIT]]
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT:   amdgpu_mc.global_load_dword v1, v0, s[0:1]
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK:      amdgpu_mc.kernel @loop
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s2, 4
// CHECK-NEXT:   amdgpu_mc.fallthrough ^[[HEAD:bb[0-9]+]]
// CHECK-NEXT: ^[[HEAD]]:
// CHECK-NEXT:   amdgpu_mc.s_cmp_eq_u32 s4, 0
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc1 ^[[BODY:bb[0-9]+]], ^[[MID:bb[0-9]+]]
// CHECK-NEXT: ^[[MID]]:
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s5, 2
// CHECK-NEXT:   amdgpu_mc.fallthrough ^[[BODY]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT:   amdgpu_mc.s_sub_u32 s2, s2, 1
// CHECK-NEXT:   amdgpu_mc.s_cmp_lg_u32 s2, 0
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc1 ^[[HEAD]], ^[[END:bb[0-9]+]]
// CHECK-NEXT: ^[[END]]:
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NOT:  instr.payload

// The literal of the s_add sits at 0xc; the distance it holds, table + 8 - 0xc, is
// table - 4: from the end of the s_getpc_b64 (4), as before splicing.
// OBJ-LABEL: <straight>:
// OBJ-NEXT:  s_getpc_b64 s[0:1]
// OBJ-NEXT:  s_mov_b32 s4, 1
// OBJ-NEXT:  s_add_u32 s0, s0, 0 {{.*}} 000000000008:
// OBJ-NEXT:  0000000000000c: R_AMDGPU_REL32_LO table+0x8
// OBJ-NEXT:  s_addc_u32 s1, s1, 0 {{.*}} 000000000010:
// OBJ-NEXT:  00000000000014: R_AMDGPU_REL32_HI table+0x10
// OBJ-LABEL: <loop>:
// OBJ-NEXT:  s_mov_b32 s2, 4 {{.*}} 000000000100:
// OBJ-NEXT:  s_cmp_eq_u32 s4, 0 {{.*}} 000000000104:
// OBJ-NEXT:  s_cbranch_scc1 1 {{.*}} <loop+0x10>
// OBJ-NEXT:  s_mov_b32 s5, 2
// OBJ-NEXT:  s_sub_u32 s2, s2, 1 {{.*}} 000000000110:
// OBJ-NEXT:  s_cmp_lg_u32 s2, 0
// OBJ-NEXT:  s_cbranch_scc1 65530 {{.*}} <loop+0x4>
// OBJ-NEXT:  s_endpgm
