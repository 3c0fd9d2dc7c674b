// 16-bit VGPR halves (GFX11 true16 operands, v25.h / v4.l): LLVM 19 has v_mov_b16 only in
// its true16 form. Writing a half keeps the other half, so v1 stays live across the
// v_mov_b16 that writes v1.h: a payload placed before it must not take v1.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.globl	halves
	.p2align	8
	.type	halves,@function
halves:                                   // out[tid] = tid << 16 | 0x5678
	s_load_b64 s[4:5], s[0:1], 0x0
	v_lshlrev_b32 v2, 2, v0
	v_mov_b32 v1, 0x12345678
	v_mov_b16_e32 v1.h, v0.l
	s_waitcnt lgkmcnt(0)
	global_store_b32 v2, v1, s[4:5]
	s_endpgm
.Lhalves_end:
	.size	halves, .Lhalves_end-halves

	.globl	swap_halves
	.p2align	2
	.type	swap_halves,@function
swap_halves:                              // a device function nobody calls: more forms
	v_mov_b16_e32 v2.l, v1.h
	v_mov_b16_e32 v1.h, v1.l
	v_mov_b16_e32 v1.l, v2.l
	v_mov_b16_dpp v3.h, v4.l quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
	v_mov_b16_e32 v5.l, 0x3c00
	v_mov_b16_e32 v5.h, s7
	s_setpc_b64 s[30:31]
.Lswap_end:
	.size	swap_halves, .Lswap_end-swap_halves

	.rodata
	.p2align	6
	.amdhsa_kernel halves
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_kernarg_size 16
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 8
	.amdhsa_wavefront_size32 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
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
    .name:           halves
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .sgpr_spill_count: 0
    .symbol:         halves.kd
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 32
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
