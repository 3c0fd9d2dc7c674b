// Liveness and register usage on bad input: an unreachable block, a self-loop, an indirect
// branch with unknown targets, a kernel whose code does not fit its descriptor, and a call
// to an unknown target. Each gives a conservative answer and a warning, never a crash.
// Every line was checked by hand.
// RUN: luthier-opt %s -p print-liveness 2>&1 >/dev/null | filecheck %s
// RUN: luthier-opt %s -p print-register-usage 2>&1 >/dev/null | filecheck %s --check-prefix=USAGE

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @unreachable_block <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_branch ^bb2
  ^bb1:
    amdgpu_mc.s_mov_b32 s3, s9
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.v_mov_b32_e32 v1, s3
    amdgpu_mc.global_store_dword v0, v1, s[4:5]
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @self_loop <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.s_sub_u32 s0, s0, 1
    amdgpu_mc.s_cmp_lg_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @indirect_branch <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s2, 0
    amdgpu_mc.s_setpc_b64 s[4:5]
  }
  // Uses s40 and v9 with the default descriptor (12 generic SGPRs, 4 VGPRs).
  amdgpu_mc.kernel @over_budget <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s40, 0
    amdgpu_mc.v_mov_b32_e32 v9, s40
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @unknown_call <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc1.granulated_wavefront_sgpr_count = 4>}> {
    amdgpu_mc.s_load_dwordx2 s[16:17], s[4:5], 0x0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.s_swappc_b64 s[30:31], s[16:17]
    amdgpu_mc.s_endpgm
  }
}

// unreachable_block: ^bb1 is never reached; it is still analysed (its live-in is what it
// would need), it is marked, and the CFG's warning says so. It changes nothing for the
// reachable blocks: s9 is not live at the entry.
// CHECK-LABEL: liveness @unreachable_block (kernel): live-in s[3:5] v0 exec
// CHECK-NEXT:    ^bb0 +0x0: live-in s[3:5] v0 exec
// CHECK-NEXT:      +0x0 s_branch ^bb2: live s[3:5] v0 exec
// CHECK-NEXT:      live-out s[3:5] v0 exec
// CHECK-NEXT:    ^bb1 +0x4: live-in s[4:5] s9 v0 exec (unreachable)
// CHECK-NEXT:      +0x4 s_mov_b32 s3, s9: live s[4:5] s9 v0 exec
// CHECK-NEXT:      live-out s[3:5] v0 exec
// CHECK-NEXT:    ^bb2 +0x8: live-in s[3:5] v0 exec
// CHECK-NEXT:      +0x8 v_mov_b32_e32 v1, s3: live s[3:5] v0 exec
// CHECK-NEXT:      +0xc global_store_dword v0, v1, s[4:5]: live s[4:5] v[0:1] exec
// CHECK-NEXT:      +0x14 s_endpgm: live none
// CHECK-NEXT:      live-out none
// CHECK-NEXT:    warning: @unreachable_block: unreachable from the entry: ^bb1 (no dominators, in no loop)
// self_loop: a block that is its own successor; the counter s0 is live around the loop.
// CHECK-LABEL: liveness @self_loop (kernel): live-in s0
// CHECK-NEXT:    ^bb0 +0x0: live-in s0
// CHECK-NEXT:      live-out s0
// CHECK-NEXT:    ^bb1 +0x0: live-in s0
// CHECK-NEXT:      +0x0 s_sub_u32 s0, s0, 1: live s0
// CHECK-NEXT:      +0x4 s_cmp_lg_u32 s0, 0: live s0
// CHECK-NEXT:      +0x8 s_cbranch_scc1 ^bb1: live s0 scc
// CHECK-NEXT:      live-out s0
// CHECK-NEXT:    ^bb2 +0xc: live-in none
// CHECK-NEXT:      +0xc s_endpgm: live none
// CHECK-NEXT:      live-out none
// indirect_branch: s_setpc_b64 to an address the function received: every register is
// live before it, in active and inactive lanes, with a warning from the CFG (where) and one
// from liveness (what it assumes).
// CHECK-LABEL: liveness @indirect_branch (kernel): live-in s[0:1] s[3:105] ttmp[0:15] v[0:255] a[0:255] vcc exec flat_scratch xnack_mask tba tma scc m0 mode
// CHECK-NEXT:    ^bb0 +0x0: live-in s[0:1] s[3:105] ttmp[0:15] v[0:255] a[0:255] vcc exec flat_scratch xnack_mask tba tma scc m0 mode
// CHECK-NEXT:      +0x0 s_mov_b32 s2, 0: live s[0:1] s[3:105] ttmp[0:15] v[0:255] a[0:255] vcc exec flat_scratch xnack_mask tba tma scc m0 mode
// CHECK-NEXT:      +0x4 s_setpc_b64 s[4:5]: live s[0:105] ttmp[0:15] v[0:255] a[0:255] vcc exec flat_scratch xnack_mask tba tma scc m0 mode; inactive v[0:255] a[0:255]
// CHECK-NEXT:      live-out s[0:105] ttmp[0:15] v[0:255] a[0:255] vcc exec flat_scratch xnack_mask tba tma scc m0 mode
// CHECK-NEXT:    warning: @indirect_branch ^bb0: s_setpc_b64 s[4:5] is an indirect branch with unknown targets: s4 is not written in the function before this point (a value the function receives)
// CHECK-NEXT:    warning: @indirect_branch ^bb0: leaves the function for code we do not follow (indirect-branch): everything is live before it
// over_budget: liveness does not look at the descriptor; register usage does (below).
// CHECK-LABEL: liveness @over_budget (kernel): live-in exec
// CHECK-NEXT:    ^bb0 +0x0: live-in exec
// CHECK-NEXT:      +0x0 s_mov_b32 s40, 0: live exec
// CHECK-NEXT:      +0x4 v_mov_b32_e32 v9, s40: live s40 exec
// CHECK-NEXT:      +0x8 s_endpgm: live none
// CHECK-NEXT:      live-out none
// unknown_call: a call through a loaded pointer reads every argument register of the
// calling convention (s[0:29], s32, s33, v[0:31], EXEC, FLAT_SCRATCH, M0, MODE), and says so.
// s[16:17] (the target) is written by the load, s[30:31] by the call: neither is live
// before them.
// CHECK-LABEL: liveness @unknown_call (kernel): live-in s[0:15] s[18:29] s[32:33] v[0:31] exec flat_scratch m0 mode
// CHECK-NEXT:    ^bb0 +0x0: live-in s[0:15] s[18:29] s[32:33] v[0:31] exec flat_scratch m0 mode
// CHECK-NEXT:      +0x0 s_load_dwordx2 s[16:17], s[4:5], 0x0: live s[0:15] s[18:29] s[32:33] v[0:31] exec flat_scratch m0 mode
// CHECK-NEXT:      +0x8 s_waitcnt lgkmcnt(0): live s[0:29] s[32:33] v[0:31] exec flat_scratch m0 mode
// CHECK-NEXT:      +0xc s_swappc_b64 s[30:31], s[16:17]: live s[0:29] s[32:33] v[0:31] exec flat_scratch m0 mode
// CHECK-NEXT:      +0x10 s_endpgm: live none
// CHECK-NEXT:      live-out none
// CHECK-NEXT:    warning: @unknown_call ^bb0: s_swappc_b64 calls an unknown target: assuming it reads every argument register
// CHECK-NOT:   {{.}}

// Register usage: an indirect branch may run any code, so every register counts as touched
// and nothing is free for the whole kernel. A kernel using registers past its descriptor's
// allocation is reported (the descriptor is inconsistent). The unknown call's possible
// targets are the object's device functions (none here).
// USAGE-LABEL: registers @unreachable_block: touched s[3:5] s9 v[0:1] exec
// USAGE-NEXT:    entry v0
// USAGE-NEXT:    runs @unreachable_block
// USAGE-NEXT:    budget sgprs 10/12 (allocated 16), vgprs 2/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s[0:2] s[6:8] s[10:11] v[2:3] a[0:3]
// USAGE-LABEL: registers @self_loop: touched s0 scc
// USAGE-NEXT:    entry v0
// USAGE-NEXT:    runs @self_loop
// USAGE-NEXT:    budget sgprs 1/12 (allocated 16), vgprs 0/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s[1:11] v[0:3] a[0:3]
// USAGE-LABEL: registers @indirect_branch: touched every register: @indirect_branch branches to an unknown address
// USAGE-NEXT:    entry v0
// USAGE-NEXT:    runs @indirect_branch and code we cannot see
// USAGE-NEXT:    budget sgprs 10 (allocated 16), vgprs 4, agprs 4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used none
// USAGE-LABEL: registers @over_budget: touched s40 v9 exec
// USAGE-NEXT:    entry v0
// USAGE-NEXT:    runs @over_budget
// USAGE-NEXT:    budget sgprs 41/12 (allocated 16), vgprs 10/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s[0:11] v[0:3] a[0:3]
// USAGE-NEXT:    warning: @over_budget uses s40, past the 12 SGPRs its descriptor allocates: the descriptor is inconsistent
// USAGE-NEXT:    warning: @over_budget uses v9, past the 4 VGPRs its descriptor allocates: the descriptor is inconsistent
// USAGE-LABEL: registers @unknown_call: touched s[4:5] s[16:17] s[30:31]
// USAGE-NEXT:    entry v0
// USAGE-NEXT:    runs @unknown_call (unknown call targets: every device function)
// USAGE-NEXT:    budget sgprs 32/44 (allocated 48), vgprs 0/4, agprs 0/4 (allocated 8, unified), waves per SIMD 8
// USAGE-NEXT:    never used s[0:3] s[6:15] s[18:29] s[32:43] v[0:3] a[0:3]
// USAGE-NOT:   {{.}}
