	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
foo:
	s_mov_b32 s0, 1
	v_bogus_op v0, v1
