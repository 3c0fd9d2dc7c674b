// Instruction counter, vector variant (Luthier's published example, in our header's
// spelling): before every instruction, the wave's first active lane adds 1
// (CountWaveInstructions: instructions per wave) or the number of active lanes (per
// thread) to GlobalCounter. A wave whose EXEC is empty at an instruction has no first
// active lane and counts nothing there.
//
//   luthier-opt --lift --inline-hooks --emit-preamble examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/instr_count_vector.hip -o counted.co
//   luthier-run counted.co --kernel vector_add ... --global GlobalCounter
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned long long GlobalCounter;

LUTHIER_HOOK void countInstructionsVector(bool CountWaveInstructions) {
  unsigned long long ExecMask = luthier_read_exec();
  // The lane's position in the wave, from 1, as __ffsll numbers lanes.
  const unsigned int LaneId = luthier_lane_id() + 1;
  unsigned int FirstActiveThreadId = __ffsll(ExecMask);
  unsigned int NumActiveThreads = __popcll(ExecMask);
  if (FirstActiveThreadId == LaneId) {
    if (CountWaveInstructions)
      atomicAdd(&GlobalCounter, 1ull);
    else
      atomicAdd(&GlobalCounter, (unsigned long long)NumActiveThreads);
  }
}

// Count per wave: the constant argument selects the variant.
LUTHIER_INSERT(countInstructionsVector, at = "instruction", args = [#instr.const<1 : i1>]);
