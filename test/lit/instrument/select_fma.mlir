// select-instructions on math.fma: v_fma_f32/v_fma_f64, the product and sum rounded once.
// Per lane it runs for the active lanes (a constant addend through a VGPR: 0.25 is
// 0x3e800000); uniform, in lane 0 alone, reading one SGPR pair three times (one constant-bus
// read), the result brought back with v_readfirstlane_b32.
// RUN: luthier-opt %s -p select-instructions | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @per_lane attributes {args = []} {
      %lane = instr.lane_id : i32
      %x = arith.uitofp %lane : i32 to f32
      %k = arith.constant 2.500000e-01 : f32
      %y = math.fma %x, %x, %k : f32
      %g = instr.global_addr @out : i64
      instr.store %y, %g {per_lane} : f32
      instr.return
    }
    amdgpu_mc.s_nop 0
    instr.payload @uniform attributes {args = []} {
      %exec = instr.read_reg "exec" : i64
      %n = instr.popcount %exec : i64
      %f = arith.sitofp %n : i32 to f64
      %z = math.fma %f, %f, %f : f64
      %g = instr.global_addr @out : i64
      instr.store %z, %g : f64
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @out <{section = ".bss", size = 8 : i64, alignment = 8 : i64}>
}

// CHECK:      instr.payload @per_lane attributes {args = []} {
// CHECK-NEXT:   instr.mc_intrinsic "lane_id" {defs = [#amdgpu_mc.vreg<0 : VGPR_32>], uses = []}
// CHECK-NEXT:   amdgpu_mc.v_cvt_f32_u32_e32 %1:VGPR_32, %0:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, 0x3e800000
// CHECK-NEXT:   amdgpu_mc.v_fma_f32 %2:VGPR_32, %1:VGPR_32, %1:VGPR_32, %3:VGPR_32
// CHECK:      instr.payload @uniform attributes {args = []} {
// CHECK:        amdgpu_mc.v_cvt_f64_i32_e32 %2:VReg_64, %1:SReg_32
// CHECK:        amdgpu_mc.s_mov_b64 %6:SReg_64, exec
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT:   amdgpu_mc.v_fma_f64 %5:VReg_64, %4:SReg_64, %4:SReg_64, %4:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 exec, %6:SReg_64
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %7:SReg_64.sub0, %5:VReg_64.sub0
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %7:SReg_64.sub1, %5:VReg_64.sub1
