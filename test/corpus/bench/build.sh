#!/usr/bin/env bash
# Rebuild the MC benchmark corpus: one code object per target from kernels.hip.
#
#   bash test/corpus/bench/build.sh          # rebuild kernels.<target>.co
#   bash test/corpus/bench/build.sh --check  # rebuild into a temporary folder and compare
#
# Needs clang-19 (scripts/setup.sh installs it). The outputs are committed, so that the
# benchmark (bench/bench_decode.py) and its smoke test run without a compiler; a fixed -cuid
# and no absolute paths in the command line keep them byte-identical from one build to the
# next, which --check verifies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
TARGETS=(gfx90a gfx942)

build() {
    local target="$1" output="$2"
    clang-19 -x hip --offload-device-only --offload-arch="$target" -nogpulib -nogpuinc \
        --no-gpu-bundle-output -cuid=bench -O3 -o "$output" kernels.hip
}

if [[ "${1:-}" == "--check" ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    status=0
    for target in "${TARGETS[@]}"; do
        build "$target" "$scratch/kernels.$target.co"
        if cmp -s "$scratch/kernels.$target.co" "kernels.$target.co"; then
            echo "kernels.$target.co: reproducible"
        else
            echo "kernels.$target.co: differs from a fresh build" >&2
            status=1
        fi
    done
    exit "$status"
fi

for target in "${TARGETS[@]}"; do
    build "$target" "kernels.$target.co"
    echo "built kernels.$target.co ($(stat -c %s "kernels.$target.co") bytes)"
done
