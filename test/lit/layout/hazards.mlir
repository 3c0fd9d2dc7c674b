// splice-payloads puts wait states where spliced code meets code it depends on too
// closely (passes/layout/hazards.py); pairs of application instructions are left as the
// compiler scheduled them.
//
// @mfma_in_flight: the payload writes v18, a source of the MFMA just before it, while the
// MFMA may still be reading it: 19 wait states (s_nop 15 + s_nop 2) before the write.
// @restored_sgpr: the payload puts s4 back with v_readlane_b32 (a VALU write of an SGPR)
// right before a global_load that reads s[4:5] (VMEM after VALU-written SGPR: 5 wait
// states, s_nop 4). The second payload's v_readlane_b32 writes s9, which the next load
// does not read, and the s4 write is 7 wait states back by then: nothing. The third
// payload selects a lane with s6, which the application's v_readfirstlane_b32 just wrote
// (lane select after a VALU write: 4 wait states, s_nop 3).
// @transcendental (gfx942): v_add_f32 reads the result of the transcendental v_rcp_f32
// right after it: one wait state (s_nop 0). gfx90a has no such hazard.
//
// RUN: luthier-opt %s --split-input-file -p splice-payloads | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @mfma_in_flight <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 4>}> {
    amdgpu_mc.v_mfma_f32_32x32x2f32 v[2:17], v18, v19, v[2:17]
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 v18, 1
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @restored_sgpr <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[4:5], s[0:1], 0x0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    instr.payload @spill attributes {args = []} {
      amdgpu_mc.v_writelane_b32 v20, s4, 0
      amdgpu_mc.s_mov_b32 s4, 7
      amdgpu_mc.v_readlane_b32 s4, v20, 0
      instr.return
    }
    amdgpu_mc.global_load_dword v1, v0, s[4:5]
    instr.payload @other attributes {args = []} {
      amdgpu_mc.v_readlane_b32 s9, v20, 0
      instr.return
    }
    amdgpu_mc.global_load_dword v2, v0, s[4:5]
    amdgpu_mc.v_readfirstlane_b32 s6, v1
    instr.payload @lane attributes {args = []} {
      amdgpu_mc.v_readlane_b32 s7, v2, s6
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @mfma_in_flight <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 4>}> {
// CHECK-NEXT:   amdgpu_mc.v_mfma_f32_32x32x2f32 v[2:17], v18, v19, v[2:17]
// CHECK-NEXT:   amdgpu_mc.s_nop 15
// CHECK-NEXT:   amdgpu_mc.s_nop 2
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 v18, 1
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK:      amdgpu_mc.kernel @restored_sgpr <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:   amdgpu_mc.s_load_dwordx2 s[4:5], s[0:1], 0x0
// CHECK-NEXT:   amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:   amdgpu_mc.v_writelane_b32 v20, s4, 0
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s4, 7
// CHECK-NEXT:   amdgpu_mc.v_readlane_b32 s4, v20, 0
// CHECK-NEXT:   amdgpu_mc.s_nop 4
// CHECK-NEXT:   amdgpu_mc.global_load_dword v1, v0, s[4:5]
// CHECK-NEXT:   amdgpu_mc.v_readlane_b32 s9, v20, 0
// CHECK-NEXT:   amdgpu_mc.global_load_dword v2, v0, s[4:5]
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 s6, v1
// CHECK-NEXT:   amdgpu_mc.s_nop 3
// CHECK-NEXT:   amdgpu_mc.v_readlane_b32 s7, v2, s6
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }

// -----

amdgpu_mc.code_object "gfx942" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1356 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @transcendental <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @reciprocal attributes {args = []} {
      amdgpu_mc.v_rcp_f32_e32 v3, v4
      amdgpu_mc.v_add_f32_e32 v5, v3, v3
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @transcendental <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:   amdgpu_mc.v_rcp_f32_e32 v3, v4
// CHECK-NEXT:   amdgpu_mc.s_nop 0
// CHECK-NEXT:   amdgpu_mc.v_add_f32_e32 v5, v3, v3
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }

// -----

// Across blocks: @back_edge's payload writes s4 (v_readlane_b32) at the end of a loop
// whose first instruction, a global_load, reads s[4:5]: through the back edge only the
// s_cbranch_scc0 is between them, so the load gets s_nop 3 (5 wait states less the
// branch's one), on every path into the loop. @from_predecessor's payload selects a lane
// with s6 at the start of a block whose predecessor wrote s6 with a VALU instruction just
// before its branch: s_nop 2. The walk follows the CFG both ways: the application
// instruction that matters may sit in another block than the inserted code.

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @back_edge <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s2, 4
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.global_load_dword v3, v0, s[4:5]
    amdgpu_mc.s_sub_u32 s2, s2, 1
    instr.payload @restore attributes {args = []} {
      amdgpu_mc.v_readlane_b32 s4, v20, 0
      instr.return
    }
    amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @from_predecessor <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_readfirstlane_b32 s6, v1
    amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_endpgm
  ^bb2:
    instr.payload @lane attributes {args = []} {
      amdgpu_mc.v_readlane_b32 s7, v2, s6
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @back_edge <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s2, 4
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   amdgpu_mc.s_nop 3
// CHECK-NEXT:   amdgpu_mc.global_load_dword v3, v0, s[4:5]
// CHECK-NEXT:   amdgpu_mc.s_sub_u32 s2, s2, 1
// CHECK-NEXT:   amdgpu_mc.v_readlane_b32 s4, v20, 0
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK:      amdgpu_mc.kernel @from_predecessor <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 s6, v1
// CHECK-NEXT:   amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   amdgpu_mc.s_nop 2
// CHECK-NEXT:   amdgpu_mc.v_readlane_b32 s7, v2, s6
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
