// select-instructions: {per_lane} stores and atomics run in every active lane, whatever
// their operands (SIMT, as HIP code is; the HIP importer marks its stores and atomics so):
// no EXEC = 1 around them, and an atomic's old value is per lane (a VGPR, no
// v_readfirstlane). The unmarked twins run once per wave.
// RUN: luthier-opt %s -p select-instructions | filecheck %s
// RUN: luthier-opt %s | filecheck %s --check-prefix=ROUNDTRIP

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @simt attributes {args = []} {
      %g = instr.global_addr @counter : i64
      %one = arith.constant 1 : i32
      %old = instr.atomic "add" %g, %one {per_lane} : i32
      instr.store %old, %g {per_lane} : i32
      instr.return
    }
    amdgpu_mc.s_nop 0
    instr.payload @wave attributes {args = []} {
      %g = instr.global_addr @counter : i64
      %one = arith.constant 1 : i32
      %old = instr.atomic "add" %g, %one : i32
      instr.store %old, %g : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
instr.global @counter {size = 4 : i64}

// ROUNDTRIP: instr.atomic "add" %{{.*}}, %{{.*}} {per_lane} : i32
// ROUNDTRIP: instr.store %{{.*}}, %{{.*}} {per_lane} : i32

// CHECK: instr.payload @simt attributes {args = []} {
// CHECK-NEXT: instr.mc_intrinsic "global_addr" {symbol = "counter", defs = [#amdgpu_mc.vreg<0 : SReg_64>], uses = []}
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %2:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, 1
// CHECK-NEXT: amdgpu_mc.global_atomic_add %1:VGPR_32, %2:VGPR_32, %3:VGPR_32, %0:SReg_64 glc
// CHECK-NEXT: amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %4:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.global_store_dword %4:VGPR_32, %1:VGPR_32, %0:SReg_64
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.s_nop 0
// CHECK-NEXT: instr.payload @wave attributes {args = []} {
// CHECK-NEXT: instr.mc_intrinsic "global_addr" {symbol = "counter", defs = [#amdgpu_mc.vreg<0 : SReg_64>], uses = []}
// CHECK-NEXT: amdgpu_mc.s_mov_b64 %2:SReg_64, exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %4:VGPR_32, 1
// CHECK-NEXT: amdgpu_mc.global_atomic_add %1:VGPR_32, %3:VGPR_32, %4:VGPR_32, %0:SReg_64 glc
// CHECK-NEXT: amdgpu_mc.s_waitcnt vmcnt(0)
// CHECK-NEXT: amdgpu_mc.v_readfirstlane_b32 %5:SReg_32, %1:VGPR_32
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, %2:SReg_64
// CHECK-NEXT: amdgpu_mc.s_mov_b64 %6:SReg_64, exec
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, 1
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %7:VGPR_32, 0
// CHECK-NEXT: amdgpu_mc.v_mov_b32_e32 %8:VGPR_32, %5:SReg_32
// CHECK-NEXT: amdgpu_mc.global_store_dword %7:VGPR_32, %8:VGPR_32, %0:SReg_64
// CHECK-NEXT: amdgpu_mc.s_mov_b64 exec, %6:SReg_64
// CHECK-NEXT: instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.s_endpgm
