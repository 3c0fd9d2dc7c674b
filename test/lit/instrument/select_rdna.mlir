// select-instructions and lower-intrinsics for RDNA in both wave sizes (issue 17): lane masks
// are 32-bit SGPRs and EXEC/VCC their low halves (exec_lo) in wave32, 64-bit pairs in wave64;
// GFX10+ names (v_add_nc_u32, v_add_co_ci_u32; GFX11 spells s_andn2 s_and_not1); a ballot
// is an i64 whose high half is 0 in wave32; lane_id needs v_mbcnt_lo alone in wave32; the
// wait for a load is s_waitcnt in the generation's encoding before GFX12 and
// s_wait_loadcnt/s_wait_kmcnt from it; a returning atomic is glc before GFX12 and
// th:TH_ATOMIC_RETURN from it; a coherent scalar load is glc before GFX12, scope:SCOPE_DEV
// from it.
// RUN: luthier-opt %s --split-input-file -p select-instructions,lower-intrinsics | filecheck %s
amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @lanes attributes {args = []} {
      %v = instr.read_reg "v1" : i32
      %w = instr.read_reg "v[2:3]" : i64
      %zero = arith.constant 0 : i32
      %d = arith.cmpi ugt, %v, %zero : i32
      %b = instr.ballot %d : i64
      %n = instr.popcount %b : i64
      %e = scf.if %d -> (i32) {
        %x = arith.addi %v, %n : i32
        scf.yield %x : i32
      } else {
        scf.yield %n : i32
      }
      %lane = instr.lane_id : i32
      %one = arith.constant 1 : i64
      %sum = arith.addi %w, %one : i64
      instr.write_reg "v[4:5]", %sum : i64
      instr.write_reg "v6", %e : i32
      instr.write_reg "v7", %lane : i32
      %g = instr.global_addr @counter : i64
      %old = instr.atomic "add" %g, %one : i64
      %m = instr.load %g : i32
      %o = arith.trunci %old : i64 to i32
      instr.write_reg "v8", %o : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @counter <{section = ".bss", size = 8 : i64, alignment = 8 : i64}>
}

// CHECK:      instr.payload @lanes attributes {args = []} {
// CHECK-NEXT:   amdgpu_mc.v_cmp_gt_u32_e64 %2:SReg_32, %0:VGPR_32, 0
// CHECK-NEXT:   amdgpu_mc.s_and_b32 %3:SReg_64.sub0, %2:SReg_32, exec_lo
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %3:SReg_64.sub1, 0
// CHECK-NEXT:   amdgpu_mc.s_bcnt1_i32_b64 %4:SReg_32, %3:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_and_saveexec_b32 %6:SReg_32, %2:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   amdgpu_mc.v_add_nc_u32_e64 %7:VGPR_32, %0:VGPR_32, %4:SReg_32
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %7:VGPR_32
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   amdgpu_mc.s_and_not1_b32 exec_lo, %6:SReg_32, %2:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_cbranch_execz ^bb4, ^bb3
// CHECK-NEXT: ^bb3:
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %4:SReg_32
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb4
// CHECK-NEXT: ^bb4:
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 exec_lo, %6:SReg_32
// CHECK-NEXT:   amdgpu_mc.v_mbcnt_lo_u32_b32 %8:VGPR_32, -1, 0
// CHECK-NEXT:   amdgpu_mc.v_add_co_u32 %9:VReg_64.sub0, %10:SReg_32, %1:VReg_64.sub0, 1
// CHECK-NEXT:   amdgpu_mc.v_add_co_ci_u32_e64 %9:VReg_64.sub1, %11:SReg_32, %1:VReg_64.sub1, 0, %10:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_getpc_b64 %12:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_add_u32 %12:SReg_64.sub0, %12:SReg_64.sub0, counter@rel32@lo+4
// CHECK-NEXT:   amdgpu_mc.s_addc_u32 %12:SReg_64.sub1, %12:SReg_64.sub1, counter@rel32@hi+12
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %14:SReg_32, exec_lo
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 exec_lo, 1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %15:VGPR_32, 0
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub0, 1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub1, 0
// CHECK-NEXT:   amdgpu_mc.global_atomic_add_u64 %13:VReg_64, %15:VGPR_32, %16:VReg_64, %12:SReg_64 glc
// CHECK-NEXT:   amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %17:SReg_64.sub0, %13:VReg_64.sub0
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %17:SReg_64.sub1, %13:VReg_64.sub1
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 exec_lo, %14:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_load_b32 %18:SReg_32, %12:SReg_64, 0x0 glc
// CHECK-NEXT:   amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %19:VGPR_32, %17:SReg_64.sub0
// CHECK-NEXT:   instr.return

// -----

amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64, wavefront_size = 64 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11>}> {
    instr.payload @lanes attributes {args = []} {
      %v = instr.read_reg "v1" : i32
      %w = instr.read_reg "v[2:3]" : i64
      %zero = arith.constant 0 : i32
      %d = arith.cmpi ugt, %v, %zero : i32
      %b = instr.ballot %d : i64
      %n = instr.popcount %b : i64
      %e = scf.if %d -> (i32) {
        %x = arith.addi %v, %n : i32
        scf.yield %x : i32
      } else {
        scf.yield %n : i32
      }
      %lane = instr.lane_id : i32
      %one = arith.constant 1 : i64
      %sum = arith.addi %w, %one : i64
      instr.write_reg "v[4:5]", %sum : i64
      instr.write_reg "v6", %e : i32
      instr.write_reg "v7", %lane : i32
      %g = instr.global_addr @counter : i64
      %old = instr.atomic "add" %g, %one : i64
      %m = instr.load %g : i32
      %o = arith.trunci %old : i64 to i32
      instr.write_reg "v8", %o : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @counter <{section = ".bss", size = 8 : i64, alignment = 8 : i64}>
}

// CHECK:      instr.payload @lanes attributes {args = []} {
// CHECK-NEXT:   amdgpu_mc.v_cmp_gt_u32_e64 %2:SReg_64, %0:VGPR_32, 0
// CHECK-NEXT:   amdgpu_mc.s_and_b64 %3:SReg_64, %2:SReg_64, exec
// CHECK-NEXT:   amdgpu_mc.s_bcnt1_i32_b64 %4:SReg_32, %3:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_and_saveexec_b64 %6:SReg_64, %2:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   amdgpu_mc.v_add_nc_u32_e64 %7:VGPR_32, %0:VGPR_32, %4:SReg_32
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %7:VGPR_32
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   amdgpu_mc.s_and_not1_b64 exec, %6:SReg_64, %2:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_cbranch_execz ^bb4, ^bb3
// CHECK-NEXT: ^bb3:
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %4:SReg_32
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb4
// CHECK-NEXT: ^bb4:
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 exec, %6:SReg_64
// CHECK-NEXT:   amdgpu_mc.v_mbcnt_lo_u32_b32 %20:VGPR_32, -1, 0
// CHECK-NEXT:   amdgpu_mc.v_mbcnt_hi_u32_b32 %8:VGPR_32, -1, %20:VGPR_32
// CHECK-NEXT:   amdgpu_mc.v_add_co_u32 %9:VReg_64.sub0, %10:SReg_64, %1:VReg_64.sub0, 1
// CHECK-NEXT:   amdgpu_mc.v_add_co_ci_u32_e64 %9:VReg_64.sub1, %11:SReg_64, %1:VReg_64.sub1, 0, %10:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_getpc_b64 %12:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_add_u32 %12:SReg_64.sub0, %12:SReg_64.sub0, counter@rel32@lo+4
// CHECK-NEXT:   amdgpu_mc.s_addc_u32 %12:SReg_64.sub1, %12:SReg_64.sub1, counter@rel32@hi+12
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 %14:SReg_64, exec
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %15:VGPR_32, 0
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub0, 1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub1, 0
// CHECK-NEXT:   amdgpu_mc.global_atomic_add_u64 %13:VReg_64, %15:VGPR_32, %16:VReg_64, %12:SReg_64 glc
// CHECK-NEXT:   amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %17:SReg_64.sub0, %13:VReg_64.sub0
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %17:SReg_64.sub1, %13:VReg_64.sub1
// CHECK-NEXT:   amdgpu_mc.s_mov_b64 exec, %14:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_load_b32 %18:SReg_32, %12:SReg_64, 0x0 glc
// CHECK-NEXT:   amdgpu_mc.s_waitcnt lgkmcnt(0)
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %19:VGPR_32, %17:SReg_64.sub0
// CHECK-NEXT:   instr.return

// -----

amdgpu_mc.code_object "gfx1201" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1358 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<gfx12, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @lanes attributes {args = []} {
      %v = instr.read_reg "v1" : i32
      %w = instr.read_reg "v[2:3]" : i64
      %zero = arith.constant 0 : i32
      %d = arith.cmpi ugt, %v, %zero : i32
      %b = instr.ballot %d : i64
      %n = instr.popcount %b : i64
      %e = scf.if %d -> (i32) {
        %x = arith.addi %v, %n : i32
        scf.yield %x : i32
      } else {
        scf.yield %n : i32
      }
      %lane = instr.lane_id : i32
      %one = arith.constant 1 : i64
      %sum = arith.addi %w, %one : i64
      instr.write_reg "v[4:5]", %sum : i64
      instr.write_reg "v6", %e : i32
      instr.write_reg "v7", %lane : i32
      %g = instr.global_addr @counter : i64
      %old = instr.atomic "add" %g, %one : i64
      %m = instr.load %g : i32
      %o = arith.trunci %old : i64 to i32
      instr.write_reg "v8", %o : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @counter <{section = ".bss", size = 8 : i64, alignment = 8 : i64}>
}

// CHECK:      instr.payload @lanes attributes {args = []} {
// CHECK-NEXT:   amdgpu_mc.v_cmp_gt_u32_e64 %2:SReg_32, %0:VGPR_32, 0
// CHECK-NEXT:   amdgpu_mc.s_and_b32 %3:SReg_64.sub0, %2:SReg_32, exec_lo
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %3:SReg_64.sub1, 0
// CHECK-NEXT:   amdgpu_mc.s_bcnt1_i32_b64 %4:SReg_32, %3:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_and_saveexec_b32 %6:SReg_32, %2:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_cbranch_execz ^bb2, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   amdgpu_mc.v_add_nc_u32_e64 %7:VGPR_32, %0:VGPR_32, %4:SReg_32
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %7:VGPR_32
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   amdgpu_mc.s_and_not1_b32 exec_lo, %6:SReg_32, %2:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_cbranch_execz ^bb4, ^bb3
// CHECK-NEXT: ^bb3:
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, %4:SReg_32
// CHECK-NEXT:   amdgpu_mc.fallthrough ^bb4
// CHECK-NEXT: ^bb4:
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 exec_lo, %6:SReg_32
// CHECK-NEXT:   amdgpu_mc.v_mbcnt_lo_u32_b32 %8:VGPR_32, -1, 0
// CHECK-NEXT:   amdgpu_mc.v_add_co_u32 %9:VReg_64.sub0, %10:SReg_32, %1:VReg_64.sub0, 1
// CHECK-NEXT:   amdgpu_mc.v_add_co_ci_u32_e64 %9:VReg_64.sub1, %11:SReg_32, %1:VReg_64.sub1, 0, %10:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_getpc_b64 %12:SReg_64
// CHECK-NEXT:   amdgpu_mc.s_add_co_u32 %12:SReg_64.sub0, %12:SReg_64.sub0, counter@rel32@lo+4
// CHECK-NEXT:   amdgpu_mc.s_add_co_ci_u32 %12:SReg_64.sub1, %12:SReg_64.sub1, counter@rel32@hi+12
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %14:SReg_32, exec_lo
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 exec_lo, 1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %15:VGPR_32, 0
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub0, 1
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %16:VReg_64.sub1, 0
// CHECK-NEXT:   amdgpu_mc.global_atomic_add_u64 %13:VReg_64, %15:VGPR_32, %16:VReg_64, %12:SReg_64 th:TH_ATOMIC_RETURN
// CHECK-NEXT:   amdgpu_mc.s_wait_loadcnt 0x0
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %17:SReg_64.sub0, %13:VReg_64.sub0
// CHECK-NEXT:   amdgpu_mc.v_readfirstlane_b32 %17:SReg_64.sub1, %13:VReg_64.sub1
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 exec_lo, %14:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_load_b32 %18:SReg_32, %12:SReg_64, 0x0 scope:SCOPE_DEV
// CHECK-NEXT:   amdgpu_mc.s_wait_kmcnt 0x0
// CHECK-NEXT:   amdgpu_mc.v_mov_b32_e32 %19:VGPR_32, %17:SReg_64.sub0
// CHECK-NEXT:   instr.return
