// Code no symbol names: first's .size ends at its branch; the code the branch goes to
// (.Ltail, after a data word) lies outside every symbol, between first and second. The
// lifter lifts it as an anonymous function (text.code.<address>) and writes it back without
// a symbol, the data word kept before it.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl	first
	.p2align	8
	.type	first,@function
first:                                    // out[tid] = tid + 1, stored by the unnamed tail
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_add_u32 v1, 1, v0
	s_branch .Ltail
.Lfirst_end:
	.size	first, .Lfirst_end-first
	.long	0xcafef00d
.Ltail:
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm
	.long	0x11111111, 0x22222222

	.globl	second
	.p2align	8
	.type	second,@function
second:                                   // out[tid] = tid * 2
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_lshlrev_b32 v1, 1, v0
	s_waitcnt lgkmcnt(0)
	global_store_dword v2, v1, s[4:5]
	s_endpgm
.Lsecond_end:
	.size	second, .Lsecond_end-second

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
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
