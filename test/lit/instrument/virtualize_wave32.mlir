// virtualize-phys-regs in wave32: a hook reads EXEC and VCC as i64 values, and the wave's are
// their low halves (exec_lo, vcc_lo; the high halves are not the wave's), so a read copies the
// low half and zeroes the high half. The SGPRs the hook writes go through shadows copied
// at the entry and written back at the exit.
// RUN: luthier-opt %s -p select-instructions,virtualize-phys-regs | filecheck %s

amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, properties.enable_wavefront_size32 = 1>}> {
    instr.payload @masks attributes {args = []} {
      %exec = instr.read_reg "exec" : i64
      %vcc = instr.read_reg "vcc" : i64
      %n = instr.popcount %exec : i64
      %m = instr.popcount %vcc : i64
      instr.write_reg "s10", %n : i32
      instr.write_reg "s11", %m : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      instr.payload @masks attributes {args = []} {
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %0:SReg_64.sub0, exec_lo
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %0:SReg_64.sub1, 0
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %1:SReg_64.sub0, vcc_lo
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %1:SReg_64.sub1, 0
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %4:SReg_32, s10
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %5:SReg_32, s11
// CHECK-NEXT:   instr.mc_intrinsic "popcount" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], uses = [#amdgpu_mc.vreg<0 : SReg_64>]}
// CHECK-NEXT:   instr.mc_intrinsic "popcount" {defs = [#amdgpu_mc.vreg<3 : SReg_32>], uses = [#amdgpu_mc.vreg<1 : SReg_64>]}
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %4:SReg_32, %2:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 %5:SReg_32, %3:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s10, %4:SReg_32
// CHECK-NEXT:   amdgpu_mc.s_mov_b32 s11, %5:SReg_32
// CHECK-NEXT:   instr.return
