// emit-preamble refuses kernels whose entry it cannot rewrite: one line naming the pass,
// the kernel and why.
// RUN: luthier-opt %s --split-input-file --verify-diagnostics -p emit-preamble | filecheck %s

// The kernel preloads kernel arguments into SGPRs, so the firmware enters it 256 bytes in,
// where the preamble goes; but its code is 4 bytes long: no instruction starts there.
amdgpu_mc.code_object "gfx942" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1100 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @preloads <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 4, rsrc3.accum_offset = 1, properties.enable_sgpr_kernarg_segment_ptr = 1, preload.kernarg_preload_spec_length = 2>}> attributes {instr.sva = "v3", instr.entry_state = ["kernarg"]} {
    amdgpu_mc.s_endpgm
  }
}
// CHECK: emit-preamble: @preloads: @preloads preloads kernel arguments, but no instruction starts at byte 256, where such a kernel is entered

// -----

// 15 user SGPRs are taken: the kernarg segment pointer (2 more) has no room.
amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @full <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc2.user_sgpr_count = 15, rsrc3.accum_offset = 1, properties.enable_sgpr_private_segment_buffer = 1, properties.enable_sgpr_dispatch_ptr = 1, properties.enable_sgpr_queue_ptr = 1, properties.enable_sgpr_dispatch_id = 1, properties.enable_sgpr_flat_scratch_init = 1, properties.enable_sgpr_private_segment_size = 1>}> attributes {instr.sva = "v3", instr.entry_state = ["kernarg"]} {
    amdgpu_mc.s_endpgm
  }
}
// CHECK: emit-preamble: @full: the kernel arguments pointer does not fit: the kernel would need 17 user SGPRs (16 at most)

// -----

// gfx1030 pads no user SGPRs (no UserSGPRInit16Bug): 15 counted are 15 taken, and the
// kernel arguments pointer has no room (gfx1100 takes the padding: user_sgpr_padding.mlir).
amdgpu_mc.code_object "gfx1030" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1334 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @unpadded <{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc2.user_sgpr_count = 15, rsrc2.enable_sgpr_workgroup_id_x = 1, properties.enable_wavefront_size32 = 1>}> attributes {instr.sva = "v3", instr.entry_state = ["kernarg"]} {
    amdgpu_mc.s_endpgm
  }
}
// CHECK: emit-preamble: @unpadded: the kernel arguments pointer does not fit: the kernel would need 17 user SGPRs (16 at most)
