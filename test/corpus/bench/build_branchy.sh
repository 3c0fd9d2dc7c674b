#!/usr/bin/env bash
# Build the relaxation benchmark's kernels: gen_branchy.py at 5k, 10k, 20k and 40k
# instructions, compiled for gfx90a (branchy.<size>.gfx90a.co).
#
#   bash test/corpus/bench/build_branchy.sh          # rebuild branchy.*.gfx90a.co
#   bash test/corpus/bench/build_branchy.sh --check  # rebuild into a temporary folder and compare
#
# Needs clang-19 (scripts/setup.sh installs it). The outputs are committed, so that
# bench/bench_relaxation.py and its smoke test run without a compiler. As in build.sh, a fixed
# -cuid and relative paths (the source is generated into, and compiled from, a scratch folder)
# keep them byte-identical from one build to the next, which --check verifies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
SIZES=(5k 10k 20k 40k)
HERE="$PWD"

build() {
    local size="$1" output="$2" scratch
    scratch="$(mktemp -d)"
    python3 "$HERE/gen_branchy.py" "${size%k}000" > "$scratch/branchy.hip"
    (cd "$scratch" && clang-19 -x hip --offload-device-only --offload-arch=gfx90a -nogpulib \
        -nogpuinc --no-gpu-bundle-output -cuid=bench -O3 -o branchy.co branchy.hip)
    mv "$scratch/branchy.co" "$output"
    rm -rf "$scratch"
}

if [[ "${1:-}" == "--check" ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    status=0
    for size in "${SIZES[@]}"; do
        build "$size" "$scratch/branchy.$size.gfx90a.co"
        if cmp -s "$scratch/branchy.$size.gfx90a.co" "branchy.$size.gfx90a.co"; then
            echo "branchy.$size.gfx90a.co: reproducible"
        else
            echo "branchy.$size.gfx90a.co: differs from a fresh build" >&2
            status=1
        fi
    done
    exit "$status"
fi

for size in "${SIZES[@]}"; do
    build "$size" "branchy.$size.gfx90a.co"
    echo "built branchy.$size.gfx90a.co ($(stat -c %s "branchy.$size.gfx90a.co") bytes)"
done
