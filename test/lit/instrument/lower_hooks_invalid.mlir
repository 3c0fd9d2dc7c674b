// Errors of the hook-lowering passes: one line naming the pass, the hook, the function
// and the instrumented instruction (its text and index in the function), exit status 1
// (lower_hooks_exit.test checks the status and that no output file is written).
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p select-instructions,virtualize-phys-regs | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, v0
    instr.payload @h attributes {args = []} {
      %a = instr.read_reg "s4" : i32
      %b = arith.floordivsi %a, %a : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: select-instructions: @h in @k before 's_endpgm' (#1): arith.floordivsi is not supported in hooks

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, v0
    instr.payload @h attributes {args = []} {
      %a = instr.read_reg "s4" : i32
      %zero = arith.constant 0 : i32
      %b = arith.remsi %a, %zero : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: select-instructions: @h in @k before 's_endpgm' (#1): arith.remsi divides by the constant 0

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, v0
    instr.payload @h attributes {args = []} {
      %v = instr.read_reg "v1" : i32
      instr.write_reg "s4", %v : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: select-instructions: @h in @k before 's_endpgm' (#1): a per-lane value is used where the wave needs one value (an SGPR operand)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, v0
    instr.payload @h attributes {args = []} {
      %v = instr.read_reg "s[0:3]" : i128
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: select-instructions: @h in @k before 's_endpgm' (#1): instr.read_reg gives i128; hook values are i1, i32, i64, f32 or f64

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, v0
    instr.payload @h attributes {args = []} {
      %v = instr.read_reg "v1" : i32
      %l = instr.readlane %v, %v : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: select-instructions: @h in @k before 's_endpgm' (#1): instr.readlane needs a uniform lane number

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, v0
    instr.payload @h attributes {args = []} {
      %v = instr.read_reg "s104" : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: virtualize-phys-regs: @h in @k before 's_endpgm' (#1): s104 is not a register of gfx90a

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.v_mov_b32_e32 v1, v0
    instr.payload @h attributes {args = []} {
      %v = instr.read_reg "s[100:101]" : i64
      instr.write_reg "s[102:103]", %v : i64
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: virtualize-phys-regs: @h in @k before 's_endpgm' (#1): s[102:103] is not a register of gfx90a

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @h attributes {args = []} {
    }
    amdgpu_mc.s_endpgm
  }
}
// CHECK: select-instructions: @h in @k before 's_endpgm' (#0): the payload is empty; run inline-hooks first
