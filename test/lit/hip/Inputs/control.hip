// Hooks for the import goldens (import.test): branches that join with values, early
// returns, a table indexed at run time, the intrinsics, and a helper clang left as a call.
// build.sh compiles this file to control.ll, which the test reads (so it needs no clang).
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned long long Totals[4];
LUTHIER_GLOBAL unsigned int Flags;

// Both sides of the branch leave a value (a phi at the join), then a store at an index
// known at run time only.
LUTHIER_HOOK void joins(unsigned int Kind) {
  unsigned int Old;
  if (Kind > 4)
    Old = atomicAdd(&Flags, 1u);
  else
    Old = atomicOr(&Flags, 2u);
  Totals[Old & 3] = Old;
}

// Two early returns: what follows each lives on the other side.
LUTHIER_HOOK void early(unsigned int X) {
  if (X == 0)
    return;
  atomicAdd(&Flags, X);
  if (X > 100)
    return;
  atomicMax(&Flags, X);
}

// Registers, kernel arguments, lanes and ids.
LUTHIER_HOOK void intrinsics() {
  unsigned int S4 = luthier_read_reg32("s4");
  unsigned long long Pair = luthier_read_reg64("s[4:5]");
  unsigned int Arg = luthier_kernarg32(8);
  unsigned int First = __builtin_amdgcn_readfirstlane(luthier_lane_id());
  unsigned int Tid = luthier_workitem_id(0);
  unsigned int Group = luthier_workgroup_id(1);
  luthier_write_reg32("v1", S4 + Tid);
  Totals[1] = Pair + Arg + First + Group + luthier_block_dim(0);
}

// A helper clang does not inline: the importer does, returns and all.
__attribute__((device, noinline)) unsigned int bump(unsigned int X) {
  if (X & 1)
    return atomicAdd(&Flags, X);
  return X * 3;
}

LUTHIER_HOOK void helpers(unsigned int X) { Totals[2] = bump(X) + bump(X + 1); }

LUTHIER_INSERT(joins, at = "instruction", mnemonic = "global_load*",
               args = [#instr.const<7 : i32>]);
LUTHIER_INSERT(early, at = "kernel_entry", args = [#instr.reg<"s8">]);
LUTHIER_INSERT(intrinsics, at = "before_return");
LUTHIER_INSERT(helpers, at = "block_entry", args = [#instr.const<5 : i32>]);
