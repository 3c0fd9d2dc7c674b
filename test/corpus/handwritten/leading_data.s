// A table at the start of .text, before the first function (no symbol names it), and the
// first function after it at its 256-byte alignment: the table is kept byte for byte.
// (Whole words: llvm-mc-19 never returns on an odd byte count before a .p2align in .text.)
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.long	0xcafef00d, 0x00000002, 0x00000003, 0x00000004

	.globl	after_table
	.p2align	8
	.type	after_table,@function
after_table:                              // out[tid] = tid + 7
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_add_u32 v1, 7, v0
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm
.Lafter_table_end:
	.size	after_table, .Lafter_table_end-after_table

	.rodata
	.p2align	6
	.amdhsa_kernel after_table
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_kernarg_size 16
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 8
	.amdhsa_accum_offset 4
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space: global
        .name: out
        .offset: 0
        .size: 8
        .value_kind: global_buffer
      - .name: count
        .offset: 8
        .size: 4
        .value_kind: by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 256
    .name: after_table
    .private_segment_fixed_size: 0
    .sgpr_count: 8
    .sgpr_spill_count: 0
    .symbol: after_table.kd
    .vgpr_count: 3
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
