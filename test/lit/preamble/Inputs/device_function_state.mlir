amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.func @helper {
    instr.payload @state attributes {args = []} {
      instr.mc_intrinsic "workgroup_id" {defs = [#amdgpu_mc.vreg<1 : SReg_32>], uses = [], dim = "x"}
      instr.return
    }
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
