// verify-payloads on payloads that keep the application's registers: each passes, and the
// pass prints the module unchanged. Liveness of the two kernels (checked by hand, and by
// print-liveness):
// - @k before 'v_mov_b32_e32 v1, s7' (#2): s[0:1] s7 v0 exec scc are live; s20 and up,
//   v10 and up, vcc and m0 are dead;
// - @divergent before 'v_mov_b32_e32 v2, 5' (#4): EXEC is the then-side of the branch; v1
//   is live only in the lanes it switched off (the active lanes overwrite v1 next).
// RUN: luthier-opt %s > %t.before.mlir
// RUN: luthier-opt %s -p verify-payloads > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir
// RUN: filecheck %s < %t.after.mlir

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    // Dead registers only (v_mov_b32 reads EXEC: reading is fine).
    instr.payload @dead_only attributes {args = []} {
      amdgpu_mc.s_mov_b32 s20, 1
      amdgpu_mc.v_mov_b32_e32 v10, s20
      amdgpu_mc.s_mov_b64 vcc, 0
      instr.return
    }
    // SCC is live: saved through an SGPR and compared back.
    instr.payload @scc_saved attributes {args = []} {
      amdgpu_mc.s_cselect_b32 s20, 1, 0
      amdgpu_mc.s_add_u32 s21, s21, 1
      amdgpu_mc.s_cmp_lg_u32 s20, 0
      instr.return
    }
    instr.payload @scc_saved_64 attributes {args = []} {
      amdgpu_mc.s_cselect_b64 s[20:21], -1, 0
      amdgpu_mc.s_add_u32 s22, s22, 1
      amdgpu_mc.s_cmp_lg_u64 s[20:21], 0
      instr.return
    }
    // EXEC saved, one lane, restored.
    instr.payload @one_lane attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[20:21], exec
      amdgpu_mc.s_mov_b64 exec, 1
      amdgpu_mc.v_mov_b32_e32 v10, 0
      amdgpu_mc.s_mov_b64 exec, s[20:21]
      instr.return
    }
    // A divergent region inside the payload (SCC saved around s_and_saveexec, s_or).
    instr.payload @divergent_region attributes {args = []} {
      amdgpu_mc.s_cselect_b32 s30, 1, 0
      amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0
      amdgpu_mc.s_and_saveexec_b64 s[20:21], vcc
      amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
    ^bb1:
      amdgpu_mc.v_mov_b32_e32 v10, 1
      amdgpu_mc.s_branch ^bb2
    ^bb2:
      amdgpu_mc.s_or_b64 exec, exec, s[20:21]
      amdgpu_mc.s_cmp_lg_u32 s30, 0
      instr.return
    }
    // s7 is live, but the hook writes it on purpose (instr.write_reg).
    instr.payload @writes_s7 attributes {args = [], writes = ["s7"]} {
      amdgpu_mc.s_mov_b32 s7, 5
      instr.return
    }
    // A live SGPR spilled to a VGPR lane and back; the VGPR is dead.
    instr.payload @spill_lane attributes {args = []} {
      amdgpu_mc.v_writelane_b32 v12, s7, 3
      amdgpu_mc.s_mov_b32 s7, 0
      amdgpu_mc.v_readlane_b32 s7, v12, 3
      instr.return
    }
    // Two payloads reusing the same temporary: the second writes s20 before reading it.
    instr.payload @first_temp attributes {args = []} {
      amdgpu_mc.s_mov_b32 s20, 1
      instr.return
    }
    instr.payload @second_temp attributes {args = []} {
      amdgpu_mc.s_mov_b32 s20, 2
      amdgpu_mc.v_mov_b32_e32 v10, s20
      instr.return
    }
    amdgpu_mc.v_mov_b32_e32 v1, s7
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_store_dword v0, v1, s[0:1]
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @divergent <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, 0
    amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0
    amdgpu_mc.s_and_saveexec_b64 s[6:7], vcc
    amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
  ^bb1:
    // v1 is live in the switched-off lanes only: a write under the point's EXEC keeps them.
    instr.payload @same_exec attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 v1, 7
      instr.return
    }
    // All lanes on, v1 saved and restored under all lanes.
    instr.payload @all_lanes_saved attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[20:21], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.v_mov_b32_e32 v20, v1
      amdgpu_mc.v_mov_b32_e32 v1, 7
      amdgpu_mc.v_mov_b32_e32 v1, v20
      amdgpu_mc.s_mov_b64 exec, s[20:21]
      instr.return
    }
    // A loop in the payload: the analysis iterates to a fixpoint.
    instr.payload @loop attributes {args = []} {
      amdgpu_mc.s_mov_b32 s20, 4
      amdgpu_mc.fallthrough ^bb1
    ^bb1:
      amdgpu_mc.s_sub_u32 s20, s20, 1
      amdgpu_mc.s_cmp_lg_u32 s20, 0
      amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb2
    ^bb2:
      instr.return
    }
    amdgpu_mc.v_mov_b32_e32 v2, 5
    amdgpu_mc.v_add_u32_e32 v1, v2, v0
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_or_b64 exec, exec, s[6:7]
    amdgpu_mc.global_store_dword v0, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
}

// CHECK: instr.payload @dead_only
// CHECK: instr.payload @loop
