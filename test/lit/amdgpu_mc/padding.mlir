// Padding that is not the assembler's: zero bytes before a function (padding_fill = "zero",
// what ld.lld leaves between separately compiled .text sections) and s_nop words before the
// first function (text_leading_padding). Both print and parse back, and the emitted .text
// has them where the layout puts them: 8 bytes of s_nop first, then @a, then zeros up to
// the 16-byte alignment of @b, then @b; the last function ends the section.
// RUN: luthier-opt %s | filecheck %s
// RUN: luthier-opt %s | luthier-opt | filecheck %s
// RUN: luthier-opt %s --emit=obj -o %t.o
// RUN: llvm-objdump -s -j .text %t.o | filecheck %s --check-prefix=BYTES

amdgpu_mc.code_object "gfx90a:xnack-" <{code_object_version = 5 : i64, elf_type = "rel", e_flags = 1343 : i64, abi_version = 3 : i64, text_leading_padding = 8 : i64}> {
  amdgpu_mc.func @a <{alignment = 4 : i64}> {
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
  amdgpu_mc.func @b <{alignment = 16 : i64, padding_fill = "zero"}> {
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}

// CHECK:      amdgpu_mc.code_object "gfx90a:xnack-" <{{{.*}}text_leading_padding = 8 : i64{{.*}}}> {
// CHECK-NEXT:   amdgpu_mc.func @a <{alignment = 4 : i64}> {
// CHECK:        amdgpu_mc.func @b <{alignment = 16 : i64, padding_fill = "zero"}> {

// BYTES:      0000 000080bf 000080bf 1e1d80be 00000000
// BYTES-NEXT: 0010 1e1d80be
