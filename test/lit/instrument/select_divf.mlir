// select-instructions on arith.divf: the correctly rounded IEEE quotient, as LLVM expands
// fdiv. VCC (the application's) is saved first and restored last: the second v_div_scale
// sets it for v_div_fmas. f32: denominator and numerator scaled, v_rcp, MODE's f32 denormal
// field saved and set to 3 around the Newton-Raphson FMAs (the refinement needs denormal
// results), then v_div_fmas and v_div_fixup; -den is a sign-bit XOR. f64: LLVM's order,
// with the numerator scaled after the reciprocal's two refinements, in the mode as it is.
// RUN: luthier-opt %s -p select-instructions | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @f32 attributes {args = []} {
      %lane = instr.lane_id : i32
      %x = arith.uitofp %lane : i32 to f32
      %k = arith.constant 3.000000e+00 : f32
      %q = arith.divf %x, %k : f32
      %g = instr.global_addr @out : i64
      instr.store %q, %g {per_lane} : f32
      instr.return
    }
    amdgpu_mc.s_nop 0
    instr.payload @f64 attributes {args = []} {
      %lane = instr.lane_id : i32
      %x = arith.uitofp %lane : i32 to f64
      %y = arith.addf %x, %x : f64
      %q = arith.divf %x, %y : f64
      %g = instr.global_addr @out : i64
      instr.store %q, %g {per_lane} : f64
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @out <{section = ".bss", size = 8 : i64, alignment = 8 : i64}>
}

// CHECK:      instr.payload @f32 attributes {args = []} {
// CHECK-NEXT:   instr.mc_intrinsic "lane_id" {defs = [#amdgpu_mc.vreg<0 : VGPR_32>], uses = []}
// CHECK-NEXT:   amdgpu_mc.v_cvt_f32_u32_e32 %1:VGPR_32, %0:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, 0x40400000
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 %4:SReg_64, vcc
// CHECK-NEXT:   amdgpu_mc.v_div_scale_f32 %5:VGPR_32, vcc, %3:VGPR_32, %3:VGPR_32, %1:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_div_scale_f32 %6:VGPR_32, vcc, %1:VGPR_32, %3:VGPR_32, %1:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_rcp_f32_e32 %7:VGPR_32, %5:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_xor_b32_e32 %8:VGPR_32, 0x80000000, %5:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %9:VGPR_32, 1.0
// CHECK-NEXT:   amdgpu_mc.s_getreg_b32 %10:SReg_32, hwreg(HW_REG_MODE, 4, 2)
// CHECK-NEXT:   amdgpu_mc.s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
// CHECK-NEXT:   amdgpu_mc.v_fma_f32 %11:VGPR_32, %8:VGPR_32, %7:VGPR_32, %9:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_fma_f32 %12:VGPR_32, %11:VGPR_32, %7:VGPR_32, %7:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_mul_f32_e64 %13:VGPR_32, %6:VGPR_32, %12:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_fma_f32 %14:VGPR_32, %8:VGPR_32, %13:VGPR_32, %6:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_fma_f32 %15:VGPR_32, %14:VGPR_32, %12:VGPR_32, %13:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_fma_f32 %16:VGPR_32, %8:VGPR_32, %15:VGPR_32, %6:VGPR_32
// CHECK-NEXT:   amdgpu_mc.s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), %10:SReg_32
// CHECK-NEXT:   amdgpu_mc.v_div_fmas_f32 %17:VGPR_32, %16:VGPR_32, %12:VGPR_32, %15:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_div_fixup_f32 %2:VGPR_32, %17:VGPR_32, %3:VGPR_32, %1:VGPR_32
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 vcc, %4:SReg_64
// CHECK:      instr.payload @f64 attributes {args = []} {
// CHECK:        amdgpu_mc.v_add_f64 %2:VReg_64, %1:VReg_64, %1:VReg_64
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 %4:SReg_64, vcc
// CHECK-NEXT:   amdgpu_mc.v_div_scale_f64 %5:VReg_64, vcc, %2:VReg_64, %2:VReg_64, %1:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_rcp_f64_e32 %6:VReg_64, %5:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %7:VReg_64.sub0, %5:VReg_64.sub0
// CHECK-NEXT:   amdgpu_mc.v_xor_b32_e32 %7:VReg_64.sub1, 0x80000000, %5:VReg_64.sub1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub0, 0
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub1, 0x3ff00000
// CHECK-NEXT:   amdgpu_mc.v_fma_f64 %9:VReg_64, %7:VReg_64, %6:VReg_64, %8:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_fma_f64 %10:VReg_64, %6:VReg_64, %9:VReg_64, %6:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_fma_f64 %11:VReg_64, %7:VReg_64, %10:VReg_64, %8:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_div_scale_f64 %12:VReg_64, vcc, %1:VReg_64, %2:VReg_64, %1:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_fma_f64 %13:VReg_64, %10:VReg_64, %11:VReg_64, %10:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_mul_f64 %14:VReg_64, %12:VReg_64, %13:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_fma_f64 %15:VReg_64, %7:VReg_64, %14:VReg_64, %12:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_div_fmas_f64 %16:VReg_64, %15:VReg_64, %13:VReg_64, %14:VReg_64
// CHECK-NEXT:   amdgpu_mc.v_div_fixup_f64 %3:VReg_64, %16:VReg_64, %2:VReg_64, %1:VReg_64
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 vcc, %4:SReg_64
