// a / b and a % b on integers in a HIP hook (division.test imports it): udiv, sdiv, urem and
// srem import as arith.divui, divsi, remui and remsi, which selection expands as LLVM does for
// 32 bits (a float reciprocal estimate, one Newton-Raphson step, two corrections) and by
// restoring long division for 64 bits.
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned int Divisor;
LUTHIER_GLOBAL unsigned int Quotients[4];
LUTHIER_GLOBAL unsigned long long Wide[2];

LUTHIER_HOOK void divide() {
  unsigned int X = luthier_lane_id() * 977u + 5u;
  unsigned int Y = Divisor;
  Quotients[0] = X / Y;
  Quotients[1] = X % Y;
  Quotients[2] = (unsigned int)((int)X / (int)Y);
  Quotients[3] = (unsigned int)((int)X % (int)Y);
  unsigned long long Big = (unsigned long long)X << 20;
  Wide[0] = Big / Y;
  Wide[1] = (unsigned long long)((long long)Big % (long long)Y);
}

LUTHIER_INSERT(divide, at = "kernel_entry", args = []);
