// The analyses need physical registers: a virtual register (before register allocation)
// fails the pass with one line naming the pass, the function and the instruction, exit 1,
// and no output file.
// RUN: rm -f %t.out.mlir
// RUN: not luthier-opt %s -p print-liveness -o %t.out.mlir 2>&1 | filecheck %s --check-prefix=LIVE
// RUN: not test -e %t.out.mlir
// RUN: not luthier-opt %s -p print-register-usage -o %t.out.mlir 2>&1 | filecheck %s --check-prefix=USAGE
// RUN: not test -e %t.out.mlir

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @virtual <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.vreg<3 : SReg_32>, #builtin.int<5>]}>
    amdgpu_mc.s_endpgm
  }
}

// LIVE: luthier-opt: error: print-liveness: @virtual: s_mov_b32: virtual register %3:SReg_32 has no units yet
// LIVE-NOT: {{.}}
// USAGE: luthier-opt: error: print-register-usage: @virtual: s_mov_b32: virtual register %3:SReg_32 has no units yet
// USAGE-NOT: {{.}}
