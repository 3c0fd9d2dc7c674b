#!/usr/bin/env bash
# The main job on the bundled sample: disassemble the instructions of
# examples/sample/vector_add.gfx90a.co (as llvm-mc disassembler input) with luthier-mc.
# scripts/setup.sh runs this last; change the main job here, in one place.
#
# Until luthier.drivers.luthier_mc exists, this says so and shows what llvm-mc-19 (the oracle
# luthier-mc is compared against) prints for the same input.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
luthier_select_python

SAMPLE=examples/sample/vector_add.gfx90a.txt
MCPU=gfx90a

if "$PYTHON" -c 'import importlib.util, sys
sys.exit(0 if importlib.util.find_spec("luthier.drivers.luthier_mc") else 1)' 2>/dev/null; then
    log "luthier-mc --disassemble --mcpu=$MCPU < $SAMPLE"
    luthier-mc --disassemble --mcpu="$MCPU" < "$SAMPLE"
else
    log "luthier-mc is not implemented yet (no luthier.drivers.luthier_mc);" \
        "llvm-mc-19's output for the sample instead:"
    llvm-mc-19 --disassemble -triple=amdgcn-amd-amdhsa -mcpu="$MCPU" < "$SAMPLE"
fi
