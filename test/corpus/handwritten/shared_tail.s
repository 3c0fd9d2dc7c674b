// Code shared between kernels: first and third branch into the tail of second (a label
// inside another symbol's range), unconditionally and conditionally. LLVM's tools accept
// it; the lifter keeps each branch as a branch to an amdgpu_mc.label in second.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl	first
	.p2align	8
	.type	first,@function
first:                                    // out[tid] = tid + 1, stored by second's tail
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_add_u32 v1, 1, v0
	s_branch .Lstore
.Lfirst_end:
	.size	first, .Lfirst_end-first

	.globl	second
	.p2align	8
	.type	second,@function
second:                                   // out[tid] = tid * 2
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_lshlrev_b32 v1, 1, v0
.Lstore:
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm
.Lsecond_end:
	.size	second, .Lsecond_end-second

	.globl	third
	.p2align	8
	.type	third,@function
third:                                    // out[tid] = tid + 100 when count == 1, else -5
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_add_u32 v1, 0x64, v0
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u32 s6, 1
	s_cbranch_scc1 .Lstore
	v_mov_b32 v1, -5
	global_store_dword v2, v1, s[4:5]
	s_endpgm
.Lthird_end:
	.size	third, .Lthird_end-third

	.rodata
	.p2align	6
	.amdhsa_kernel first
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
	.p2align	6
	.amdhsa_kernel third
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
    .name:           first
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         first.kd
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
    .name:           third
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         third.kd
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
