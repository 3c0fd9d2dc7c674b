// select-instructions: a constant added to (or subtracted from) a tool global's address
// moves the address itself, when nothing else reads it: the global_addr intrinsic takes an
// offset, which lower-intrinsics adds to the rel32 addends (no s_add_u32/s_addc_u32 at run
// time). An address read twice keeps its additions.
// RUN: luthier-opt %s -p select-instructions | filecheck %s --check-prefix=SELECT
// RUN: luthier-opt %s -p select-instructions | luthier-opt | filecheck %s --check-prefix=SELECT
// RUN: luthier-opt %s -p select-instructions,virtualize-phys-regs,lower-intrinsics | filecheck %s --check-prefix=LOWER

amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    // Entry 5 of a table of i64, then 16 bytes back: counter + 24, the constant on either
    // side of the addition; a chain of single uses folds all the way.
    instr.payload @entry attributes {args = []} {
      %table = instr.global_addr @counter : i64
      %five = arith.constant 5 : i64
      %eight = arith.constant 8 : i64
      %offset = arith.muli %five, %eight : i64
      %slot = arith.addi %offset, %table : i64
      %sixteen = arith.constant 16 : i64
      %back = arith.subi %slot, %sixteen : i64
      %one = arith.constant 1 : i64
      %0 = instr.atomic "add" %back, %one : i64
      instr.return
    }
    amdgpu_mc.s_nop 0
    // Below the global (a negative offset), and an address read twice: the base stays, the
    // entry is an addition.
    instr.payload @shared attributes {args = []} {
      %below = instr.global_addr @counter : i64
      %four = arith.constant 4 : i64
      %under = arith.subi %below, %four : i64
      %x = instr.load %under : i32
      %base = instr.global_addr @counter : i64
      %word = arith.addi %base, %four : i64
      instr.store %x, %word : i32
      instr.store %x, %base : i32
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
instr.global @counter {size = 512 : i64}

// SELECT:     instr.payload @entry attributes {args = []} {
// SELECT-NEXT:     instr.mc_intrinsic "global_addr" {symbol = "counter", offset = 24 : i64, defs = [#amdgpu_mc.vreg<0 : SReg_64>], uses = []}
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 %1:SReg_64, exec
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 exec, 1
// SELECT-NEXT:     amdgpu_mc.v_mov_b32_e32 %2:VGPR_32, 0
// SELECT-NEXT:     amdgpu_mc.v_mov_b32_e32 %3:VReg_64.sub0, 1
// SELECT-NEXT:     amdgpu_mc.v_mov_b32_e32 %3:VReg_64.sub1, 0
// SELECT-NEXT:     amdgpu_mc.global_atomic_add_x2 %2:VGPR_32, %3:VReg_64, %0:SReg_64
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 exec, %1:SReg_64
// SELECT-NEXT:     instr.return
// SELECT-NEXT:     }
// SELECT-NEXT:     amdgpu_mc.s_nop 0
// SELECT-NEXT:     instr.payload @shared attributes {args = []} {
// SELECT-NEXT:     instr.mc_intrinsic "global_addr" {symbol = "counter", offset = -4 : i64, defs = [#amdgpu_mc.vreg<0 : SReg_64>], uses = []}
// SELECT-NEXT:     amdgpu_mc.s_load_dword %1:SReg_32, %0:SReg_64, 0x0 glc
// SELECT-NEXT:     amdgpu_mc.s_waitcnt lgkmcnt(0)
// SELECT-NEXT:     instr.mc_intrinsic "global_addr" {symbol = "counter", defs = [#amdgpu_mc.vreg<2 : SReg_64>], uses = []}
// SELECT-NEXT:     amdgpu_mc.s_add_u32 %3:SReg_64.sub0, %2:SReg_64.sub0, 4
// SELECT-NEXT:     amdgpu_mc.s_addc_u32 %3:SReg_64.sub1, %2:SReg_64.sub1, 0
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 %4:SReg_64, exec
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 exec, 1
// SELECT-NEXT:     amdgpu_mc.v_mov_b32_e32 %5:VGPR_32, 0
// SELECT-NEXT:     amdgpu_mc.v_mov_b32_e32 %6:VGPR_32, %1:SReg_32
// SELECT-NEXT:     amdgpu_mc.global_store_dword %5:VGPR_32, %6:VGPR_32, %3:SReg_64
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 exec, %4:SReg_64
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 %7:SReg_64, exec
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 exec, 1
// SELECT-NEXT:     amdgpu_mc.v_mov_b32_e32 %8:VGPR_32, 0
// SELECT-NEXT:     amdgpu_mc.v_mov_b32_e32 %9:VGPR_32, %1:SReg_32
// SELECT-NEXT:     amdgpu_mc.global_store_dword %8:VGPR_32, %9:VGPR_32, %2:SReg_64
// SELECT-NEXT:     amdgpu_mc.s_mov_b64 exec, %7:SReg_64
// SELECT-NEXT:     instr.return
// SELECT-NEXT:     }
// SELECT-NEXT:     amdgpu_mc.s_endpgm
// SELECT-NEXT:     }
// SELECT-NEXT:     }
// SELECT-NEXT:     instr.global @counter {size = 512 : i64}

// LOWER:     instr.payload @entry attributes {args = []} {
// LOWER:     amdgpu_mc.s_getpc_b64 %0:SReg_64
// LOWER-NEXT:     amdgpu_mc.s_add_u32 %0:SReg_64.sub0, %0:SReg_64.sub0, counter@rel32@lo+28
// LOWER-NEXT:     amdgpu_mc.s_addc_u32 %0:SReg_64.sub1, %0:SReg_64.sub1, counter@rel32@hi+36
// LOWER:     instr.payload @shared attributes {args = []} {
// LOWER:     amdgpu_mc.s_getpc_b64 %0:SReg_64
// LOWER-NEXT:     amdgpu_mc.s_add_u32 %0:SReg_64.sub0, %0:SReg_64.sub0, counter@rel32@lo{{$}}
// LOWER-NEXT:     amdgpu_mc.s_addc_u32 %0:SReg_64.sub1, %0:SReg_64.sub1, counter@rel32@hi+8
// LOWER:     amdgpu_mc.s_getpc_b64 %2:SReg_64
// LOWER-NEXT:     amdgpu_mc.s_add_u32 %2:SReg_64.sub0, %2:SReg_64.sub0, counter@rel32@lo+4
// LOWER-NEXT:     amdgpu_mc.s_addc_u32 %2:SReg_64.sub1, %2:SReg_64.sub1, counter@rel32@hi+12
// LOWER-NEXT:     amdgpu_mc.s_add_u32 %3:SReg_64.sub0, %2:SReg_64.sub0, 4
// LOWER-NEXT:     amdgpu_mc.s_addc_u32 %3:SReg_64.sub1, %2:SReg_64.sub1, 0
