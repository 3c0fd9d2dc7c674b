// select-instructions on 64-bit integer <-> float conversions and on a uniform integer
// division (lowering/isel/wide_conversions.py, division.py).
// - uitofp i64 -> f32: normalised by the high half's leading zeros (at most 32), the high
//   32 bits converted with a sticky bit for the rest (one rounding), scaled back by ldexp.
// - fptosi f64 -> i64: truncated, its high half floor(t * 2^-32) and low half
//   t - high * 2^32 (an FMA), each converted to 32 bits (the high one signed).
// - a uniform divui runs in lane 0 alone (EXEC = 1 around it) and v_readfirstlane_b32
//   brings the quotient to an SGPR; the sequence is LLVM's (f32 reciprocal scaled by
//   0x4f7ffffe, one Newton-Raphson step, the estimate mulhi(x, z), two corrections; the
//   second makes only the quotient).
// The emulator checks the values: test/unit/e2e/test_wide_conversions.py and
// test_integer_division.py.
// RUN: luthier-opt %s -p select-instructions | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @to_f32 attributes {args = []} {
      %exec = instr.read_reg "exec" : i64
      %lane = instr.lane_id : i32
      %wide = arith.extui %lane : i32 to i64
      %x = arith.xori %exec, %wide : i64
      %f = arith.uitofp %x : i64 to f32
      %g = instr.global_addr @out : i64
      instr.store %f, %g {per_lane} : f32
      instr.return
    }
    amdgpu_mc.s_nop 0
    instr.payload @from_f64 attributes {args = []} {
      %lane = instr.lane_id : i32
      %d = arith.uitofp %lane : i32 to f64
      %n = arith.fptosi %d : f64 to i64
      %g = instr.global_addr @out : i64
      instr.store %n, %g {per_lane} : i64
      instr.return
    }
    amdgpu_mc.s_nop 0
    instr.payload @uniform_divide attributes {args = []} {
      %s = instr.read_reg "s4" : i32
      %seven = arith.constant 7 : i32
      %q = arith.divui %s, %seven : i32
      %g = instr.global_addr @out : i64
      instr.store %q, %g : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      instr.payload @to_f32 attributes {args = []} {
// CHECK-NEXT: instr.mc_intrinsic "read_reg" {register = "exec", defs = [#amdgpu_mc.vreg<0 : SReg_64>], uses = []}
// CHECK-NEXT: instr.mc_intrinsic "lane_id" {defs = [#amdgpu_mc.vreg<1 : VGPR_32>], uses = []}
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %2:VReg_64.sub0, %1:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %2:VReg_64.sub1, 0
// CHECK-NEXT: amdgpu_mc.v_xor_b32_e64 %3:VReg_64.sub0, %0:SReg_64.sub0, %2:VReg_64.sub0
// CHECK-NEXT: amdgpu_mc.v_xor_b32_e64 %3:VReg_64.sub1, %0:SReg_64.sub1, %2:VReg_64.sub1
// CHECK-NEXT: amdgpu_mc.v_ffbh_u32_e32 %5:VGPR_32, %3:VReg_64.sub1
// CHECK-NEXT: amdgpu_mc.v_min_u32_e64 %6:VGPR_32, %5:VGPR_32, 32
// CHECK-NEXT: amdgpu_mc.v_lshlrev_b64 %7:VReg_64, %6:VGPR_32, %3:VReg_64
// CHECK-NEXT: amdgpu_mc.v_min_u32_e64 %8:VGPR_32, %7:VReg_64.sub0, 1
// CHECK-NEXT: amdgpu_mc.v_or_b32_e64 %9:VGPR_32, %7:VReg_64.sub1, %8:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_u32_e32 %10:VGPR_32, %9:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_sub_u32_e64 %11:VGPR_32, 32, %6:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_ldexp_f32 %4:VGPR_32, %10:VGPR_32, %11:VGPR_32
// CHECK-NEXT: instr.mc_intrinsic "global_addr" {symbol = "out", defs = [#amdgpu_mc.vreg<12 : SReg_64>], uses = []}
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %13:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.global_store_dword %13:VGPR_32, %4:VGPR_32, %12:SReg_64
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.s_nop 0
// CHECK-NEXT: instr.payload @from_f64 attributes {args = []} {
// CHECK-NEXT: instr.mc_intrinsic "lane_id" {defs = [#amdgpu_mc.vreg<0 : VGPR_32>], uses = []}
// CHECK-NEXT: amdgpu_mc.v_cvt_f64_u32_e32 %1:VReg_64, %0:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_trunc_f64_e32 %3:VReg_64, %1:VReg_64
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %7:VReg_64.sub0, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %7:VReg_64.sub1, 0x3df00000
// CHECK-NEXT: amdgpu_mc.v_mul_f64 %4:VReg_64, %3:VReg_64, %7:VReg_64
// CHECK-NEXT: amdgpu_mc.v_floor_f64_e32 %5:VReg_64, %4:VReg_64
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub0, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub1, 0xc1f00000
// CHECK-NEXT: amdgpu_mc.v_fma_f64 %6:VReg_64, %5:VReg_64, %8:VReg_64, %3:VReg_64
// CHECK-NEXT: amdgpu_mc.v_cvt_i32_f64_e32 %2:VReg_64.sub1, %5:VReg_64
// CHECK-NEXT: amdgpu_mc.v_cvt_u32_f64_e32 %2:VReg_64.sub0, %6:VReg_64
// CHECK-NEXT: instr.mc_intrinsic "global_addr" {symbol = "out", defs = [#amdgpu_mc.vreg<9 : SReg_64>], uses = []}
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %10:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.global_store_dwordx2 %10:VGPR_32, %2:VReg_64, %9:SReg_64
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.s_nop 0
// CHECK-NEXT: instr.payload @uniform_divide attributes {args = []} {
// CHECK-NEXT: instr.mc_intrinsic "read_reg" {register = "s4", defs = [#amdgpu_mc.vreg<0 : SReg_32>], uses = []}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 %2:SReg_64, exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, %0:SReg_32
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %4:VGPR_32, 7
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_u32_e32 %5:VGPR_32, %4:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_rcp_iflag_f32_e32 %6:VGPR_32, %5:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %9:VGPR_32, 0x4f7ffffe
// CHECK-NEXT: amdgpu_mc.v_mul_f32_e32 %7:VGPR_32, %9:VGPR_32, %6:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_cvt_u32_f32_e32 %8:VGPR_32, %7:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_sub_u32_e64 %10:VGPR_32, 0, %4:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mul_lo_u32 %11:VGPR_32, %10:VGPR_32, %8:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mul_hi_u32 %12:VGPR_32, %8:VGPR_32, %11:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_add_u32_e64 %13:VGPR_32, %8:VGPR_32, %12:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mul_hi_u32 %14:VGPR_32, %3:VGPR_32, %13:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mul_lo_u32 %15:VGPR_32, %14:VGPR_32, %4:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_sub_u32_e64 %16:VGPR_32, %3:VGPR_32, %15:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_cmp_ge_u32_e64 %17:SReg_64, %16:VGPR_32, %4:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_add_u32_e64 %18:VGPR_32, %14:VGPR_32, 1
// CHECK-NEXT: amdgpu_mc.v_cndmask_b32_e64 %19:VGPR_32, %14:VGPR_32, %18:VGPR_32, %17:SReg_64
// CHECK-NEXT: amdgpu_mc.v_sub_u32_e64 %20:VGPR_32, %16:VGPR_32, %4:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_cndmask_b32_e64 %21:VGPR_32, %16:VGPR_32, %20:VGPR_32, %17:SReg_64
// CHECK-NEXT: amdgpu_mc.v_cmp_ge_u32_e64 %22:SReg_64, %21:VGPR_32, %4:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_add_u32_e64 %23:VGPR_32, %19:VGPR_32, 1
// CHECK-NEXT: amdgpu_mc.v_cndmask_b32_e64 %24:VGPR_32, %19:VGPR_32, %23:VGPR_32, %22:SReg_64
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, %24:VGPR_32
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, %2:SReg_64
// CHECK-NEXT: amdgpu_mc.v_readfirstlane_b32 %25:SReg_32, %1:VGPR_32
// CHECK-NEXT: instr.mc_intrinsic "global_addr" {symbol = "out", defs = [#amdgpu_mc.vreg<26 : SReg_64>], uses = []}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 %27:SReg_64, exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %28:VGPR_32, 0
