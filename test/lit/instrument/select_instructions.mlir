// select-instructions: SSA hook code to machine code over virtual registers.
// RUN: luthier-opt %s -p select-instructions | filecheck %s
// RUN: luthier-opt %s -p select-instructions | luthier-opt | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    // Uniform arithmetic: SALU; 64-bit add through SCC; constants fold; a literal goes
    // into the SALU instruction.
    instr.payload @uniform_arith attributes {args = []} {
      %s = instr.read_reg "s4" : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %five = arith.addi %two, %three : i32
      %x = arith.muli %s, %five : i32
      %y = arith.xori %x, %s : i32
      %big = arith.constant 1000 : i32
      %z = arith.addi %y, %big : i32
      %w = arith.extui %z : i32 to i64
      %p = instr.read_reg "s[6:7]" : i64
      %q = arith.addi %p, %w : i64
      %c = arith.cmpi ult, %z, %s : i32
      instr.write_reg "s[8:9]", %q : i64
      instr.write_reg "scc", %c : i1
      instr.return
    }
    // Per-lane arithmetic: VALU; one SGPR per instruction (GFX9's constant bus): the
    // second uniform operand is copied to a VGPR; 64-bit add with a carry mask; a
    // per-lane compare gives a lane mask; select by mask.
    instr.payload @lane_arith attributes {args = []} {
      %v = instr.read_reg "v1" : i32
      %s = instr.read_reg "s4" : i32
      %t = instr.read_reg "s5" : i32
      %a = arith.addi %v, %s : i32
      %b = arith.subi %s, %t : i32
      %m = arith.muli %a, %b : i32
      %sh = arith.shli %m, %s : i32
      %wide = arith.extsi %sh : i32 to i64
      %base = instr.read_reg "s[6:7]" : i64
      %addr = arith.addi %base, %wide : i64
      %neg = arith.cmpi slt, %v, %s : i32
      %pick = arith.select %neg, %v, %t : i32
      instr.write_reg "v[2:3]", %addr : i64
      instr.write_reg "v4", %pick : i32
      instr.return
    }
    amdgpu_mc.s_nop 0
    // Control flow: a uniform scf.if branches on SCC; a per-lane one narrows EXEC,
    // skips a side no lane takes, and restores EXEC at the join; per-lane results are
    // VGPRs written on each side.
    instr.payload @control attributes {args = []} {
      %s = instr.read_reg "s4" : i32
      %v = instr.read_reg "v1" : i32
      %zero = arith.constant 0 : i32
      %u = arith.cmpi eq, %s, %zero : i32
      %r = scf.if %u -> (i32) {
        %one = arith.constant 1 : i32
        scf.yield %one : i32
      } else {
        scf.yield %s : i32
      }
      %d = arith.cmpi ugt, %v, %r : i32
      %e = scf.if %d -> (i32) {
        %x = arith.addi %v, %r : i32
        scf.yield %x : i32
      } else {
        scf.yield %r : i32
      }
      instr.write_reg "v5", %e : i32
      instr.return
    }
    amdgpu_mc.s_nop 0
    // Memory: uniform load via the scalar unit (glc) with a wait; a once-per-wave atomic
    // with EXEC = lane 0 and its old value read back from lane 0; a per-lane store to a
    // per-lane address; intrinsics stay as instr.mc_intrinsic for the passes after.
    instr.payload @memory attributes {args = []} {
      %g = instr.global_addr @counter : i64
      %n = instr.load %g : i32
      %one = arith.constant 1 : i64
      %old = instr.atomic "add" %g, %one : i64
      %lane = instr.lane_id : i32
      %lane64 = arith.extui %lane : i32 to i64
      %eight = arith.constant 8 : i64
      %off = arith.muli %lane64, %eight : i64
      %slot = arith.addi %g, %off : i64
      instr.store %old, %slot : i64
      %pop = instr.popcount %n : i32
      %k = instr.kernarg {offset = 8 : i64} : i64
      instr.store %k, %g : i64
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
instr.global @counter {size = 512 : i64}

// CHECK:      amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
// CHECK-NEXT:   amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
// CHECK-NEXT:     instr.payload @uniform_arith attributes {args = []} {
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "s4", defs = [#amdgpu_mc.vreg<0 : SReg_32>], uses = []}
// CHECK-NEXT:       amdgpu_mc.s_mul_i32 %1:SReg_32, %0:SReg_32, 5
// CHECK-NEXT:       amdgpu_mc.s_xor_b32 %2:SReg_32, %1:SReg_32, %0:SReg_32
// CHECK-NEXT:       amdgpu_mc.s_add_u32 %3:SReg_32, %2:SReg_32, 0x3e8
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %4:SReg_64.sub0, %3:SReg_32
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %4:SReg_64.sub1, 0
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "s[6:7]", defs = [#amdgpu_mc.vreg<5 : SReg_64>], uses = []}
// CHECK-NEXT:       amdgpu_mc.s_add_u32 %6:SReg_64.sub0, %5:SReg_64.sub0, %4:SReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.s_addc_u32 %6:SReg_64.sub1, %5:SReg_64.sub1, %4:SReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.s_cmp_lt_u32 %3:SReg_32, %0:SReg_32
// CHECK-NEXT:       amdgpu_mc.s_cselect_b32 %7:SReg_32, 1, 0
// CHECK-NEXT:       instr.mc_intrinsic "write_reg" {register = "s[8:9]", defs = [], uses = [#amdgpu_mc.vreg<6 : SReg_64>]}
// CHECK-NEXT:       instr.mc_intrinsic "write_reg" {register = "scc", defs = [], uses = [#amdgpu_mc.vreg<7 : SReg_32>]}
// CHECK-NEXT:       instr.return
// CHECK-NEXT:     }
// CHECK-NEXT:     instr.payload @lane_arith attributes {args = []} {
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "v1", defs = [#amdgpu_mc.vreg<0 : VGPR_32>], uses = []}
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "s4", defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = []}
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "s5", defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = []}
// CHECK-NEXT:       amdgpu_mc.v_add_u32_e64 %3:VGPR_32, %0:VGPR_32, %1:SReg_32
// CHECK-NEXT:       amdgpu_mc.s_sub_u32 %4:SReg_32, %1:SReg_32, %2:SReg_32
// CHECK-NEXT:       amdgpu_mc.v_mul_lo_u32 %5:VGPR_32, %3:VGPR_32, %4:SReg_32
// CHECK-NEXT:       amdgpu_mc.v_lshlrev_b32_e64 %6:VGPR_32, %1:SReg_32, %5:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %7:VReg_64.sub0, %6:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_ashrrev_i32_e64 %7:VReg_64.sub1, 31, %7:VReg_64.sub0
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "s[6:7]", defs = [#amdgpu_mc.vreg<8 : SReg_64>], uses = []}
// CHECK-NEXT:       amdgpu_mc.v_add_co_u32_e64 %9:VReg_64.sub0, %10:SReg_64, %8:SReg_64.sub0, %7:VReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %12:VGPR_32, %8:SReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.v_addc_co_u32_e64 %9:VReg_64.sub1, %11:SReg_64, %12:VGPR_32, %7:VReg_64.sub1, %10:SReg_64
// CHECK-NEXT:       amdgpu_mc.v_cmp_lt_i32_e64 %13:SReg_64, %0:VGPR_32, %1:SReg_32
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %15:VGPR_32, %2:SReg_32
// CHECK-NEXT:       amdgpu_mc.v_cndmask_b32_e64 %14:VGPR_32, %15:VGPR_32, %0:VGPR_32, %13:SReg_64
// CHECK-NEXT:       instr.mc_intrinsic "write_reg" {register = "v[2:3]", defs = [], uses = [#amdgpu_mc.vreg<9 : VReg_64>]}
// CHECK-NEXT:       instr.mc_intrinsic "write_reg" {register = "v4", defs = [], uses = [#amdgpu_mc.vreg<14 : VGPR_32>]}
// CHECK-NEXT:       instr.return
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_nop 0
// CHECK-NEXT:     instr.payload @control attributes {args = []} {
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "s4", defs = [#amdgpu_mc.vreg<0 : SReg_32>], uses = []}
// CHECK-NEXT:       instr.mc_intrinsic "read_reg" {register = "v1", defs = [#amdgpu_mc.vreg<1 : VGPR_32>], uses = []}
// CHECK-NEXT:       amdgpu_mc.s_cmp_eq_u32 %0:SReg_32, 0
// CHECK-NEXT:       amdgpu_mc.s_cselect_b32 %2:SReg_32, 1, 0
// CHECK-NEXT:       amdgpu_mc.s_cmp_lg_u32 %2:SReg_32, 0
// CHECK-NEXT:       amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
// CHECK-NEXT:     ^bb1:
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %3:SReg_32, 1
// CHECK-NEXT:       amdgpu_mc.s_branch ^bb3
// CHECK-NEXT:     ^bb2:
// CHECK-NEXT:       amdgpu_mc.s_mov_b32 %3:SReg_32, %0:SReg_32
// CHECK-NEXT:       amdgpu_mc.fallthrough ^bb3
// CHECK-NEXT:     ^bb3:
// CHECK-NEXT:       amdgpu_mc.v_cmp_gt_u32_e64 %4:SReg_64, %1:VGPR_32, %3:SReg_32
// CHECK-NEXT:       amdgpu_mc.s_and_saveexec_b64 %6:SReg_64, %4:SReg_64
// CHECK-NEXT:       amdgpu_mc.s_cbranch_execz ^bb5, ^bb4
// CHECK-NEXT:     ^bb4:
// CHECK-NEXT:       amdgpu_mc.v_add_u32_e64 %7:VGPR_32, %1:VGPR_32, %3:SReg_32
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %7:VGPR_32
// CHECK-NEXT:       amdgpu_mc.fallthrough ^bb5
// CHECK-NEXT:     ^bb5:
// CHECK-NEXT:       amdgpu_mc.s_andn2_b64 exec, %6:SReg_64, %4:SReg_64
// CHECK-NEXT:       amdgpu_mc.s_cbranch_execz ^bb7, ^bb6
// CHECK-NEXT:     ^bb6:
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %3:SReg_32
// CHECK-NEXT:       amdgpu_mc.fallthrough ^bb7
// CHECK-NEXT:     ^bb7:
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 exec, %6:SReg_64
// CHECK-NEXT:       instr.mc_intrinsic "write_reg" {register = "v5", defs = [], uses = [#amdgpu_mc.vreg<5 : VGPR_32>]}
// CHECK-NEXT:       instr.return
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_nop 0
// CHECK-NEXT:     instr.payload @memory attributes {args = []} {
// CHECK-NEXT:       instr.mc_intrinsic "global_addr" {symbol = "counter", defs = [#amdgpu_mc.vreg<0 : SReg_64>], uses = []}
// CHECK-NEXT:       amdgpu_mc.s_load_dword %1:SReg_32, %0:SReg_64, 0x0 glc
// CHECK-NEXT:       amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 %3:SReg_64, exec
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %4:VGPR_32, 0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %5:VReg_64.sub0, 1
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %5:VReg_64.sub1, 0
// CHECK-NEXT:       amdgpu_mc.global_atomic_add_x2 %2:VReg_64, %4:VGPR_32, %5:VReg_64, %0:SReg_64 glc
// CHECK-NEXT:       amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT:       amdgpu_mc.v_readfirstlane_b32 %6:SReg_64.sub0, %2:VReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_readfirstlane_b32 %6:SReg_64.sub1, %2:VReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 exec, %3:SReg_64
// CHECK-NEXT:       instr.mc_intrinsic "lane_id" {defs = [#amdgpu_mc.vreg<7 : VGPR_32>], uses = []}
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub0, %7:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub1, 0
// CHECK-NEXT:       amdgpu_mc.v_mul_lo_u32 %9:VReg_64.sub0, %8:VReg_64.sub0, 8
// CHECK-NEXT:       amdgpu_mc.v_mul_hi_u32 %10:VGPR_32, %8:VReg_64.sub0, 8
// CHECK-NEXT:       amdgpu_mc.v_mul_lo_u32 %11:VGPR_32, %8:VReg_64.sub1, 8
// CHECK-NEXT:       amdgpu_mc.v_add_u32_e64 %9:VReg_64.sub1, %10:VGPR_32, %11:VGPR_32
// CHECK-NEXT:       amdgpu_mc.v_add_co_u32_e64 %12:VReg_64.sub0, %13:SReg_64, %0:SReg_64.sub0, %9:VReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %15:VGPR_32, %0:SReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.v_addc_co_u32_e64 %12:VReg_64.sub1, %14:SReg_64, %15:VGPR_32, %9:VReg_64.sub1, %13:SReg_64
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub0, %6:SReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub1, %6:SReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.global_store_dwordx2 %12:VReg_64, %16:VReg_64, off
// CHECK-NEXT:       instr.mc_intrinsic "popcount" {defs = [#amdgpu_mc.vreg<17 : SReg_32>], uses = [#amdgpu_mc.vreg<1 : SReg_32>]}
// CHECK-NEXT:       instr.mc_intrinsic "kernarg" {offset = 8 : i64, defs = [#amdgpu_mc.vreg<18 : SReg_64>], uses = []}
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 %19:SReg_64, exec
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %20:VGPR_32, 0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %21:VReg_64.sub0, %18:SReg_64.sub0
// CHECK-NEXT:       amdgpu_mc.v_mov_b32_e32 %21:VReg_64.sub1, %18:SReg_64.sub1
// CHECK-NEXT:       amdgpu_mc.global_store_dwordx2 %20:VGPR_32, %21:VReg_64, %0:SReg_64
// CHECK-NEXT:       amdgpu_mc.s_mov_b64 exec, %19:SReg_64
// CHECK-NEXT:       instr.return
// CHECK-NEXT:     }
// CHECK-NEXT:     amdgpu_mc.s_endpgm
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: instr.global @counter {size = 512 : i64}
