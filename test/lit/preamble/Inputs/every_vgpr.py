"""A kernel whose application touches every VGPR (v0-v255), and a payload that reads a
kernel argument: no VGPR is left for the State Value Array (see sva_invalid.test)."""

HEADER = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", '
          'e_flags = 1343 : i64, abi_version = 3 : i64}> {\n'
          '  amdgpu_mc.kernel @full <{descriptor = #amdgpu_mc.kernel_descriptor<'
          'rsrc2.user_sgpr_count = 6, rsrc3.accum_offset = 63, '
          'properties.enable_sgpr_private_segment_buffer = 1, '
          'properties.enable_sgpr_kernarg_segment_ptr = 1>}> {\n'
          '    instr.payload @state attributes {args = []} {\n'
          '      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], '
          'uses = [], offset = 0 : i64}\n'
          '      instr.return\n'
          '    }\n')
print(HEADER, end="")
for index in range(256):
    print(f"    amdgpu_mc.v_mov_b32_e32 v{index}, 0")
print("    amdgpu_mc.s_endpgm\n  }\n}")
