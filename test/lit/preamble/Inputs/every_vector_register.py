"""A kernel whose application touches every VGPR (v0-v255) and a payload that reads a
kernel argument, workgroup id x and work-item id y (see sva_agpr.test, sva_stack.test and
sva_invalid.test). Arguments, in any order: ``agprs`` (every AGPR is touched too),
``dynamic`` (the kernel has a dynamic stack), ``gfx942`` or ``gfx908`` (the target; gfx90a
otherwise; gfx908 has a separate AGPR file, so no ``accum_offset``)."""

import sys

ARGS = set(sys.argv[1:])
TARGET = next((t for t in ("gfx942", "gfx908") if t in ARGS), "gfx90a")
#: e_flags: gfx908's EF_AMDGPU_MACH (0x30) with xnack and sramecc "any" (0x500); the other
#: targets keep the gfx90a value the goldens were written with (the passes do not read it).
E_FLAGS = 0x530 if TARGET == "gfx908" else 0x53F
ACCUM_OFFSET = "" if TARGET == "gfx908" else "rsrc3.accum_offset = 63, "
DYNAMIC = "properties.uses_dynamic_stack = 1, " if "dynamic" in ARGS else ""
HEADER = (f'amdgpu_mc.code_object "{TARGET}" <{{code_object_version = 5 : i64, '
          f'elf_type = "dyn", e_flags = {E_FLAGS} : i64, abi_version = 3 : i64}}> {{\n'
          '  amdgpu_mc.kernel @full <{descriptor = #amdgpu_mc.kernel_descriptor<'
          'rsrc2.user_sgpr_count = 6, rsrc2.enable_sgpr_workgroup_id_x = 1, '
          f'{ACCUM_OFFSET}{DYNAMIC}'
          'properties.enable_sgpr_private_segment_buffer = 1, '
          'properties.enable_sgpr_kernarg_segment_ptr = 1>}> {\n'
          '    instr.payload @state attributes {args = []} {\n'
          '      instr.mc_intrinsic "kernarg" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], '
          'uses = [], offset = 0 : i64}\n'
          '      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<2 : SReg_32>], '
          'uses = [], dim = "x"}\n'
          '      instr.mc_intrinsic "workitem_id" {defs = [#amdgpu_mc.vreg<3 : VGPR_32>], '
          'uses = [], dim = "y"}\n'
          '      instr.return\n'
          '    }\n')
print(HEADER, end="")
for index in range(256):
    print(f"    amdgpu_mc.v_mov_b32_e32 v{index}, s6")
if "agprs" in ARGS:
    for index in range(256):
        print(f"    amdgpu_mc.v_accvgpr_write_b32 a{index}, 0")
print("    amdgpu_mc.s_endpgm\n  }\n}")
