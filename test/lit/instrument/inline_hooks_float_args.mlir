// inline-hooks binds float constant arguments: #instr.const<0.1 : f32> becomes the f32
// constant with the same bits (0.1 rounded to f32 once, when the insertion was written),
// #instr.const<0x7FF0000000000000 : f64> the f64 infinity, in argument order.
// RUN: luthier-opt %s -p inline-hooks | filecheck %s

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @scale attributes {args = [#instr.const<0.1 : f32>, #instr.const<0x7FF0000000000000 : f64>]} {
    }
    amdgpu_mc.s_endpgm
  }
}
instr.global @out {size = 8 : i64}
instr.hook @scale(%k: f32, %limit: f64) {
  %e = arith.extf %k : f32 to f64
  %m = arith.minnumf %e, %limit : f64
  %a = instr.global_addr @out : i64
  instr.store %m, %a : f64
  instr.return
}

// CHECK:      instr.payload @scale attributes {args = [#instr.const<0.1 : f32>, #instr.const<0x7FF0000000000000 : f64>]} {
// CHECK-NEXT:   %k = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:   %limit = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:   %e = arith.extf %k : f32 to f64
