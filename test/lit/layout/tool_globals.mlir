// export-tool-globals: each instr.global becomes a zero-filled .bss variable of the code
// object, exported (GLOBAL, PROTECTED: as clang makes a HIP __device__ variable), aligned
// to 8 at least (64-bit atomics) or to what the tool asked if more; the consumed hooks and
// insertions are dropped. In the linked code object the variables are dynamic symbols, the
// names hipModuleGetGlobal looks up, and the payload's PC-relative reference resolves.
//
// RUN: luthier-opt %s -p export-tool-globals | filecheck %s
// RUN: luthier-opt %s -p export-tool-globals -o %t.co && llvm-readelf-19 --dyn-syms %t.co | filecheck %s --check-prefix=SYMS

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{alignment = 256 : i64, binding = "GLOBAL", visibility = "PROTECTED", descriptor = #amdgpu_mc.kernel_descriptor<rsrc3.accum_offset = 1>}> {
    amdgpu_mc.s_getpc_b64 s[0:1]
    amdgpu_mc.s_add_u32 s0, s0, hits@rel32@lo+4
    amdgpu_mc.s_addc_u32 s1, s1, hits@rel32@hi+12
    amdgpu_mc.s_endpgm
  }
}
instr.global @hits {size = 8 : i64}
instr.global @trace {size = 4096 : i64, alignment = 64 : i64}
instr.hook @h() {
  instr.return
}
instr.insert @h {at = "kernel_entry", args = []}

// CHECK:      amdgpu_mc.s_endpgm
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.global @hits <{section = ".bss", size = 8 : i64, alignment = 8 : i64, binding = "GLOBAL", visibility = "PROTECTED"}>
// CHECK-NEXT: amdgpu_mc.global @trace <{section = ".bss", size = 4096 : i64, alignment = 64 : i64, binding = "GLOBAL", visibility = "PROTECTED"}>
// CHECK-NEXT: }
// CHECK-NOT:  instr.

// SYMS-DAG: 8 OBJECT GLOBAL PROTECTED {{[0-9]+}} hits
// SYMS-DAG: 4096 OBJECT GLOBAL PROTECTED {{[0-9]+}} trace
