// select-instructions refuses the float operations it has no instructions for, in one line
// naming the point: half-precision values, and conversions of booleans (i1) to floats.
// RUN: not luthier-opt %s -p select-instructions 2>&1 | filecheck %s --check-prefix=HALF
// RUN: sed -e '/f16/d' %s | not luthier-opt -p select-instructions 2>&1 \
// RUN:   | filecheck %s --check-prefix=CONVERT

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @divide attributes {args = []} {
      %h = arith.constant 1.500000e+00 : f16
      %q = arith.divf %h, %h : f16
      instr.return
    }
    instr.payload @convert attributes {args = []} {
      %exec = instr.read_reg "exec" : i64
      %zero = arith.constant 0 : i64
      %any = arith.cmpi ne, %exec, %zero : i64
      %f = arith.sitofp %any : i1 to f64
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
// HALF: luthier-opt: error: select-instructions: @divide in @k {{.*}}: arith.constant gives f16; hook values are i1, i32, i64, f32 or f64
// CONVERT: luthier-opt: error: select-instructions: @convert in @k {{.*}}: arith.sitofp from i1 to f64 is not supported (conversions between 32- or 64-bit integers and f32/f64, and between f32 and f64)
