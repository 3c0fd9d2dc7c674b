// Functions without .size: the lifter infers each extent from the code control flow reaches
// before the next symbol, and writes the symbols back with size 0.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl	no_size
	.p2align	8
	.type	no_size,@function
no_size:                                  // out[tid] = n ? 7 + tid : 7
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_load_dword s6, s[0:1], 0x8
	v_lshlrev_b32 v2, 2, v0
	v_mov_b32 v1, 7
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u32 s6, 0
	s_cbranch_scc1 .Lstore
	v_add_u32 v1, v1, v0
.Lstore:
	global_store_dword v2, v1, s[4:5]
	s_endpgm
	// Unreachable after s_endpgm: not part of the inferred extent, kept as data.
	v_mov_b32 v1, 0

	.globl	helper
	.p2align	2
	.type	helper,@function
helper:                                   // a device function nobody calls, no .size either
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	v_add_u32 v0, v0, v1
	s_setpc_b64 s[30:31]

	.rodata
	.p2align	6
	.amdhsa_kernel no_size
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
    .name:           no_size
    .private_segment_fixed_size: 0
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         no_size.kd
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
