// inline-hooks: each payload gets a copy of its hook's body with the arguments bound.
// Checked by hand:
// - #instr.const<-1 : i32> becomes arith.constant -1; #instr.reg<"v1"> becomes
//   instr.read_reg "v1"; #instr.address<"s[0:1]", "v2", 16> becomes the i64 sum
//   s[0:1] + zext(v2) + 16; the bound values come first, in argument order, and replace
//   the hook's block arguments;
// - the payload records that the hook writes v7 on purpose (writes = ["v7"]);
// - a payload that already has a body is left alone; the hook itself stays.
// RUN: luthier-opt %s -p inline-hooks | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @h attributes {args = [#instr.const<-1 : i32>, #instr.reg<"v1">, #instr.address<"s[0:1]", "v2", 16>]} {
    }
    instr.payload @h attributes {args = []} {
      instr.return
    }
    amdgpu_mc.global_load_dword v3, v2, s[0:1] offset:16
    amdgpu_mc.s_endpgm
  }
}
instr.hook @h(%n: i32, %a: i32, %address: i64) {
  %x = arith.addi %n, %a : i32
  instr.write_reg "v7", %x : i32
  instr.store %x, %address : i32
  instr.return
}

// CHECK:      instr.payload @h attributes {writes = ["v7"], args = [#instr.const<-1 : i32>, #instr.reg<"v1">, #instr.address<"s[0:1]", "v2", 16>]} {
// CHECK-NEXT:   %n = arith.constant -1 : i32
// CHECK-NEXT:   %a = instr.read_reg "v1" : i32
// CHECK-NEXT:   %0 = instr.read_reg "s[0:1]" : i64
// CHECK-NEXT:   %1 = instr.read_reg "v2" : i32
// CHECK-NEXT:   %2 = arith.extui %1 : i32 to i64
// CHECK-NEXT:   %3 = arith.addi %0, %2 : i64
// CHECK-NEXT:   %4 = arith.constant 16 : i64
// CHECK-NEXT:   %address = arith.addi %3, %4 : i64
// CHECK-NEXT:   %x = arith.addi %n, %a : i32
// CHECK-NEXT:   instr.write_reg "v7", %x : i32
// CHECK-NEXT:   instr.store %x, %address : i32
// CHECK-NEXT:   instr.return
// CHECK-NEXT: }
// CHECK-NEXT: instr.payload @h attributes {args = []} {
// CHECK-NEXT:   instr.return
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu_mc.global_load_dword v3, v2, s[0:1] offset:16
// CHECK:      instr.hook @h(%n: i32, %a: i32, %address: i64) {
