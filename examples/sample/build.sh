#!/usr/bin/env bash
# Rebuild the bundled sample: one loadable code object per target from vector_add.hip, and
# for each an llvm-mc disassembler input listing its instructions (make_mc_input.py).
#
#   bash examples/sample/build.sh
#
# Needs clang-19 and llvm-objdump-19 (scripts/setup.sh installs them). The outputs are
# committed; a fixed -cuid keeps them byte-identical from one build to the next.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PYTHON="${PYTHON:-python3}"
TARGETS=(gfx90a gfx942)

for target in "${TARGETS[@]}"; do
    clang-19 -x hip --offload-device-only --offload-arch="$target" -nogpulib -nogpuinc \
        --no-gpu-bundle-output -cuid=vector_add -O2 \
        -o "vector_add.$target.co" vector_add.hip
    "$PYTHON" make_mc_input.py --mcpu="$target" "vector_add.$target.co" \
        -o "vector_add.$target.txt"
    echo "built vector_add.$target.co and vector_add.$target.txt"
done
