// update-descriptors: register counts grow by what the payloads touch past the
// application's highest register of each file; they never shrink.
//
// @grow (8 SGPRs, 8 VGPRs allocated; metadata .sgpr_count 6, .vgpr_count 3): the
// application touches s3 and v2, a payload s20, v9 and VCC. SGPRs: 17 more generic
// ones, and 2 for VCC, which only the payload uses: 6 + 17 + 2 = 25 -> .sgpr_count 25,
// granulated ceil(25/8) - 1 = 3. VGPRs: 3 + 7 = 10 -> .vgpr_count 10; the accumulation
// offset must cover v9: 12 (field 2); granulated ceil(10/8) - 1 = 1.
// @agprs (accum offset 8, 4 AGPRs, .vgpr_count 12 = 8 + 4): the application touches v7
// and a3, a payload v9. The VGPRs grow to 10, so the AGPRs move up to offset 12 (field
// 2): 12 + 4 = 16 vector registers (.vgpr_count 16, granulated 1); .agpr_count stays 4.
// @fits: the payload's s1 and v0 are below the application's s3 and v1: descriptor and
// metadata stay as they were.
//
// RUN: luthier-opt %s -p update-descriptors | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64, metadata = {amdhsa.kernels = [{".name" = "grow", ".sgpr_count" = 6 : i64, ".vgpr_count" = 3 : i64, ".agpr_count" = 0 : i64}, {".name" = "agprs", ".sgpr_count" = 6 : i64, ".vgpr_count" = 12 : i64, ".agpr_count" = 4 : i64}, {".name" = "fits", ".sgpr_count" = 6 : i64, ".vgpr_count" = 3 : i64, ".agpr_count" = 0 : i64}], amdhsa.version = [1 : i64, 2 : i64]}}> {
  amdgpu_mc.kernel @grow <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}> {
    instr.payload @h attributes {args = []} {
      amdgpu_mc.s_mov_b32 s20, 0
      amdgpu_mc.v_add_co_u32_e32 v9, vcc, 1, v9
      instr.return
    }
    amdgpu_mc.s_mov_b32 s3, 0
    amdgpu_mc.v_mov_b32_e32 v2, 0
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @agprs <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc1.granulated_workitem_vgpr_count = 1, rsrc3.accum_offset = 1>}> {
    instr.payload @h attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 v9, 0
      instr.return
    }
    amdgpu_mc.v_mov_b32_e32 v7, 0
    amdgpu_mc.v_accvgpr_write_b32 a3, 0
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @fits <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}> {
    instr.payload @h attributes {args = []} {
      amdgpu_mc.s_mov_b32 s1, 0
      amdgpu_mc.v_mov_b32_e32 v0, 0
      instr.return
    }
    amdgpu_mc.s_mov_b32 s3, 0
    amdgpu_mc.v_mov_b32_e32 v1, 0
    amdgpu_mc.s_endpgm
  }
}

// CHECK: metadata = {amdhsa.kernels = [{".name" = "grow", ".sgpr_count" = 25 : i64, ".vgpr_count" = 10 : i64, ".agpr_count" = 0 : i64}, {".name" = "agprs", ".sgpr_count" = 6 : i64, ".vgpr_count" = 16 : i64, ".agpr_count" = 4 : i64}, {".name" = "fits", ".sgpr_count" = 6 : i64, ".vgpr_count" = 3 : i64, ".agpr_count" = 0 : i64}], amdhsa.version = [1 : i64, 2 : i64]}
// CHECK: amdgpu_mc.kernel @grow <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc1.granulated_workitem_vgpr_count = 1, rsrc1.granulated_wavefront_sgpr_count = 3, rsrc3.accum_offset = 2>}>
// CHECK: amdgpu_mc.kernel @agprs <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc1.granulated_workitem_vgpr_count = 1, rsrc3.accum_offset = 2>}>
// CHECK: amdgpu_mc.kernel @fits <{descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}>
