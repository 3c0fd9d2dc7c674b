// GFX11.0's UserSGPRInit16Bug: the compiler pads the user SGPR count so that user and
// system SGPRs make 16 (here 15 user, of which none enabled, plus the workgroup id x). The
// padding holds nothing the kernel reads, so the kernel arguments pointer the preamble
// enables takes its place (s[0:1]): the count stays 15, the workgroup id stays in s15, and
// nothing is copied back into the padding. (gfx1030 has no such padding: the same
// descriptor is refused there, preamble_invalid.mlir.)
// RUN: luthier-opt %s -p emit-preamble | filecheck %s

amdgpu_mc.code_object "gfx1100" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1345 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @padded <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc2.user_sgpr_count = 15, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_wavefront_size32 = 1>}> attributes {instr.sva = "v3", instr.entry_state = ["kernarg"]} {
    amdgpu_mc.s_endpgm
  }
}

// CHECK:      amdgpu_mc.kernel @padded <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc2.user_sgpr_count = 15, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, properties.enable_wavefront_size32 = 1>}>
// CHECK-NEXT:   instr.payload @luthier.preamble attributes {args = []} {
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s0, 0
// CHECK-NEXT:     amdgpu_mc.v_writelane_b32 v3, s1, 1
// CHECK-NEXT:     instr.return
// CHECK-NEXT:   }
// CHECK-NEXT:   amdgpu_mc.s_endpgm
