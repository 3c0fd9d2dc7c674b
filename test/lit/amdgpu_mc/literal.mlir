// A trailing literal whose value is also an inline constant (s_mov_b32 s0 with the literal
// 0xffffffff: 8 bytes, where -1 inline would take 4) cannot be written as assembly, which
// the assembler would shorten: it prints in its properties form and keeps its bytes through
// the text. An ordinary literal prints as assembly.
// RUN: luthier-opt %s | filecheck %s
// RUN: luthier-opt %s | luthier-opt | filecheck %s
// RUN: luthier-opt %s | luthier-opt --emit=obj -o %t.o
// RUN: llvm-objdump -d --mcpu=gfx90a %t.o | filecheck %s --check-prefix=BYTES

amdgpu_mc.code_object "gfx90a:xnack-" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{alignment = 256 : i64, descriptor = #amdgpu_mc.kernel_descriptor<kernarg_size = 16>}> {
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.reg<s0>, #amdgpu_mc.lit<4294967295>]}>
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.reg<s1>, #amdgpu_mc.lit<12345>]}>
    amdgpu_mc.s_mov_b32 s2, -1
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.reg<s0>, #amdgpu_mc.lit<4294967295>]}>
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s1, 0x3039
// CHECK-NEXT: amdgpu_mc.s_mov_b32 s2, -1
// CHECK-NEXT: amdgpu_mc.s_endpgm

// BYTES:      s_mov_b32 s0, -1 {{.*}}// 000000000000: BE8000FF FFFFFFFF
// BYTES-NEXT: s_mov_b32 s1, 0x3039 {{.*}}// 000000000008: BE8100FF 00003039
// BYTES-NEXT: s_mov_b32 s2, -1 {{.*}}// 000000000010: BE8200C1
