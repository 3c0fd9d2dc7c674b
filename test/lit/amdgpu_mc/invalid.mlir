// Malformed amdgpu_mc IR gets a diagnostic naming what is wrong.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.reg<v0>, #builtin.int<5>]}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: operand 'sdst' of 's_mov_b32': v0 is not in register class SReg_32

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [#amdgpu_mc.reg<s0>]}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: 's_mov_b32' has 2 operand slots, got 1

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B64_vi", mc_operands = [#amdgpu_mc.reg<s[0:1]>, #builtin.int<5>]}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: opcode 'S_MOV_B64_vi' is 's_mov_b64', not 's_mov_b32'

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b64 <{opcode = "S_MOV_B64_vi", mc_operands = [#amdgpu_mc.vreg<1 : SReg_32>, #builtin.int<5>]}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: operand 'sdst' of 's_mov_b64' is 64-bit, got %1:SReg_32 (32-bit)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b32 s0, 5
  }
}
// CHECK: Operation amdgpu_mc.s_mov_b32 terminates block in single-block region but is not a terminator

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b32 s0, v[0:1]
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: invalid operand for instruction

// -----

amdgpu_mc.code_object "gfx1150" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
}
// CHECK: unknown target 'gfx1150' (supported: gfx908, gfx90a, gfx942, gfx1030, gfx1100, gfx1200, gfx1201)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64, wavefront_size = 32 : i64}> {
}
// CHECK: gfx90a runs waves of 64 lanes, not 32

// -----

amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 65 : i64, abi_version = 3 : i64, wavefront_size = 64 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, properties.enable_wavefront_size32 = 1>}> {
    amdgpu_mc.s_endpgm
  }
}
// CHECK: @k: its descriptor's ENABLE_WAVEFRONT_SIZE32 says wave32, the code object is wave64 (set the code object's wavefront_size to match)

// -----

amdgpu_mc.s_mov_b32 s0, 5
// CHECK: 'amdgpu_mc.s_mov_b32' outside an amdgpu_mc.code_object: its target is unknown

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc1.no_such_field = 1>}> {
    amdgpu_mc.s_endpgm
  }
}
// CHECK: unknown kernel descriptor field 'rsrc1.no_such_field'

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<gfx12, rsrc1.wg_rr_en = 1>}> {
    amdgpu_mc.s_endpgm
  }
}
// CHECK: @k: a gfx90a kernel descriptor has layout 'gfx9', not 'gfx12' (write #amdgpu_mc.kernel_descriptor<...> without a layout)

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.shared_vgpr_count = 1>}> {
    amdgpu_mc.s_endpgm
  }
}
// CHECK: unknown kernel descriptor field 'rsrc3.shared_vgpr_count'

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f <{trailing_data = "0102zz"}> {
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: @f: trailing_data is not hex

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f <{padding_fill = "ones"}> {
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: @f: padding_fill is one of 's_nop', 'zero', not 'ones'

// -----

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64, text_leading_data = "0xcafe"}> {
}
// CHECK: text_leading_data is not hex

// -----

amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 65 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f <{}> {
    amdgpu_mc.v_add_co_u32 v2, vcc, s4, v0
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: operands are not valid for this GPU or mode

// -----

// A 16-bit slot of GFX11 (true16) takes a VGPR half, not a whole VGPR.
amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.v_mov_b16_e32 <{opcode = "V_MOV_B16_t16_e32_gfx11", mc_operands = [#amdgpu_mc.reg<v1>, #amdgpu_mc.reg<v2.l>]}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: operand 'vdst' of 'v_mov_b16': v1 is not in register class VGPR_16_Lo128

// -----

// Only VGPRs have 16-bit halves.
amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.v_mov_b16_e32 <{opcode = "V_MOV_B16_t16_e32_gfx11", mc_operands = [#amdgpu_mc.reg<v1.h>, #amdgpu_mc.reg<s2.l>]}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: 's2.l' is not a register name

// -----

// unmodelled_bits keeps a lifted word's bits that its record leaves undefined (op_sel of
// v_cndmask_b16 in LLVM 19's records, 0x7800); others are the record's to say.
amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.v_cndmask_b16 <{opcode = "V_CNDMASK_B16_e64_gfx11", mc_operands = [#amdgpu_mc.reg<v1>, #builtin.int<0>, #amdgpu_mc.reg<v2>, #builtin.int<0>, #amdgpu_mc.reg<v1>, #amdgpu_mc.reg<vcc_lo>], unmodelled_bits = #builtin.int<32768>}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: 'v_cndmask_b16': unmodelled_bits 0x8000 are not bits its record V_CNDMASK_B16_e64_gfx11 leaves undefined (0x7800)

// -----

// A real-true16 twin's 16-bit slots take VGPR halves below v128, as its encoding does.
amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @f {
    amdgpu_mc.v_add_f16_e32 <{opcode = "V_ADD_F16_fake16_e32_gfx11_real16", mc_operands = [#amdgpu_mc.reg<v1.h>, #amdgpu_mc.reg<v2.l>, #amdgpu_mc.reg<v200.h>]}>
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
// CHECK: operand 'src1' of 'v_add_f16': v200.h is not in register class VGPR_16_Lo128
