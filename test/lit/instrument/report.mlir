// print-instrumentation-report after allocation (the input of regalloc_spill.mlir, with
// budget growth). Checked by hand: one payload of one instruction (the intrinsic is not an
// instruction) before #0; it uses v4, past the budget of v0-v3. Before: 12 SGPRs (16
// allocated less VCC and XNACK_MASK), v0-v3 and a0-a3 in 8 vector registers, 8 waves per
// SIMD. After: 5 VGPRs rounded up to 8 (accum_offset is a multiple of 4), no AGPR used, still
// 8 vector registers allocated: the allocation and occupancy are unchanged.
// RUN: luthier-opt %S/regalloc_spill.mlir -p allocate-payload-registers,print-instrumentation-report 2>&1 >/dev/null | filecheck %s
// The IR is not changed.
// RUN: luthier-opt %S/regalloc_spill.mlir -p allocate-payload-registers > %t.before.mlir
// RUN: luthier-opt %S/regalloc_spill.mlir -p allocate-payload-registers,print-instrumentation-report 2>/dev/null > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir
// CHECK: instrumentation points:
// CHECK-NEXT:   hook    function  #  instruction               added  registers  spilled  spill registers  past budget
// CHECK-NEXT:   @count  @vspill   0  v_add_u32_e32 v0, v1, v0  1      v4         -        -                v4
// CHECK-NEXT: kernels: registers each kernel's allocation makes usable (sgprs, vgprs, agprs) and vector registers it allocates per lane, before -> after the payloads
// CHECK-NEXT:   kernel   payloads  added  sgprs     vgprs   agprs   vector alloc  waves/SIMD  changed
// CHECK-NEXT:   @vspill  1         1      12 -> 12  4 -> 8  4 -> 0  8 -> 8        8 -> 8      no
