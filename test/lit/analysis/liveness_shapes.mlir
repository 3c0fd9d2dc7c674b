// print-liveness and print-register-usage on hand-written shapes: straight-line code, a
// uniform diamond, a loop, a divergent branch with EXEC save and restore, a call into a
// device function, and scratch (private segment) use. Every line below was checked by hand
// against the code above it. Offsets are bytes from the function's first instruction.
// RUN: luthier-opt %s -p print-liveness 2>&1 >/dev/null | filecheck %s
// RUN: luthier-opt %s -p 'print-liveness{free=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=FREE
// RUN: luthier-opt %s -p print-register-usage 2>&1 >/dev/null | filecheck %s --check-prefix=USAGE
// The IR is not changed.
// RUN: luthier-opt %s > %t.before.mlir
// RUN: luthier-opt %s -p print-liveness,print-register-usage 2>/dev/null > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @straight_line <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0
    amdgpu_mc.v_lshlrev_b32_e32 v0, 2, v0
    amdgpu_mc.v_mov_b32_e32 v1, 7
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.global_store_dword v0, v1, s[0:1]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @diamond <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_mov_b32 s1, 1
    amdgpu_mc.s_branch ^bb3
  ^bb2:
    amdgpu_mc.s_mov_b32 s1, s2
    amdgpu_mc.fallthrough ^bb3
  ^bb3:
    amdgpu_mc.v_mov_b32_e32 v0, s1
    amdgpu_mc.global_store_dword v1, v0, s[4:5]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @loop <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.s_mov_b32 s2, 0
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.s_add_u32 s2, s2, s3
    amdgpu_mc.s_sub_u32 s0, s0, 1
    amdgpu_mc.s_cmp_lg_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb2
  ^bb2:
    amdgpu_mc.v_mov_b32_e32 v1, s2
    amdgpu_mc.global_store_dword v0, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @divergent <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 6, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.v_mov_b32_e32 v1, 0
    amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0
    amdgpu_mc.s_and_saveexec_b64 s[6:7], vcc
    amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.v_mov_b32_e32 v2, 5
    amdgpu_mc.v_add_u32_e32 v1, v2, v0
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_or_b64 exec, exec, s[6:7]
    amdgpu_mc.global_store_dword v0, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.func @add_one {
    amdgpu_mc.v_add_u32_e32 v0, 1, v0
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  amdgpu_mc.kernel @calls <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc1.granulated_wavefront_sgpr_count = 4, rsrc2.user_sgpr_count = 10>}> {
    amdgpu_mc.s_getpc_b64 s[16:17]
    amdgpu_mc.s_add_u32 s16, s16, add_one@rel32@lo+4
    amdgpu_mc.s_addc_u32 s17, s17, add_one@rel32@hi+12
    amdgpu_mc.s_swappc_b64 s[30:31], s[16:17]
    amdgpu_mc.global_store_dword v1, v0, s[8:9]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @scratch <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.enable_private_segment = 1, rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_kernarg_segment_ptr = 1>}> {
    amdgpu_mc.s_add_u32 s0, s0, s7
    amdgpu_mc.s_addc_u32 s1, s1, 0
    amdgpu_mc.buffer_store_dword v0, off, s[0:3], 0 offset:4
    amdgpu_mc.s_waitcnt vmcnt(0)
    amdgpu_mc.buffer_load_dword v1, off, s[0:3], 0 offset:4
    amdgpu_mc.s_waitcnt vmcnt(0)
    amdgpu_mc.global_store_dword v0, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
}

// straight_line: each value is live from its definition to its last read. The kernarg
// pointer s[4:5] dies at the load that reads it; v0 is live across its own rewrite (the write
// reads it) and v1 is dead before v_mov writes it, with EXEC full, in every lane. EXEC is
// read by every VALU and VMEM instruction. Nothing is live at s_endpgm.
// CHECK-LABEL: liveness @straight_line (kernel): live-in s[4:5] v0 exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s[4:5] v0 exec
// CHECK-NEXT:      +0x0 s_load_dwordx2 s[0:1], s[4:5], 0x0: live s[4:5] v0 exec
// CHECK-NEXT:      +0x8 v_lshlrev_b32_e32 v0, 2, v0: live s[0:1] v0 exec
// CHECK-NEXT:      +0xc v_mov_b32_e32 v1, 7: live s[0:1] v0 exec
// CHECK-NEXT:      +0x10 s_waitcnt lgkmcnt(0): live s[0:1] v[0:1] exec
// CHECK-NEXT:      +0x14 global_store_dword v0, v1, s[0:1]: live s[0:1] v[0:1] exec
// CHECK-NEXT:      +0x1c s_endpgm: live none
// CHECK-NEXT:      live-out none
// diamond: s2 is only read on the ^bb2 side, so it is live into ^bb0 but dead in ^bb1;
// s1 is written on both sides, so it is dead at the branch and live into the join; SCC is
// live only between the compare and the branch.
// CHECK-LABEL: liveness @diamond (kernel): live-in s0 s2 s[4:5] v1 exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s0 s2 s[4:5] v1 exec
// CHECK-NEXT:      +0x0 s_cmp_eq_u32 s0, 0: live s0 s2 s[4:5] v1 exec
// CHECK-NEXT:      +0x4 s_cbranch_scc1 ^bb2: live s2 s[4:5] v1 exec scc
// CHECK-NEXT:      live-out s2 s[4:5] v1 exec
// CHECK-NEXT:    ^bb1 +0x8: live-in s[4:5] v1 exec
// CHECK-NEXT:      +0x8 s_mov_b32 s1, 1: live s[4:5] v1 exec
// CHECK-NEXT:      +0xc s_branch ^bb3: live s1 s[4:5] v1 exec
// CHECK-NEXT:      live-out s1 s[4:5] v1 exec
// CHECK-NEXT:    ^bb2 +0x10: live-in s2 s[4:5] v1 exec
// CHECK-NEXT:      +0x10 s_mov_b32 s1, s2: live s2 s[4:5] v1 exec
// CHECK-NEXT:      live-out s1 s[4:5] v1 exec
// CHECK-NEXT:    ^bb3 +0x14: live-in s1 s[4:5] v1 exec
// CHECK-NEXT:      +0x14 v_mov_b32_e32 v0, s1: live s1 s[4:5] v1 exec
// CHECK-NEXT:      +0x18 global_store_dword v1, v0, s[4:5]: live s[4:5] v[0:1] exec
// CHECK-NEXT:      +0x20 s_endpgm: live none
// CHECK-NEXT:      live-out none
// loop: the accumulator s2 and the counter s0 stay live around the back edge (live-out of
// ^bb1 includes its own live-in); s3 is loop-invariant and live throughout the loop.
// CHECK-LABEL: liveness @loop (kernel): live-in s0 s[3:5] v0 exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s0 s[3:5] v0 exec
// CHECK-NEXT:      +0x0 s_mov_b32 s2, 0: live s0 s[3:5] v0 exec
// CHECK-NEXT:      live-out s0 s[2:5] v0 exec
// CHECK-NEXT:    ^bb1 +0x4: live-in s0 s[2:5] v0 exec
// CHECK-NEXT:      +0x4 s_add_u32 s2, s2, s3: live s0 s[2:5] v0 exec
// CHECK-NEXT:      +0x8 s_sub_u32 s0, s0, 1: live s0 s[2:5] v0 exec
// CHECK-NEXT:      +0xc s_cmp_lg_u32 s0, 0: live s0 s[2:5] v0 exec
// CHECK-NEXT:      +0x10 s_cbranch_scc1 ^bb1: live s0 s[2:5] v0 exec scc
// CHECK-NEXT:      live-out s0 s[2:5] v0 exec
// CHECK-NEXT:    ^bb2 +0x14: live-in s2 s[4:5] v0 exec
// CHECK-NEXT:      +0x14 v_mov_b32_e32 v1, s2: live s2 s[4:5] v0 exec
// CHECK-NEXT:      +0x18 global_store_dword v0, v1, s[4:5]: live s[4:5] v[0:1] exec
// CHECK-NEXT:      +0x20 s_endpgm: live none
// CHECK-NEXT:      live-out none
// divergent: lanes with v0 >= 32 are switched off by s_and_saveexec and come back at
// s_or_b64 exec. They still need v1 (= 0) and v0 at the store, so inside ^bb1 v[0:1] are
// live in the inactive lanes, and the active lanes' write of v1 does not end it (v1 is live
// before v_add). The saved mask s[6:7] is live until EXEC is restored; after that EXEC is
// full again and nothing is inactive. v2 is written with every active lane: dead before.
// CHECK-LABEL: liveness @divergent (kernel): live-in s[4:5] v0 exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s[4:5] v0 exec
// CHECK-NEXT:      +0x0 v_mov_b32_e32 v1, 0: live s[4:5] v0 exec
// CHECK-NEXT:      +0x4 v_cmp_gt_u32_e32 vcc, 32, v0: live s[4:5] v[0:1] exec
// CHECK-NEXT:      +0x8 s_and_saveexec_b64 s[6:7], vcc: live s[4:5] v[0:1] vcc exec
// CHECK-NEXT:      +0xc s_cbranch_execz ^bb2: live s[4:7] v[0:1] exec; inactive v[0:1]
// CHECK-NEXT:      live-out s[4:7] v[0:1] exec
// CHECK-NEXT:    ^bb1 +0x10: live-in s[4:7] v[0:1] exec
// CHECK-NEXT:      +0x10 v_mov_b32_e32 v2, 5: live s[4:7] v[0:1] exec; inactive v[0:1]
// CHECK-NEXT:      +0x14 v_add_u32_e32 v1, v2, v0: live s[4:7] v[0:2] exec; inactive v[0:1]
// CHECK-NEXT:      live-out s[4:7] v[0:1] exec
// CHECK-NEXT:    ^bb2 +0x18: live-in s[4:7] v[0:1] exec
// CHECK-NEXT:      +0x18 s_or_b64 exec, exec, s[6:7]: live s[4:7] v[0:1] exec; inactive v[0:1]
// CHECK-NEXT:      +0x1c global_store_dword v0, v1, s[4:5]: live s[4:5] v[0:1] exec
// CHECK-NEXT:      +0x24 s_endpgm: live none
// CHECK-NEXT:      live-out none
// add_one / calls: the call resolves to @add_one (rel32). The callee reads v0 and its
// return address s[30:31]; what is live after the call (v[0:1], s[8:9]) is live at its
// return and through its body. s[30:31] is not live before the call: s_swappc writes it.
// CHECK-LABEL: liveness @add_one (function): live-in s[8:9] s[30:31] v[0:1] exec; live at return s[8:9] v[0:1] exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s[8:9] s[30:31] v[0:1] exec
// CHECK-NEXT:      +0x0 v_add_u32_e32 v0, 1, v0: live s[8:9] s[30:31] v[0:1] exec
// CHECK-NEXT:      +0x4 s_setpc_b64 s[30:31]: live s[8:9] s[30:31] v[0:1] exec
// CHECK-NEXT:      live-out s[8:9] v[0:1] exec
// CHECK-LABEL: liveness @calls (kernel): live-in s[8:9] v[0:1] exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s[8:9] v[0:1] exec
// CHECK-NEXT:      +0x0 s_getpc_b64 s[16:17]: live s[8:9] v[0:1] exec
// CHECK-NEXT:      +0x4 s_add_u32 s16, s16, add_one@rel32@lo+4: live s[8:9] s[16:17] v[0:1] exec
// CHECK-NEXT:      +0xc s_addc_u32 s17, s17, add_one@rel32@hi+12: live s[8:9] s[16:17] v[0:1] exec scc
// CHECK-NEXT:      +0x14 s_swappc_b64 s[30:31], s[16:17]: live s[8:9] s[16:17] v[0:1] exec
// CHECK-NEXT:      +0x18 global_store_dword v1, v0, s[8:9]: live s[8:9] v[0:1] exec
// CHECK-NEXT:      +0x20 s_endpgm: live none
// CHECK-NEXT:      live-out none
// scratch: the private segment buffer s[0:3] gets the wave offset (s7) added and stays live
// until the last buffer access; the value goes through scratch memory, which liveness does
// not track (registers only): v0 is live until the global store, v1 is dead before the load.
// CHECK-LABEL: liveness @scratch (kernel): live-in s[0:5] s7 v0 exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s[0:5] s7 v0 exec
// CHECK-NEXT:      +0x0 s_add_u32 s0, s0, s7: live s[0:5] s7 v0 exec
// CHECK-NEXT:      +0x4 s_addc_u32 s1, s1, 0: live s[0:5] v0 exec scc
// CHECK-NEXT:      +0x8 buffer_store_dword v0, off, s[0:3], 0 offset:4: live s[0:5] v0 exec
// CHECK-NEXT:      +0x10 s_waitcnt vmcnt(0): live s[0:5] v0 exec
// CHECK-NEXT:      +0x14 buffer_load_dword v1, off, s[0:3], 0 offset:4: live s[0:5] v0 exec
// CHECK-NEXT:      +0x1c s_waitcnt vmcnt(0): live s[4:5] v[0:1] exec
// CHECK-NEXT:      +0x20 global_store_dword v0, v1, s[4:5]: live s[4:5] v[0:1] exec
// CHECK-NEXT:      +0x28 s_endpgm: live none
// CHECK-NEXT:      live-out none
// CHECK-NOT:   {{.}}

// free=true: the registers an allocator may take before each instruction: dead, and inside
// the budget of every kernel that may run it. The default descriptor allocates 16 SGPRs (12
// generic: VCC and XNACK_MASK take the top 4) and 8 vector registers, split 4/4 between
// VGPRs and AGPRs at accum_offset 4. @calls allocates 48 SGPRs (44 generic), and @add_one,
// run only by @calls, gets that budget.
// FREE-LABEL: liveness @divergent (kernel): live-in s[4:5] v0 exec
// FREE-NEXT:    ^bb0 +0x0: live-in s[4:5] v0 exec
// FREE-NEXT:      +0x0 v_mov_b32_e32 v1, 0: live s[4:5] v0 exec; free s[0:3] s[6:11] v[1:3] a[0:3]
// FREE-NEXT:      +0x4 v_cmp_gt_u32_e32 vcc, 32, v0: live s[4:5] v[0:1] exec; free s[0:3] s[6:11] v[2:3] a[0:3]
// FREE-NEXT:      +0x8 s_and_saveexec_b64 s[6:7], vcc: live s[4:5] v[0:1] vcc exec; free s[0:3] s[6:11] v[2:3] a[0:3]
// FREE-NEXT:      +0xc s_cbranch_execz ^bb2: live s[4:7] v[0:1] exec; inactive v[0:1]; free s[0:3] s[8:11] v[2:3] a[0:3]
// FREE-NEXT:      live-out s[4:7] v[0:1] exec
// FREE-NEXT:    ^bb1 +0x10: live-in s[4:7] v[0:1] exec
// FREE-NEXT:      +0x10 v_mov_b32_e32 v2, 5: live s[4:7] v[0:1] exec; inactive v[0:1]; free s[0:3] s[8:11] v[2:3] a[0:3]
// FREE-NEXT:      +0x14 v_add_u32_e32 v1, v2, v0: live s[4:7] v[0:2] exec; inactive v[0:1]; free s[0:3] s[8:11] v3 a[0:3]
// FREE-NEXT:      live-out s[4:7] v[0:1] exec
// FREE-NEXT:    ^bb2 +0x18: live-in s[4:7] v[0:1] exec
// FREE-NEXT:      +0x18 s_or_b64 exec, exec, s[6:7]: live s[4:7] v[0:1] exec; inactive v[0:1]; free s[0:3] s[8:11] v[2:3] a[0:3]
// FREE-NEXT:      +0x1c global_store_dword v0, v1, s[4:5]: live s[4:5] v[0:1] exec; free s[0:3] s[6:11] v[2:3] a[0:3]
// FREE-NEXT:      +0x24 s_endpgm: live none; free s[0:11] v[0:3] a[0:3]
// FREE-NEXT:      live-out none
// FREE-LABEL: liveness @add_one (function): live-in s[8:9] s[30:31] v[0:1] exec; live at return s[8:9] v[0:1] exec
// FREE-NEXT:    ^bb0 +0x0: live-in s[8:9] s[30:31] v[0:1] exec
// FREE-NEXT:      +0x0 v_add_u32_e32 v0, 1, v0: live s[8:9] s[30:31] v[0:1] exec; free s[0:7] s[10:29] s[32:43] v[2:3] a[0:3]
// FREE-NEXT:      +0x4 s_setpc_b64 s[30:31]: live s[8:9] s[30:31] v[0:1] exec; free s[0:7] s[10:29] s[32:43] v[2:3] a[0:3]
// FREE-NEXT:      live-out s[8:9] v[0:1] exec
// FREE-LABEL: liveness @calls (kernel): live-in s[8:9] v[0:1] exec
// FREE-NEXT:    ^bb0 +0x0: live-in s[8:9] v[0:1] exec
// FREE-NEXT:      +0x0 s_getpc_b64 s[16:17]: live s[8:9] v[0:1] exec; free s[0:7] s[10:43] v[2:3] a[0:3]
// FREE-NEXT:      +0x4 s_add_u32 s16, s16, add_one@rel32@lo+4: live s[8:9] s[16:17] v[0:1] exec; free s[0:7] s[10:15] s[18:43] v[2:3] a[0:3]
// FREE-NEXT:      +0xc s_addc_u32 s17, s17, add_one@rel32@hi+12: live s[8:9] s[16:17] v[0:1] exec scc; free s[0:7] s[10:15] s[18:43] v[2:3] a[0:3]
// FREE-NEXT:      +0x14 s_swappc_b64 s[30:31], s[16:17]: live s[8:9] s[16:17] v[0:1] exec; free s[0:7] s[10:15] s[18:43] v[2:3] a[0:3]
// FREE-NEXT:      +0x18 global_store_dword v1, v0, s[8:9]: live s[8:9] v[0:1] exec; free s[0:7] s[10:43] v[2:3] a[0:3]
// FREE-NEXT:      +0x20 s_endpgm: live none; free s[0:43] v[0:3] a[0:3]
// FREE-NEXT:      live-out none

// print-register-usage: registers touched by the kernel and its callees, those the hardware
// initialises at entry (user SGPRs, then workgroup id and scratch wave offset; v0 holds the
// packed workitem ids on gfx90a), the budget from the descriptor, and what is never used
// inside it.
// USAGE-LABEL: registers @straight_line: touched s[0:1] s[4:5] v[0:1] exec
// USAGE-NEXT:    entry s[0:5] v0
// USAGE-NEXT:    runs @straight_line
// USAGE-NEXT:    budget sgprs 6/12 (allocated 16), vgprs 2/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s[2:3] s[6:11] v[2:3] a[0:3]
// USAGE-LABEL: registers @diamond: touched s[0:2] s[4:5] v[0:1] exec scc
// USAGE-NEXT:    entry s[0:5] v0
// USAGE-NEXT:    runs @diamond
// USAGE-NEXT:    budget sgprs 6/12 (allocated 16), vgprs 2/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s3 s[6:11] v[2:3] a[0:3]
// USAGE-LABEL: registers @loop: touched s0 s[2:5] v[0:1] exec scc
// USAGE-NEXT:    entry s[0:5] v0
// USAGE-NEXT:    runs @loop
// USAGE-NEXT:    budget sgprs 6/12 (allocated 16), vgprs 2/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s1 s[6:11] v[2:3] a[0:3]
// USAGE-LABEL: registers @divergent: touched s[4:7] v[0:2] vcc exec scc
// USAGE-NEXT:    entry s[0:5] v0
// USAGE-NEXT:    runs @divergent
// USAGE-NEXT:    budget sgprs 8/12 (allocated 16), vgprs 3/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s[0:3] s[8:11] v3 a[0:3]
// USAGE-LABEL: registers @calls: touched s[8:9] s[16:17] s[30:31] v[0:1] exec scc
// USAGE-NEXT:    entry s[0:9] v0
// USAGE-NEXT:    runs @add_one, @calls
// USAGE-NEXT:    budget sgprs 32/44 (allocated 48), vgprs 2/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s[0:7] s[10:15] s[18:29] s[32:43] v[2:3] a[0:3]
// USAGE-LABEL: registers @scratch: touched s[0:5] s7 v[0:1] exec scc
// USAGE-NEXT:    entry s[0:7] v0
// USAGE-NEXT:    runs @scratch
// USAGE-NEXT:    budget sgprs 8/12 (allocated 16), vgprs 2/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s6 s[8:11] v[2:3] a[0:3]
// USAGE-NOT:   {{.}}
