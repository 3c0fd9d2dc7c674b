#!/usr/bin/env bash
# The main job on the bundled sample: instrument examples/sample/vector_add.gfx90a.co with
# the instruction counter (examples/hooks/instr_count.mlir) into a loadable code object,
# show its exported counters, and run the original and the instrumented kernel in the
# emulator: the outputs must match and the counters must equal the emulator's own counts.
# Then disassemble the sample's instruction words with luthier-mc.
# scripts/setup.sh runs this last; change the main job here, in one place.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
luthier_select_python

SAMPLE=examples/sample/vector_add.gfx90a.txt
MCPU=gfx90a
CODE_OBJECT=examples/sample/vector_add.gfx90a.co
OUT=build/sample/vector_add.instr_count.gfx90a.co

mkdir -p build/sample
log "luthier-opt --lift --inline-hooks --emit-preamble $CODE_OBJECT --hooks examples/hooks/instr_count.mlir -o $OUT"
luthier-opt --lift --inline-hooks --emit-preamble "$CODE_OBJECT" \
    --hooks examples/hooks/instr_count.mlir --no-progress -o "$OUT"
log "llvm-readelf-19 --dyn-syms $OUT"
llvm-readelf-19 --dyn-syms "$OUT"
log "python examples/sample/run_instrumented.py $CODE_OBJECT $OUT"
"$PYTHON" examples/sample/run_instrumented.py "$CODE_OBJECT" "$OUT"

if "$PYTHON" -c 'import importlib.util, sys
sys.exit(0 if importlib.util.find_spec("luthier.drivers.luthier_mc") else 1)' 2>/dev/null; then
    log "luthier-mc --disassemble --mcpu=$MCPU < $SAMPLE"
    luthier-mc --disassemble --mcpu="$MCPU" < "$SAMPLE"
else
    log "luthier-mc is not implemented yet (no luthier.drivers.luthier_mc);" \
        "llvm-mc-19's output for the sample instead:"
    llvm-mc-19 --disassemble -triple=amdgcn-amd-amdhsa -mcpu="$MCPU" < "$SAMPLE"
fi
