// Call-site resolution on hand-written sequences: what resolves (rel32, a GOT load, abs32
// halves, copies, a single-predecessor chain, a tail call) and what must not (a join, an
// argument, a clobbering call, a broken carry, an address inside a function, a load from
// memory). Unknown targets are reported with the instruction or join that made them unknown.
// RUN: luthier-opt %s -p print-callgraph 2>&1 >/dev/null | filecheck %s --check-prefix=CG
// RUN: luthier-opt %s -p print-cfg 2>&1 >/dev/null | filecheck %s --check-prefix=CFG

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @callee {
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  amdgpu_mc.func @other {
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  // Through the GOT, then copied: resolves to @callee.
  amdgpu_mc.kernel @got_call <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, callee@gotpcrel32@lo+4
    amdgpu_mc.s_addc_u32 s5, s5, callee@gotpcrel32@hi+12
    amdgpu_mc.s_load_dwordx2 s[16:17], s[4:5], 0x0
    amdgpu_mc.s_mov_b64 s[18:19], s[16:17]
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.s_swappc_b64 s[30:31], s[18:19]
    amdgpu_mc.s_endpgm
  }
  // abs32 halves set in ^bb0, copied with s_mov_b32 in ^bb1 (whose only predecessor is ^bb0).
  amdgpu_mc.kernel @abs_chain <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s6, other@abs32@lo
    amdgpu_mc.s_mov_b32 s7, other@abs32@hi
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_mov_b32 s9, s7
    amdgpu_mc.s_mov_b32 s8, s6
    amdgpu_mc.s_swappc_b64 s[30:31], s[8:9]
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  // Two different callees reach the call through a join: unknown.
  amdgpu_mc.kernel @join <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, callee@rel32@lo+4
    amdgpu_mc.s_addc_u32 s5, s5, callee@rel32@hi+12
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, other@rel32@lo+4
    amdgpu_mc.s_addc_u32 s5, s5, other@rel32@hi+12
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_swappc_b64 s[30:31], s[4:5]
    amdgpu_mc.s_endpgm
  }
  // A target the function receives: unknown. The first call resolves; the second reuses
  // s[16:17] after that call, which may have clobbered it: unknown.
  amdgpu_mc.func @argument_and_clobber {
    amdgpu_mc.s_swappc_b64 s[30:31], s[4:5]
    amdgpu_mc.s_getpc_b64 s[16:17]
    amdgpu_mc.s_add_u32 s16, s16, callee@rel32@lo+4
    amdgpu_mc.s_addc_u32 s17, s17, callee@rel32@hi+12
    amdgpu_mc.s_swappc_b64 s[30:31], s[16:17]
    amdgpu_mc.s_swappc_b64 s[30:31], s[16:17]
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  // The high add does not consume the low add's carry (s_add_u32 s0 wrote SCC in between),
  // and an address 8 bytes into @callee: both unknown.
  amdgpu_mc.kernel @bad_address <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, callee@rel32@lo+4
    amdgpu_mc.s_add_u32 s0, s0, 1
    amdgpu_mc.s_addc_u32 s5, s5, callee@rel32@hi+16
    amdgpu_mc.s_swappc_b64 s[30:31], s[4:5]
    amdgpu_mc.s_getpc_b64 s[6:7]
    amdgpu_mc.s_add_u32 s6, s6, callee@rel32@lo+12
    amdgpu_mc.s_addc_u32 s7, s7, callee@rel32@hi+20
    amdgpu_mc.s_swappc_b64 s[30:31], s[6:7]
    amdgpu_mc.s_endpgm
  }
  // A tail call: s_setpc_b64 to @other's entry.
  amdgpu_mc.func @tail_call {
    amdgpu_mc.s_getpc_b64 s[16:17]
    amdgpu_mc.s_add_u32 s16, s16, other@rel32@lo+4
    amdgpu_mc.s_addc_u32 s17, s17, other@rel32@hi+12
    amdgpu_mc.s_setpc_b64 s[16:17]
  }
  // A jump to an address loaded from memory: an indirect branch with unknown targets.
  amdgpu_mc.kernel @indirect_jump <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[4:5], s[0:1], 0x0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    amdgpu_mc.s_setpc_b64 s[4:5]
  }
  // A kernel has no return address: s_setpc_b64 s[30:31] there is an indirect branch.
  amdgpu_mc.kernel @kernel_setpc <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  // Mutual recursion: @ping tail-calls @pong, which calls @ping.
  amdgpu_mc.func @ping {
    amdgpu_mc.s_getpc_b64 s[16:17]
    amdgpu_mc.s_add_u32 s16, s16, pong@rel32@lo+4
    amdgpu_mc.s_addc_u32 s17, s17, pong@rel32@hi+12
    amdgpu_mc.s_setpc_b64 s[16:17]
  }
  amdgpu_mc.func @pong {
    amdgpu_mc.s_mov_b64 s[34:35], s[30:31]
    amdgpu_mc.s_getpc_b64 s[16:17]
    amdgpu_mc.s_add_u32 s16, s16, ping@rel32@lo+4
    amdgpu_mc.s_addc_u32 s17, s17, ping@rel32@hi+12
    amdgpu_mc.s_swappc_b64 s[30:31], s[16:17]
    amdgpu_mc.s_mov_b64 s[30:31], s[34:35]
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  // A call to a symbol that is not a function of this code object.
  amdgpu_mc.kernel @external_call <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, elsewhere@rel32@lo+4
    amdgpu_mc.s_addc_u32 s5, s5, elsewhere@rel32@hi+12
    amdgpu_mc.s_swappc_b64 s[30:31], s[4:5]
    amdgpu_mc.s_endpgm
  }
}

// CG:      callgraph "gfx90a": 13 functions, 7 kernels, 12 components
// CG-NEXT:   @callee (function)
// CG-NEXT:     callers @got_call, @argument_and_clobber
// CG-NEXT:   @other (function)
// CG-NEXT:     callers @abs_chain, @tail_call
// CG-NEXT:   @got_call (kernel)
// CG-NEXT:     callers none
// CG-NEXT:     call ^bb0 +0x24: s_swappc_b64 s[18:19] -> @callee via s_getpc_b64 + gotpcrel32, loaded from the GOT
// CG-NEXT:     reaches @callee
// CG-NEXT:   @abs_chain (kernel)
// CG-NEXT:     callers none
// CG-NEXT:     call ^bb1 +0x20: s_swappc_b64 s[8:9] -> @other via abs32 address
// CG-NEXT:     reaches @other
// CG-NEXT:   @join (kernel)
// CG-NEXT:     callers none
// CG-NEXT:     call ^bb2 +0x30: s_swappc_b64 s[4:5] -> unknown: s4 is not written between the entry of ^bb2 and this point, and ^bb2 has 2 predecessors
// CG-NEXT:     reaches no other function; unknown (1 unknown-target call sites)
// CG-NEXT:   @argument_and_clobber (function)
// CG-NEXT:     callers none
// CG-NEXT:     call ^bb0 +0x0: s_swappc_b64 s[4:5] -> unknown: s4 is not written in the function before this point (a value the function receives)
// CG-NEXT:     call ^bb0 +0x18: s_swappc_b64 s[16:17] -> @callee via s_getpc_b64 + rel32
// CG-NEXT:     call ^bb0 +0x1c: s_swappc_b64 s[16:17] -> unknown: s16 is clobbered by the call at ^bb0 +0x18
// CG-NEXT:   @bad_address (kernel)
// CG-NEXT:     callers none
// CG-NEXT:     call ^bb0 +0x18: s_swappc_b64 s[4:5] -> unknown: s5 is written by s_addc_u32 at ^bb0 +0x10, whose carry does not come from the matching s_add_u32
// CG-NEXT:     call ^bb0 +0x30: s_swappc_b64 s[6:7] -> unknown: s[6:7] holds the address callee+0x8, which is not the entry of a symbol
// CG-NEXT:     reaches no other function; unknown (2 unknown-target call sites)
// CG-NEXT:   @tail_call (function)
// CG-NEXT:     callers none
// CG-NEXT:     tail-call ^bb0 +0x14: s_setpc_b64 s[16:17] -> @other via s_getpc_b64 + rel32
// CG-NEXT:   @indirect_jump (kernel)
// CG-NEXT:     callers none
// CG-NEXT:     tail-call ^bb0 +0xc: s_setpc_b64 s[4:5] -> unknown: s4 is written by s_load_dwordx2 at ^bb0 +0x0
// CG-NEXT:     reaches no other function; unknown (1 unknown-target call sites)
// CG-NEXT:   @kernel_setpc (kernel)
// CG-NEXT:     callers none
// CG-NEXT:     tail-call ^bb0 +0x0: s_setpc_b64 s[30:31] -> unknown: s30 is not written in the function before this point (a value the function receives)
// CG-NEXT:     reaches no other function; unknown (1 unknown-target call sites)
// CG-NEXT:   @ping (function, recursive)
// CG-NEXT:     callers @pong
// CG-NEXT:     tail-call ^bb0 +0x14: s_setpc_b64 s[16:17] -> @pong via s_getpc_b64 + rel32
// CG-NEXT:   @pong (function, recursive)
// CG-NEXT:     callers @ping
// CG-NEXT:     call ^bb0 +0x18: s_swappc_b64 s[16:17] -> @ping via s_getpc_b64 + rel32
// CG-NEXT:   @external_call (kernel)
// CG-NEXT:     callers none
// CG-NEXT:     call ^bb0 +0x14: s_swappc_b64 s[4:5] -> @elsewhere via s_getpc_b64 + rel32
// CG-NEXT:     reaches no other function; external @elsewhere
// CG-NEXT:   bottom-up:
// CG-NEXT:     @callee
// CG-NEXT:     @other
// CG-NEXT:     @got_call
// CG-NEXT:     @abs_chain
// CG-NEXT:     @join
// CG-NEXT:     @argument_and_clobber
// CG-NEXT:     @bad_address
// CG-NEXT:     @tail_call
// CG-NEXT:     @indirect_jump
// CG-NEXT:     @kernel_setpc
// CG-NEXT:     @ping, @pong (recursive)
// CG-NEXT:     @external_call
// CG-NEXT:   warning: @join ^bb2: s_swappc_b64 s[4:5] has an unknown target: s4 is not written between the entry of ^bb2 and this point, and ^bb2 has 2 predecessors
// CG-NEXT:   warning: @argument_and_clobber ^bb0: s_swappc_b64 s[4:5] has an unknown target: s4 is not written in the function before this point (a value the function receives)
// CG-NEXT:   warning: @argument_and_clobber ^bb0: s_swappc_b64 s[16:17] has an unknown target: s16 is clobbered by the call at ^bb0 +0x18
// CG-NEXT:   warning: @bad_address ^bb0: s_swappc_b64 s[4:5] has an unknown target: s5 is written by s_addc_u32 at ^bb0 +0x10, whose carry does not come from the matching s_add_u32
// CG-NEXT:   warning: @bad_address ^bb0: s_swappc_b64 s[6:7] has an unknown target: s[6:7] holds the address callee+0x8, which is not the entry of a symbol
// CG-NEXT:   warning: @indirect_jump ^bb0: s_setpc_b64 s[4:5] is an indirect branch with unknown targets: s4 is written by s_load_dwordx2 at ^bb0 +0x0
// CG-NEXT:   warning: @kernel_setpc ^bb0: s_setpc_b64 s[30:31] is an indirect branch with unknown targets: s30 is not written in the function before this point (a value the function receives)
// CG-NEXT:   warning: @external_call ^bb0: s_swappc_b64 calls elsewhere, not a function of this code object
// CG-NOT:  {{.}}

// CFG:      cfg @callee (function): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit return
// CFG:      cfg @other (function): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit return
// CFG:      cfg @got_call (kernel): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit endpgm
// CFG-NEXT:   call ^bb0 +0x24: s_swappc_b64 s[18:19] -> @callee via s_getpc_b64 + gotpcrel32, loaded from the GOT
// CFG:      cfg @abs_chain (kernel): 3 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs ^bb2, ^bb1; idom none; loop none
// CFG-NEXT:   ^bb1 +0x18: preds ^bb0; succs ^bb2; idom ^bb0; loop none
// CFG-NEXT:   ^bb2 +0x24: preds ^bb0, ^bb1; succs none; idom ^bb0; loop none; exit endpgm
// CFG-NEXT:   call ^bb1 +0x20: s_swappc_b64 s[8:9] -> @other via abs32 address
// CFG:      cfg @join (kernel): 3 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs ^bb2, ^bb1; idom none; loop none
// CFG-NEXT:   ^bb1 +0x1c: preds ^bb0; succs ^bb2; idom ^bb0; loop none
// CFG-NEXT:   ^bb2 +0x30: preds ^bb0, ^bb1; succs none; idom ^bb0; loop none; exit endpgm
// CFG-NEXT:   call ^bb2 +0x30: s_swappc_b64 s[4:5] -> unknown: s4 is not written between the entry of ^bb2 and this point, and ^bb2 has 2 predecessors
// CFG:      cfg @argument_and_clobber (function): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit return
// CFG-NEXT:   call ^bb0 +0x0: s_swappc_b64 s[4:5] -> unknown: s4 is not written in the function before this point (a value the function receives)
// CFG-NEXT:   call ^bb0 +0x18: s_swappc_b64 s[16:17] -> @callee via s_getpc_b64 + rel32
// CFG-NEXT:   call ^bb0 +0x1c: s_swappc_b64 s[16:17] -> unknown: s16 is clobbered by the call at ^bb0 +0x18
// CFG:      cfg @bad_address (kernel): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit endpgm
// CFG-NEXT:   call ^bb0 +0x18: s_swappc_b64 s[4:5] -> unknown: s5 is written by s_addc_u32 at ^bb0 +0x10, whose carry does not come from the matching s_add_u32
// CFG-NEXT:   call ^bb0 +0x30: s_swappc_b64 s[6:7] -> unknown: s[6:7] holds the address callee+0x8, which is not the entry of a symbol
// CFG:      cfg @tail_call (function): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit tail-call
// CFG-NEXT:   tail-call ^bb0 +0x14: s_setpc_b64 s[16:17] -> @other via s_getpc_b64 + rel32
// CFG:      cfg @indirect_jump (kernel): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit indirect-branch
// CFG-NEXT:   tail-call ^bb0 +0xc: s_setpc_b64 s[4:5] -> unknown: s4 is written by s_load_dwordx2 at ^bb0 +0x0
// CFG-NEXT:   warning: @indirect_jump ^bb0: s_setpc_b64 s[4:5] is an indirect branch with unknown targets: s4 is written by s_load_dwordx2 at ^bb0 +0x0
// CFG:      cfg @kernel_setpc (kernel): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit indirect-branch
// CFG-NEXT:   tail-call ^bb0 +0x0: s_setpc_b64 s[30:31] -> unknown: s30 is not written in the function before this point (a value the function receives)
// CFG-NEXT:   warning: @kernel_setpc ^bb0: s_setpc_b64 s[30:31] is an indirect branch with unknown targets: s30 is not written in the function before this point (a value the function receives)
// CFG:      cfg @ping (function): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit tail-call
// CFG-NEXT:   tail-call ^bb0 +0x14: s_setpc_b64 s[16:17] -> @pong via s_getpc_b64 + rel32
// CFG:      cfg @pong (function): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit return
// CFG-NEXT:   call ^bb0 +0x18: s_swappc_b64 s[16:17] -> @ping via s_getpc_b64 + rel32
// CFG:      cfg @external_call (kernel): 1 blocks, 0 loops, 0 unreachable
// CFG-NEXT:   ^bb0 +0x0: preds none; succs none; idom none; loop none; exit endpgm
// CFG-NEXT:   call ^bb0 +0x14: s_swappc_b64 s[4:5] -> @elsewhere via s_getpc_b64 + rel32
