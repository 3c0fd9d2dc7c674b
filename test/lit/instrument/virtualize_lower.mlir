// virtualize-phys-regs, lower-intrinsics and save-payload-state after selection. Checked
// by hand:
// - @regs: reads become entry copies in program order of the reads: v1 (v_mov), s[5:6]
//   (odd-aligned pair: two s_mov_b32), scc (s_cselect_b32 0/1), a3 (v_accvgpr_read),
//   exec (s_mov_b64); the write of v[2:3] goes to a shadow pair that starts as v[2:3]
//   (entry copies) and is copied back at the exit (two v_mov_b32), so a path that does
//   not write leaves v[2:3] as it was; the 64-bit add writes SCC, which s_cmp_eq_u32 has
//   just set and s_cbranch_scc1 reads: SCC is saved first and restored last.
// - @lanes: lane_id = v_mbcnt_lo/hi; ballot = s_and_b64 with EXEC; popcount of a mask =
//   s_bcnt1_i32_b64; readfirstlane, readlane, writelane (v_mov of the old value, then
//   v_writelane with the lane in M0: one SGPR read per VALU instruction on GFX9);
//   first_active_lane = s_ff1_i32_b64 exec; global_addr = s_getpc_b64 +
//   rel32 lo/hi adds; the kernel-argument read stays (it needs the preamble). SCC and M0
//   are dead before s_endpgm: no save.
// - @scc_on_purpose: the hook writes SCC, so SCC is not restored: the exit copy
//   (s_cmp_lg_u32) is the last word.
// RUN: luthier-opt %s -p select-instructions,virtualize-phys-regs,lower-intrinsics,save-payload-state | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_cmp_eq_u32 s4, 0
    instr.payload @regs attributes {args = [], writes = ["v[2:3]"]} {
      %v = instr.read_reg "v1" : i32
      %p = instr.read_reg "s[5:6]" : i64
      %c = instr.read_reg "scc" : i1
      %a = instr.read_reg "a3" : i32
      %e = instr.read_reg "exec" : i64
      %w = arith.extui %v : i32 to i64
      %s = arith.addi %p, %e : i64
      scf.if %c {
        instr.write_reg "v[2:3]", %s : i64
        scf.yield
      }
      instr.return
    }
    amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb1
  ^bb1:
    instr.payload @lanes attributes {args = []} {
      %l = instr.lane_id : i32
      %v = instr.read_reg "v1" : i32
      %odd = arith.trunci %l : i32 to i1
      %m = instr.ballot %odd : i64
      %n = instr.popcount %m : i64
      %f = instr.readfirstlane %v : i32
      %r = instr.readlane %v, %n : i32
      %x = instr.writelane %f, %n, %v : i32
      %first = instr.first_active_lane : i32
      %g = instr.global_addr @counter : i64
      %k = instr.kernarg {offset = 0 : i64} : i64
      instr.write_reg "v6", %x : i32
      instr.return
    }
    instr.payload @scc_on_purpose attributes {args = [], writes = ["scc"]} {
      %s = instr.read_reg "s4" : i32
      %one = arith.constant 1 : i32
      %t = arith.addi %s, %one : i32
      %z = arith.constant 0 : i32
      %c = arith.cmpi eq, %t, %z : i32
      instr.write_reg "scc", %c : i1
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
instr.global @counter {size = 8 : i64}

// CHECK:      amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
// CHECK-NEXT:   amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:     amdgpu_mc.s_cmp_eq_u32 s4, 0
// CHECK-NEXT:     instr.payload @regs attributes {writes = ["v[2:3]"], args = []} {
// CHECK-NEXT:       amdgpu_mc.s_cselect_b32 %9:SReg_32, 1, 0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %0:VGPR_32, v1
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %1:SReg_64.sub0, s5
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %1:SReg_64.sub1, s6
// CHECK-NEXT:       amdgpu_mc.s_cselect_b32 %2:SReg_32, 1, 0
// CHECK-NEXT:       amdgpu_mc.v_accvgpr_read_b32 %3:VGPR_32, a3
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 %4:SReg_64, exec
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub0, v2
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub1, v3
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %5:VReg_64.sub0, %0:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %5:VReg_64.sub1, 0
// CHECK-NEXT:       amdgpu_mc.s_add_u32 %6:SReg_64.sub0, %1:SReg_64.sub0, %4:SReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.s_addc_u32 %6:SReg_64.sub1, %1:SReg_64.sub1, %4:SReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.s_cmp_lg_u32 %2:SReg_32, 0
// CHECK-NEXT:       amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
// CHECK-NEXT:     ^bb1:
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %7:VReg_64.sub0, %6:SReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %7:VReg_64.sub1, %6:SReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub0, %7:VReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub1, %7:VReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT:     ^bb2:
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 v2, %8:VReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 v3, %8:VReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.s_cmp_lg_u32 %9:SReg_32, 0
// CHECK-NEXT:       instr.return
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb1
// CHECK-NEXT:   ^bb1:
// CHECK-NEXT:     instr.payload @lanes attributes {args = []} {
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, v1
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %12:VGPR_32, v6
// CHECK-NEXT:       amdgpu_mc.v_mbcnt_lo_u32_b32 %13:VGPR_32, -1, 0
// CHECK-NEXT:       amdgpu_mc.v_mbcnt_hi_u32_b32 %0:VGPR_32, -1, %13:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_and_b32_e64 %3:VGPR_32, 1, %0:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_cmp_ne_u32_e64 %2:SReg_64, 0, %3:VGPR_32
// CHECK-NEXT:       amdgpu_mc.s_and_b64 %4:SReg_64, %2:SReg_64, exec
// CHECK-NEXT:       amdgpu_mc.s_bcnt1_i32_b64 %5:SReg_32, %4:SReg_64
// CHECK-NEXT:       amdgpu_mc.v_readfirstlane_b32 %6:SReg_32, %1:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_readlane_b32 %7:SReg_32, %1:VGPR_32, %5:SReg_32
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %8:VGPR_32, %1:VGPR_32
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 m0, %5:SReg_32
// CHECK-NEXT:       amdgpu_mc.v_writelane_b32 %8:VGPR_32, %6:SReg_32, m0
// CHECK-NEXT:       amdgpu_mc.s_ff1_i32_b64 %9:SReg_32, exec
// CHECK-NEXT:       amdgpu_mc.s_getpc_b64 %10:SReg_64
// CHECK-NEXT:       amdgpu_mc.s_add_u32 %10:SReg_64.sub0, %10:SReg_64.sub0, counter@rel32@lo+4
// CHECK-NEXT:       amdgpu_mc.s_addc_u32 %10:SReg_64.sub1, %10:SReg_64.sub1, counter@rel32@hi+12
// CHECK-NEXT:       instr.mc_intrinsic "kernarg" {offset = 0 : i64, defs = [#amdgpu_mc.vreg<11 : SReg_64>], uses = []}
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %12:VGPR_32, %8:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 v6, %12:VGPR_32
// CHECK-NEXT:       instr.return
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @scc_on_purpose attributes {writes = ["scc"], args = []} {
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %0:SReg_32, s4
// CHECK-NEXT:       amdgpu_mc.s_cselect_b32 %3:SReg_32, 1, 0
// CHECK-NEXT:       amdgpu_mc.s_add_u32 %1:SReg_32, %0:SReg_32, 1
// CHECK-NEXT:       amdgpu_mc.s_cmp_eq_u32 %1:SReg_32, 0
// CHECK-NEXT:       amdgpu_mc.s_cselect_b32 %2:SReg_32, 1, 0
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %3:SReg_32, %2:SReg_32
// CHECK-NEXT:       amdgpu_mc.s_cmp_lg_u32 %3:SReg_32, 0
// CHECK-NEXT:       instr.return
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_endpgm
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: instr.global @counter {size = 8 : i64}
