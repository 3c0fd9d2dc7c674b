// Errors of relax-branches: one line naming the pass, the function and why.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p relax-branches | filecheck %s
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p 'relax-branches{reach=16}' | filecheck %s --check-prefix=SMALL
// RUN: not luthier-opt %s --split-input-file -p 'relax-branches{reach=10}' 2>&1 | filecheck %s --check-prefix=REACH

// A payload not spliced yet: the pass measures plain machine code only.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @h attributes {args = []} {
      amdgpu_mc.s_mov_b32 s4, 1
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: relax-branches: @k: 'instr.payload' in ^bb0 is not an instruction (splice payloads first)
// SMALL: relax-branches: @k: 'instr.payload' in ^bb0 is not an instruction (splice payloads first)

// -----

// A conditional branch whose fall-through successor is not the next block.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb2
  ^bb1:
    amdgpu_mc.s_endpgm
  ^bb2:
    amdgpu_mc.s_endpgm
  }
}
// CHECK: relax-branches: @f: s_cbranch_scc1 in ^bb0 falls through to a block that is not the next one in layout
// SMALL: relax-branches: @f: s_cbranch_scc1 in ^bb0 falls through to a block that is not the next one in layout

// -----

// With a 16-byte reach, the branch reaches 12 bytes on: the only places there lie
// between s_getpc_b64 and the adds measured from it (bytes there would change the
// address they compute), or before the branch itself. (At the hardware's reach the
// branch reaches, and the first RUN line's output holds this function unchanged.)
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_cmp_eq_u32 s0, 0
    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, table@rel32@lo+4
    amdgpu_mc.s_addc_u32 s5, s5, table@rel32@hi+12
    amdgpu_mc.s_endpgm
  ^bb2:
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @table <{section = ".data", size = 4 : i64, alignment = 4 : i64, data = "2a000000"}>
}
// SMALL: relax-branches: @f: s_cbranch_scc1 at 0x4 is out of range and no place within its reach can hold a branch island

// REACH: luthier-opt: error: relax-branches: reach is a multiple of 4 from 16 to 131072, not 10
