// A code object of a processor we have no tables for (gfx1150, RDNA 3.5): the lifter refuses
// it in one line naming the target and the targets it supports.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1150"
	.text
	.globl	empty
	.p2align	8
	.type	empty,@function
empty:
	s_endpgm
.Lempty_end:
	.size	empty, .Lempty_end-empty

	.rodata
	.p2align	6
	.amdhsa_kernel empty
	.amdhsa_next_free_vgpr 1
	.amdhsa_next_free_sgpr 1
	.end_amdhsa_kernel
