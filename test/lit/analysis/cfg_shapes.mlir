// print-cfg on hand-written shapes: a diamond, a self-loop, an unreachable block, nested
// loops, and an irreducible cycle (two entries). Blocks are named by layout index, offsets
// are bytes from the function's first instruction (every instruction here is 4 bytes; the
// fall-through op takes none).
// RUN: luthier-opt %s -p print-cfg 2>&1 >/dev/null | filecheck %s
// The IR is not changed.
// RUN: luthier-opt %s -p print-cfg 2>/dev/null | filecheck %s --check-prefix=IR

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  // if (s0 == 0) {^bb1} else {^bb2}; join at ^bb3.
  amdgpu_mc.kernel @diamond <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_mov_b32 s1, 1
    amdgpu_mc.s_branch ^bb3
  ^bb2:
    amdgpu_mc.s_mov_b32 s1, 2
    amdgpu_mc.fallthrough ^bb3
  ^bb3:
    amdgpu_mc.s_endpgm
  }
  // A one-block loop.
  amdgpu_mc.kernel @self_loop <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s0, 8
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.s_sub_u32 s0, s0, 1
    amdgpu_mc.s_cmp_lg_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb2
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  // ^bb2 is never reached: the entry branches over it; it falls into the exit.
  amdgpu_mc.kernel @unreachable <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_branch ^bb3
  ^bb1:
    amdgpu_mc.s_endpgm
  ^bb2:
    amdgpu_mc.s_mov_b32 s0, 0
    amdgpu_mc.fallthrough ^bb3
  ^bb3:
    amdgpu_mc.s_branch ^bb1
  }
  // for (i) { for (j) {^bb2} ^bb3 }: inner loop ^bb2 in outer loop ^bb1.
  amdgpu_mc.kernel @nested_loops <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 s0, 4
    amdgpu_mc.fallthrough ^bb1
  ^bb1:
    amdgpu_mc.s_mov_b32 s1, 4
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_sub_u32 s1, s1, 1
    amdgpu_mc.s_cmp_lg_u32 s1, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb3
  ^bb3:
    amdgpu_mc.s_sub_u32 s0, s0, 1
    amdgpu_mc.s_cmp_lg_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb4
  ^bb4:
    amdgpu_mc.s_endpgm
  }
  // ^bb1 and ^bb2 form a cycle entered at both: no natural loop, a warning.
  amdgpu_mc.kernel @irreducible <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_cmp_eq_u32 s1, 0
    amdgpu_mc.s_cbranch_scc1 ^bb3, ^bb2
  ^bb2:
    amdgpu_mc.s_cmp_eq_u32 s2, 0
    amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb3
  ^bb3:
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      cfg @diamond (kernel): 4 blocks, 0 loops, 0 unreachable
// CHECK-NEXT:   ^bb0 +0x0: preds none; succs ^bb2, ^bb1; idom none; loop none
// CHECK-NEXT:   ^bb1 +0x8: preds ^bb0; succs ^bb3; idom ^bb0; loop none
// CHECK-NEXT:   ^bb2 +0x10: preds ^bb0; succs ^bb3; idom ^bb0; loop none
// CHECK-NEXT:   ^bb3 +0x14: preds ^bb1, ^bb2; succs none; idom ^bb0; loop none; exit endpgm
// CHECK-NEXT: cfg @self_loop (kernel): 3 blocks, 1 loops, 0 unreachable
// CHECK-NEXT:   ^bb0 +0x0: preds none; succs ^bb1; idom none; loop none
// CHECK-NEXT:   ^bb1 +0x4: preds ^bb0, ^bb1; succs ^bb1, ^bb2; idom ^bb0; loop ^bb1
// CHECK-NEXT:   ^bb2 +0x10: preds ^bb1; succs none; idom ^bb1; loop none; exit endpgm
// CHECK-NEXT:   loop ^bb1: depth 1; parent none; blocks ^bb1; back edges ^bb1->^bb1; exits ^bb1->^bb2
// CHECK-NEXT: cfg @unreachable (kernel): 4 blocks, 0 loops, 1 unreachable
// CHECK-NEXT:   ^bb0 +0x0: preds none; succs ^bb3; idom none; loop none
// CHECK-NEXT:   ^bb1 +0x4: preds ^bb3; succs none; idom ^bb3; loop none; exit endpgm
// CHECK-NEXT:   ^bb2 +0x8: preds none; succs ^bb3; idom unreachable; loop none
// CHECK-NEXT:   ^bb3 +0xc: preds ^bb0, ^bb2; succs ^bb1; idom ^bb0; loop none
// CHECK-NEXT:   warning: @unreachable: unreachable from the entry: ^bb2 (no dominators, in no loop)
// CHECK-NEXT: cfg @nested_loops (kernel): 5 blocks, 2 loops, 0 unreachable
// CHECK-NEXT:   ^bb0 +0x0: preds none; succs ^bb1; idom none; loop none
// CHECK-NEXT:   ^bb1 +0x4: preds ^bb0, ^bb3; succs ^bb2; idom ^bb0; loop ^bb1
// CHECK-NEXT:   ^bb2 +0x8: preds ^bb1, ^bb2; succs ^bb2, ^bb3; idom ^bb1; loop ^bb2
// CHECK-NEXT:   ^bb3 +0x14: preds ^bb2; succs ^bb1, ^bb4; idom ^bb2; loop ^bb1
// CHECK-NEXT:   ^bb4 +0x20: preds ^bb3; succs none; idom ^bb3; loop none; exit endpgm
// CHECK-NEXT:   loop ^bb1: depth 1; parent none; blocks ^bb1, ^bb2, ^bb3; back edges ^bb3->^bb1; exits ^bb3->^bb4
// CHECK-NEXT:   loop ^bb2: depth 2; parent ^bb1; blocks ^bb2; back edges ^bb2->^bb2; exits ^bb2->^bb3
// CHECK-NEXT: cfg @irreducible (kernel): 4 blocks, 0 loops, 0 unreachable
// CHECK-NEXT:   ^bb0 +0x0: preds none; succs ^bb2, ^bb1; idom none; loop none
// CHECK-NEXT:   ^bb1 +0x8: preds ^bb0, ^bb2; succs ^bb3, ^bb2; idom ^bb0; loop none
// CHECK-NEXT:   ^bb2 +0x10: preds ^bb0, ^bb1; succs ^bb1, ^bb3; idom ^bb0; loop none
// CHECK-NEXT:   ^bb3 +0x18: preds ^bb1, ^bb2; succs none; idom ^bb0; loop none; exit endpgm
// The depth-first walk (taken successor first) goes ^bb0 ^bb2 ^bb1, so ^bb1 -> ^bb2 is the
// edge that closes the cycle.
// CHECK-NEXT:   warning: @irreducible: irreducible control flow: the edge ^bb1 -> ^bb2 closes a cycle that ^bb2 does not dominate
// CHECK-NOT:  {{.}}

// IR:      amdgpu_mc.kernel @diamond
// IR:      amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
