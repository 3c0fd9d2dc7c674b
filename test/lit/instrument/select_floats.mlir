// select-instructions on f32/f64 arithmetic: every float operation is a VALU instruction
// (GFX9 has no scalar float unit). Per lane, it runs for the active lanes; uniform, it runs in
// lane 0 alone (EXEC = 1 around it) and v_readfirstlane_b32 brings the value to an SGPR, so
// the wave has it even where the point's EXEC is empty. Constants are their IEEE bits, moved
// through a VGPR unless +0.0; f64 subtraction adds the operand with its sign bit flipped;
// negf is an XOR of the sign bit (SALU when uniform); cmpf's unordered predicates are the
// negated VOPC conditions (ugt -> nle); a uniform compare is lane 0's bit of the mask.
// RUN: luthier-opt %s -p select-instructions | filecheck %s
// RUN: luthier-opt %s | filecheck %s --check-prefix=ROUNDTRIP

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @per_lane attributes {args = []} {
      %lane = instr.lane_id : i32
      %x = arith.uitofp %lane : i32 to f32
      %half = arith.constant 5.000000e-01 : f32
      %y = arith.mulf %x, %half : f32
      %d = arith.extf %y : f32 to f64
      %k = arith.constant 3.250000e+00 : f64
      %s = arith.subf %d, %k : f64
      %big = arith.cmpf ugt, %s, %k : f64
      %r = arith.select %big, %s, %k : f64
      %i = arith.fptosi %r : f64 to i32
      %g = instr.global_addr @out : i64
      instr.store %i, %g {per_lane} : i32
      instr.return
    }
    amdgpu_mc.s_nop 0
    instr.payload @uniform attributes {args = []} {
      %exec = instr.read_reg "exec" : i64
      %n = instr.popcount %exec : i64
      %f = arith.sitofp %n : i32 to f32
      %neg = arith.negf %f : f32
      %zero = arith.constant 0.000000e+00 : f32
      %lt = arith.cmpf olt, %neg, %zero : f32
      %g = instr.global_addr @out : i64
      scf.if %lt {
        instr.store %neg, %g : f32
      }
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
instr.global @out {size = 8 : i64}

// ROUNDTRIP: arith.cmpf ugt, %{{.*}}, %{{.*}} : f64
// ROUNDTRIP: instr.store %{{.*}}, %{{.*}} : f32

// CHECK: instr.payload @per_lane attributes {args = []} {
// CHECK-NEXT: instr.mc_intrinsic "lane_id" {defs = [#amdgpu_mc.vreg<0 : VGPR_32>], uses = []}
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_u32_e32 %1:VGPR_32, %0:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, 0.5
// CHECK-NEXT: amdgpu_mc.v_mul_f32_e64 %2:VGPR_32, %1:VGPR_32, %3:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_cvt_f64_f32_e32 %4:VReg_64, %2:VGPR_32
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %6:VReg_64.sub0, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %6:VReg_64.sub1, 0xc00a0000
// CHECK-NEXT: amdgpu_mc.v_add_f64 %5:VReg_64, %4:VReg_64, %6:VReg_64
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub0, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %8:VReg_64.sub1, 0x400a0000
// CHECK-NEXT: amdgpu_mc.v_cmp_nle_f64_e64 %7:SReg_64, %5:VReg_64, %8:VReg_64
// CHECK-NEXT: amdgpu_mc.v_cndmask_b32_e64 %9:VReg_64.sub0, 0, %5:VReg_64.sub0, %7:SReg_64
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %10:VGPR_32, 0x400a0000
// CHECK-NEXT: amdgpu_mc.v_cndmask_b32_e64 %9:VReg_64.sub1, %10:VGPR_32, %5:VReg_64.sub1, %7:SReg_64
// CHECK-NEXT: amdgpu_mc.v_cvt_i32_f64_e32 %11:VGPR_32, %9:VReg_64
// CHECK-NEXT: instr.mc_intrinsic "global_addr" {symbol = "out", defs = [#amdgpu_mc.vreg<12 : SReg_64>], uses = []}
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %13:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.global_store_dword %13:VGPR_32, %11:VGPR_32, %12:SReg_64
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.s_nop 0
// CHECK-NEXT: instr.payload @uniform attributes {args = []} {
// CHECK-NEXT: instr.mc_intrinsic "read_reg" {register = "exec", defs = [#amdgpu_mc.vreg<0 : SReg_64>], uses = []}
// CHECK-NEXT: instr.mc_intrinsic "popcount" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = [#amdgpu_mc.vreg<0 : SReg_64>]}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 %3:SReg_64, exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT: amdgpu_mc.v_cvt_f32_i32_e32 %2:VGPR_32, %1:SReg_32
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, %3:SReg_64
// CHECK-NEXT: amdgpu_mc.v_readfirstlane_b32 %4:SReg_32, %2:VGPR_32
// CHECK-NEXT: amdgpu_mc.s_xor_b32 %5:SReg_32, %4:SReg_32, 0x80000000
// CHECK-NEXT: amdgpu_mc.s_mov_b64 %7:SReg_64, exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT: amdgpu_mc.v_cmp_lt_f32_e64 %6:SReg_64, %5:SReg_32, 0
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, %7:SReg_64
// CHECK-NEXT: amdgpu_mc.s_and_b32 %8:SReg_32, %6:SReg_64.sub0, 1
// CHECK-NEXT: instr.mc_intrinsic "global_addr" {symbol = "out", defs = [#amdgpu_mc.vreg<9 : SReg_64>], uses = []}
// CHECK-NEXT: amdgpu_mc.s_cmp_lg_u32 %8:SReg_32, 0
// CHECK-NEXT: amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: amdgpu_mc.s_mov_b64 %10:SReg_64, exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %11:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %12:VGPR_32, %5:SReg_32
// CHECK-NEXT: amdgpu_mc.global_store_dword %11:VGPR_32, %12:VGPR_32, %9:SReg_64
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, %10:SReg_64
// CHECK-NEXT: amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.s_endpgm
