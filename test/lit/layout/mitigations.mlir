// On GFX10+ splice-payloads fixes the hazard sequences LLVM 19 fixes with an instruction
// (passes/layout/mitigations.py), where spliced code is in the sequence; GFX9's wait-state
// rules do not apply there, and a sequence of application instructions alone is left as
// the compiler left it.
//
// gfx1100 (wave32):
// @trans_use: the payload's v_add_f32 reads v3 right after the application's
// transcendental v_rcp_f32 wrote it: s_waitcnt_depctr 0xfff (va_vdst(0)) before the read.
// The second payload reads v6 with a global_load between (the counter drained: nothing);
// the last pair is the application's own (nothing).
// @wave32_mask_write: a payload's s_mov_b64 s[10:11] after a v_cndmask reading s[10:11]
// as its mask: the hazard is wave64's only (nothing here).
//
// RUN: luthier-opt %s --split-input-file -p splice-payloads | filecheck %s

amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @trans_use <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, properties.enable_wavefront_size32 = 1>}> {
    amdgpu_mc.v_rcp_f32_e32 v3, v4
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_add_f32_e32 v5, v3, v3
      instr.return
    }
    amdgpu_mc.v_rcp_f32_e32 v6, v4
    amdgpu_mc.global_load_b32 v7, v0, s[0:1]
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_add_f32_e32 v5, v6, v6
      instr.return
    }
    amdgpu_mc.v_rcp_f32_e32 v8, v4
    amdgpu_mc.v_add_f32_e32 v9, v8, v8
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @wave32_mask_write <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, properties.enable_wavefront_size32 = 1>}> {
    amdgpu_mc.v_cndmask_b32_e64 v1, v2, v3, s10
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_mov_b32 s10, 0
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @trans_use
// CHECK-NEXT:   amdgpu_mc.v_rcp_f32_e32 v3, v4
// CHECK-NEXT:   amdgpu_mc.s_waitcnt_depctr 0xfff
// CHECK-NEXT:   amdgpu_mc.v_add_f32_e32 v5, v3, v3
// CHECK-NEXT:   amdgpu_mc.v_rcp_f32_e32 v6, v4
// CHECK-NEXT:   amdgpu_mc.global_load_b32 v7, v0, s[0:1]
// CHECK-NEXT:   amdgpu_mc.v_add_f32_e32 v5, v6, v6
// CHECK-NEXT:   amdgpu_mc.v_rcp_f32_e32 v8, v4
// CHECK-NEXT:   amdgpu_mc.v_add_f32_e32 v9, v8, v8
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK:      amdgpu_mc.kernel @wave32_mask_write
// CHECK-NEXT:   amdgpu_mc.v_cndmask_b32_e64 v1, v2, v3, s10
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s10, 0
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }

// -----

// gfx1100 in wave64:
// @mask_write: the payload's s_mov_b64 writes s[10:11], which the application's v_cndmask
// just read as its lane mask: s_waitcnt_depctr 0xfffe (sa_sdst(0)) right after the write.
// The second payload writes s[12:13] after a VALU that read another SGPR (s0): nothing.
// @getpc_mask_write: the payload's s_getpc_b64 writes s[2:3], which the application's
// v_cndmask just read as its lane mask: the counter wait goes right after the s_getpc_b64,
// as LLVM puts it, and the PC-relative operands measured from it (the s_add_u32 and
// s_addc_u32 that follow) are 4 bytes further from it now (table@rel32@lo+4 -> +8,
// @hi+12 -> +16): the address is still @table's.
// @partial_forwarding: v_add_u32 reads v1 (written before the payload's SALU write of
// EXEC) and v2 (written after it), one VALU apart: s_waitcnt_depctr 0xfff before it.

amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64, wavefront_size = 64 : i64}> {
  amdgpu_mc.kernel @mask_write <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11>}> {
    amdgpu_mc.v_cndmask_b32_e64 v1, v2, v3, s[10:11]
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[10:11], 0
      amdgpu_mc.s_add_u32 s14, s14, 1
      instr.return
    }
    amdgpu_mc.v_cndmask_b32_e64 v4, v2, v3, s[12:13]
    amdgpu_mc.v_add_nc_u32_e32 v5, s0, v4
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_mov_b64 s[12:13], 0
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @getpc_mask_write <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11>}> {
    amdgpu_mc.v_cndmask_b32_e64 v1, v2, v3, s[2:3]
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_getpc_b64 s[2:3]
      amdgpu_mc.s_add_u32 s2, s2, table@rel32@lo+4
      amdgpu_mc.s_addc_u32 s3, s3, table@rel32@hi+12
      amdgpu_mc.s_load_b32 s4, s[2:3], 0x0
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @partial_forwarding <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11>}> {
    amdgpu_mc.v_mov_b32_e32 v1, 1
    instr.payload @count attributes {args = []} {
      amdgpu_mc.s_mov_b64 exec, -1
      instr.return
    }
    amdgpu_mc.v_mov_b32_e32 v2, 2
    amdgpu_mc.v_add_nc_u32_e32 v3, v1, v2
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @table <{section = ".data", size = 4 : i64, alignment = 4 : i64, binding = "GLOBAL", visibility = "PROTECTED", data = "2a000000"}>
}

// CHECK:      amdgpu_mc.kernel @mask_write
// CHECK-NEXT:   amdgpu_mc.v_cndmask_b32_e64 v1, v2, v3, s[10:11]
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 s[10:11], 0
// CHECK-NEXT:   amdgpu_mc.s_waitcnt_depctr 0xfffe
// CHECK-NEXT:   amdgpu_mc.s_add_u32 s14, s14, 1
// CHECK-NEXT:   amdgpu_mc.v_cndmask_b32_e64 v4, v2, v3, s[12:13]
// CHECK-NEXT:   amdgpu_mc.v_add_nc_u32_e32 v5, s0, v4
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 s[12:13], 0
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK:      amdgpu_mc.kernel @getpc_mask_write
// CHECK-NEXT:   amdgpu_mc.v_cndmask_b32_e64 v1, v2, v3, s[2:3]
// CHECK-NEXT:   amdgpu_mc.s_getpc_b64 s[2:3]
// CHECK-NEXT:   amdgpu_mc.s_waitcnt_depctr 0xfffe
// CHECK-NEXT:   amdgpu_mc.s_add_u32 s2, s2, table@rel32@lo+8
// CHECK-NEXT:   amdgpu_mc.s_addc_u32 s3, s3, table@rel32@hi+16
// CHECK-NEXT:   amdgpu_mc.s_load_b32 s4, s[2:3], 0x0
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK:      amdgpu_mc.kernel @partial_forwarding
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 v1, 1
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 exec, -1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 v2, 2
// CHECK-NEXT:   amdgpu_mc.s_waitcnt_depctr 0xfff
// CHECK-NEXT:   amdgpu_mc.v_add_nc_u32_e32 v3, v1, v2
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }

// -----

// gfx1201: @permlane: the payload's v_cmpx writes EXEC right before the application's
// v_permlane16: v_mov_b32 of the permlane's source first (LLVM's fix; v_nop would be
// dropped by the sequencer).

amdgpu_mc.code_object "gfx1201" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1358 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @permlane <{descriptor = #amdgpu_mc.kernel_descriptor<gfx12, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_cmpx_eq_u32_e32 0, v1
      instr.return
    }
    amdgpu_mc.v_permlane16_b32 v2, v3, s0, s1
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @permlane
// CHECK-NEXT:   amdgpu_mc.v_cmpx_eq_u32_e32 0, v1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 v3, v3
// CHECK-NEXT:   amdgpu_mc.v_permlane16_b32 v2, v3, s0, s1
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }

// -----

// gfx1030: @denorm: s_denorm_mode right after the payload's floating-point atomic: 3 wait
// states (s_nop 2). @no_gfx9_rules: a VALU write of an SGPR right before a global load
// reading it is GFX9's hazard only (nothing).

amdgpu_mc.code_object "gfx1030" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1334 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @denorm <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.global_atomic_fmin v0, v1, s[0:1]
      instr.return
    }
    amdgpu_mc.s_denorm_mode 0
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @no_gfx9_rules <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_readfirstlane_b32 s4, v1
      instr.return
    }
    amdgpu_mc.global_load_dword v2, v0, s[4:5]
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @denorm
// CHECK-NEXT:   amdgpu_mc.global_atomic_fmin v0, v1, s[0:1]
// CHECK-NEXT:   amdgpu_mc.s_nop 2
// CHECK-NEXT:   amdgpu_mc.s_denorm_mode 0
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK:      amdgpu_mc.kernel @no_gfx9_rules
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 s4, v1
// CHECK-NEXT:   amdgpu_mc.global_load_dword v2, v0, s[4:5]
// CHECK-NEXT:   amdgpu_mc.s_endpgm
// CHECK-NEXT: }
