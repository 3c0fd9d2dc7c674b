// Data words between functions and a table after the last one, outside every symbol: kept
// byte for byte right after the function they follow.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl	with_data
	.p2align	8
	.type	with_data,@function
with_data:                                // out[tid] = tid * 3 (a loop of n = 3 adds)
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_mov_b32 v1, 0
	s_mov_b32 s6, 3
.Lloop:
	v_add_u32 v1, v1, v0
	s_sub_u32 s6, s6, 1
	s_cmp_lg_u32 s6, 0
	s_cbranch_scc1 .Lloop
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm
.Lwith_data_end:
	.size	with_data, .Lwith_data_end-with_data
	.long	0x12345678, 0xdeadbeef, 0x00000000
	.short	0x0102, 0x0304

	.globl	second
	.p2align	8
	.type	second,@function
second:                                   // out[tid] = -1
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_mov_b32 v1, -1
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm
.Lsecond_end:
	.size	second, .Lsecond_end-second
	// A table after the last function.
	.long	0x00000001, 0x00000002, 0x00000003, 0x00000004

	.rodata
	.p2align	6
	.amdhsa_kernel with_data
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_kernarg_size 16
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 8
	.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.p2align	6
	.amdhsa_kernel second
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_kernarg_size 16
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 8
	.amdhsa_accum_offset 4
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           out
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .name:           count
        .offset:         8
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 256
    .name:           with_data
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         with_data.kd
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           out
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .name:           count
        .offset:         8
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 256
    .name:           second
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         second.kd
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
