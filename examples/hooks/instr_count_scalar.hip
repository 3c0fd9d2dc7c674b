// Instruction counter, scalar variant (Luthier's published example, in our header's
// spelling): before every instruction, save EXEC, run one lane (EXEC = 1), add 1 (per
// wave) or the saved EXEC's lane count (per thread) to GlobalCounter, and restore EXEC.
// Unlike the vector variant, a wave counts an instruction it runs with EXEC empty too.
//
//   luthier-opt --lift --inline-hooks --emit-preamble examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/instr_count_scalar.hip -o counted.co
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned long long GlobalCounter;

LUTHIER_HOOK void countInstructionsScalar(bool CountWaveInstructions) {
  unsigned long long Exec = luthier_read_exec();
  luthier_write_exec(1);
  atomicAdd(&GlobalCounter,
            CountWaveInstructions ? 1ull : (unsigned long long)__popcll(Exec));
  luthier_write_exec(Exec);
}

// Count per thread: the constant argument selects the variant.
LUTHIER_INSERT(countInstructionsScalar, at = "instruction", args = [#instr.const<0 : i1>]);
