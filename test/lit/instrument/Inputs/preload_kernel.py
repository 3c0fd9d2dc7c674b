"""A gfx942 kernel with preloaded kernel arguments, laid out as LLVM lays them out: a
256-byte fallback entry (``s_trap 2`` and 63 ``s_nop 0``), then the real entry, where the
firmware enters (see preload_entry.test). With ``short``, the code ends before byte 256."""

import sys

NOPS = 10 if sys.argv[1:] == ["short"] else 63
print('amdgpu_mc.code_object "gfx942" <{code_object_version = 5 : i64, elf_type = "dyn", '
      'e_flags = 1100 : i64, abi_version = 3 : i64}> {')
print('  amdgpu_mc.kernel @preloads <{descriptor = #amdgpu_mc.kernel_descriptor<'
      'rsrc2.user_sgpr_count = 4, rsrc3.accum_offset = 1, '
      'properties.enable_sgpr_kernarg_segment_ptr = 1, '
      'preload.kernarg_preload_spec_length = 2>}> {')
print("    amdgpu_mc.s_trap 2")
for _ in range(NOPS):
    print("    amdgpu_mc.s_nop 0")
if NOPS == 63:
    print("    amdgpu_mc.s_mov_b32 s4, s2")
print("    amdgpu_mc.s_endpgm\n  }\n}")
