// Errors of the layout passes: one line naming the pass, the point or function, and why;
// exit status 1 (test/unit/drivers checks that no output file is written).
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p splice-payloads,export-tool-globals | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @h attributes {args = []} {
      amdgpu_mc.s_mov_b32 %1:SReg_32, 1
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: splice-payloads: @h in @k before 's_endpgm' (#0): amdgpu_mc.s_mov_b32 still has virtual registers (run allocate-payload-registers first)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @h attributes {args = []} {
      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = [], offset = 0 : i64, size = 4 : i64}
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: splice-payloads: @h in @k before 's_endpgm' (#0): instr.mc_intrinsic "kernarg" is not lowered (state intrinsics need the SVA: run place-sva before lower-intrinsics, and emit-preamble)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_getpc_b64 s[0:1]
    instr.payload @h attributes {args = []} {
      amdgpu_mc.s_mov_b32 s4, 1
      instr.return
    }
    amdgpu_mc.s_add_u32 s0, s0, table@rel32@lo+6
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.global @table <{section = ".data", size = 4 : i64, data = "2a000000"}>
}
// CHECK: splice-payloads: @k: s_add_u32 at 0x4: 'table@rel32@lo+6' is measured from 0x2, which is not the end of an instruction; code inserted before it would change its value

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.global @k {size = 8 : i64}
// CHECK: export-tool-globals: @k: the tool's global has the name of a symbol of the gfx90a code object; rename it

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_endpgm
  }
}
instr.global @counter {size = 8 : i64}
instr.global @"k.kd" {size = 8 : i64}
// CHECK: export-tool-globals: @k.kd: the tool's global has the name of a symbol of the gfx90a code object; rename it
