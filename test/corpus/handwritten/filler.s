// Filler words (s_code_end, zero words) after a function without .size, before the next.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl	filled
	.p2align	8
	.type	filled,@function
filled:                                   // out[tid] = tid + 100
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_add_u32 v1, 100, v0
	s_branch .Lstore
.Lskipped:
	v_mov_b32 v1, 0
.Lstore:
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm
	.fill	6, 4, 0xbf9f0000
	.fill	3, 4, 0

	.globl	after_filler
	.p2align	6
	.type	after_filler,@function
after_filler:                             // out[tid] = 5
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_mov_b32 v1, 5
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm

	.rodata
	.p2align	6
	.amdhsa_kernel filled
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_kernarg_size 16
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 8
	.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.p2align	6
	.amdhsa_kernel after_filler
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
    .name:           filled
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         filled.kd
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
    .name:           after_filler
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         after_filler.kd
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
