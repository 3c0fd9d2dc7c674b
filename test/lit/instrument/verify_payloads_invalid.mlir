// verify-payloads findings: one line per violation, naming the hook, the function and the
// instrumented instruction (its index among the function's instructions and its text).
// The kernels are those of verify_payloads.mlir: in @k before #2, s[0:1] s7 v0 exec scc
// are live; in @divergent before #4, v1 is live only in the lanes EXEC switched off.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p verify-payloads | filecheck %s
// (verify_payloads_exit.mlir checks the exit status.)

// A live SGPR written, not restored.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @live_sgpr attributes {args = []} {
      amdgpu_mc.s_mov_b32 s7, 0
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
}
// CHECK: verify-payloads: @live_sgpr in @k before 'v_mov_b32_e32 v1, s7' (#2): writes s7, live there

// -----

// SCC clobbered by s_add_u32 (an implicit def), not saved.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @scc_lost attributes {args = []} {
      amdgpu_mc.s_add_u32 s20, s20, 1
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
}
// CHECK: verify-payloads: @scc_lost in @k before 'v_mov_b32_e32 v1, s7' (#2): writes scc, live there

// -----

// SCC saved, but s_cmp_eq_u32 inverts it: not a restore.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @scc_inverted attributes {args = []} {
      amdgpu_mc.s_cselect_b32 s20, 1, 0
      amdgpu_mc.s_add_u32 s21, s21, 1
      amdgpu_mc.s_cmp_eq_u32 s20, 0
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
}
// CHECK: verify-payloads: @scc_inverted in @k before 'v_mov_b32_e32 v1, s7' (#2): writes scc, live there

// -----

// SCC saved after it was clobbered: the copy is not the original.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @scc_late attributes {args = []} {
      amdgpu_mc.s_add_u32 s21, s21, 1
      amdgpu_mc.s_cselect_b32 s20, 1, 0
      amdgpu_mc.s_cmp_lg_u32 s20, 0
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
}
// CHECK: verify-payloads: @scc_late in @k before 'v_mov_b32_e32 v1, s7' (#2): writes scc, live there

// -----

// EXEC changed and not restored.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @exec_lost attributes {args = []} {
      amdgpu_mc.s_mov_b64 exec, 1
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
}
// CHECK: verify-payloads: @exec_lost in @k before 'v_mov_b32_e32 v1, s7' (#2): writes exec, live there

// -----

// EXEC restored on one path only.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @exec_one_path attributes {args = []} {
      amdgpu_mc.s_cselect_b32 s30, 1, 0
      amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0
      amdgpu_mc.s_and_saveexec_b64 s[20:21], vcc
      amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
    ^bb1:
      amdgpu_mc.s_or_b64 exec, exec, s[20:21]
      amdgpu_mc.fallthrough ^bb2
    ^bb2:
      amdgpu_mc.s_cmp_lg_u32 s30, 0
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
}
// CHECK: verify-payloads: @exec_one_path in @k before 'v_mov_b32_e32 v1, s7' (#2): writes exec, live there

// -----

// A register in another hook's 'writes' list is not this hook's.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @writes_other attributes {args = [], writes = ["s6"]} {
      amdgpu_mc.s_mov_b32 s7, 5
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
}
// CHECK: verify-payloads: @writes_other in @k before 'v_mov_b32_e32 v1, s7' (#2): writes s7, live there

// -----

// A leftover virtual register.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @virtual attributes {args = []} {
      amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.vreg<3 : SReg_32>, #builtin.int<1>]}>
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
}
// CHECK: verify-payloads: @virtual in @k before 'v_mov_b32_e32 v1, s7' (#2): virtual register %3:SReg_32 left in 's_mov_b32'

// -----

// Not machine code yet.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @not_lowered attributes {args = []} {
      %c = arith.constant 1 : i32
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
}
// CHECK: verify-payloads: @not_lowered in @k before 'v_mov_b32_e32 v1, s7' (#2): 'arith.constant' is not machine code

// -----

// A payload that ends the wave.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @endpgm attributes {args = []} {
      amdgpu_mc.s_endpgm
    ^bb1:
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
}
// CHECK: verify-payloads: @endpgm in @k before 'v_mov_b32_e32 v1, s7' (#2): 's_endpgm' leaves the payload without instr.return

// -----

// v1 is live in the switched-off lanes: a write under all lanes clobbers them.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @divergent <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, 0
    amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0
    amdgpu_mc.s_and_saveexec_b64 s[6:7], vcc
    amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
  ^bb1:
    instr.payload @all_lanes attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[20:21], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.v_mov_b32_e32 v1, 7
      amdgpu_mc.s_mov_b64 exec, s[20:21]
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
// CHECK: verify-payloads: @all_lanes in @divergent before 'v_mov_b32_e32 v2, 5' (#4): writes v1 in lanes EXEC has switched off, live there

// -----

// v1 saved under the point's EXEC, restored under all lanes: the switched-off lanes get v20's.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @divergent <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, 0
    amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0
    amdgpu_mc.s_and_saveexec_b64 s[6:7], vcc
    amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
  ^bb1:
    instr.payload @mixed_exec attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 v20, v1
      amdgpu_mc.s_mov_b64 s[20:21], exec
      amdgpu_mc.s_mov_b64 exec, -1
      amdgpu_mc.v_mov_b32_e32 v1, v20
      amdgpu_mc.s_mov_b64 exec, s[20:21]
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
// CHECK: verify-payloads: @mixed_exec in @divergent before 'v_mov_b32_e32 v2, 5' (#4): writes v1 in lanes EXEC has switched off, live there

// -----

// v0 is live in every lane: a write under the point's EXEC clobbers the active ones.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @divergent <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, 0
    amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0
    amdgpu_mc.s_and_saveexec_b64 s[6:7], vcc
    amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
  ^bb1:
    instr.payload @active_lanes attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 v0, 7
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
// CHECK: verify-payloads: @active_lanes in @divergent before 'v_mov_b32_e32 v2, 5' (#4): writes v0, live there

// -----

// Two payloads at one point: the first clobbers s20 (dead in the application), which the
// second reads before writing it. The second one alone is fine.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @first attributes {args = []} {
      amdgpu_mc.s_mov_b32 s20, 1
      instr.return
    }
    instr.payload @second attributes {args = []} {
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
}
// CHECK: verify-payloads: @first in @k before 'v_mov_b32_e32 v1, s7' (#2): writes s20, read by @second after it

// -----

// The same through a copy: the second payload moves s20 to s21 and reads s21.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.s_cmp_eq_u32 s6, 0
    instr.payload @first attributes {args = []} {
      amdgpu_mc.s_mov_b32 s20, 1
      instr.return
    }
    instr.payload @second attributes {args = []} {
      amdgpu_mc.s_mov_b32 s21, s20
      amdgpu_mc.v_mov_b32_e32 v10, s21
      instr.return
    }
    instr.payload @third attributes {args = []} {
      amdgpu_mc.s_mov_b32 s22, 0
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
}
// CHECK: verify-payloads: @first in @k before 'v_mov_b32_e32 v1, s7' (#2): writes s20, read by @second after it
// CHECK-NOT: @second in
// CHECK-NOT: @third in

// -----

// A payload that is not in front of an instruction.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s0, 0
    instr.payload @stray attributes {args = []} {
      instr.return
    }
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.s_endpgm
  }
}
// CHECK: verify-payloads: @stray in @k before 'amdgpu_mc.fallthrough' (#-1): not before an instruction
