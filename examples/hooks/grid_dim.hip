// gridDim recorder (Luthier's published example, in our header's spelling): before the
// last instruction of each kernel's first basic block, every wave stores the launch's
// gridDim (workgroups per dimension) into GridDim; the values agree, so the last store
// wins with the same bytes.
//
//   luthier-opt --lift --inline-hooks --emit-preamble examples/sample/vector_add.gfx90a.co \
//     --hooks examples/hooks/grid_dim.hip -o recorded.co
//   luthier-run recorded.co --kernel vector_add --grid 4,2 ... --global GridDim:u32[3]
#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned int GridDim[3];

LUTHIER_HOOK void recordGridDim() {
  GridDim[0] = luthier_grid_dim(0);
  GridDim[1] = luthier_grid_dim(1);
  GridDim[2] = luthier_grid_dim(2);
}

LUTHIER_INSERT(recordGridDim, at = "first_block_end");
