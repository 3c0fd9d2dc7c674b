#!/usr/bin/env bash
# Rebuild the RDNA kernel corpus: the themes of ../kernels (same HIP sources, same flags),
# compiled with clang-19 for gfx1030 (RDNA2), gfx1100 (RDNA3) and gfx1201 (RDNA4), each in
# wave32 (the RDNA default) and in wave64 (-mwavefrontsize64).
#
#   bash test/corpus/rdna/build.sh          # rebuild everything here, then MANIFEST.md
#   bash test/corpus/rdna/build.sh --check  # rebuild into a temporary folder and compare
#
# For each theme T, target G and wave size:
#   T.G.co / T.G.w64.co   loadable code object (ET_DYN, as clang links it with lld), v5
#   T.G.o  / T.G.w64.o    the relocatable object clang hands to lld (-save-temps)
#
# These targets lift, print, parse and are written back; instrumentation and the emulator
# serve the GFX9 corpus in ../kernels only, which is why these objects live apart (the tests
# that iterate ../kernels run the whole pipeline on every object there). The mfma theme has
# no RDNA form (RDNA has WMMA, not MFMA).
#
# Needs clang-19 (scripts/setup.sh installs it); MANIFEST.md also needs llvm-readelf-19 and
# llvm-objdump-19. A fixed -cuid per theme and relative paths keep every output
# byte-identical from one build to the next, which --check verifies.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCES="$HERE/../kernels"
cd "$HERE"
PYTHON="${PYTHON:-python3}"
TARGETS=(gfx1030 gfx1100 gfx1201)
THEMES=(elementwise lds control_flow calls scratch globals atomics edges)
CLANG_FLAGS=(-x hip --offload-device-only -nogpulib -nogpuinc -O2)

# compile OUT THEME TARGET SUFFIX [FLAGS...]: T.G<suffix>.co and .o into OUT.
compile() {
    local out="$1" theme="$2" target="$3" suffix="$4"
    shift 4
    clang-19 "${CLANG_FLAGS[@]}" "$@" --offload-arch="$target" --no-gpu-bundle-output \
        -cuid="$theme" -o "$out/$theme.$target$suffix.co" "$theme.hip"
    mkdir -p "temps.$target"
    (cd "temps.$target" && clang-19 "${CLANG_FLAGS[@]}" "$@" --offload-arch="$target" \
        --no-gpu-bundle-output -cuid="$theme" -save-temps -o linked.co "../$theme.hip")
    cp "temps.$target/$theme-hip-amdgcn-amd-amdhsa-$target.o" "$out/$theme.$target$suffix.o"
    rm -rf "temps.$target"
}

# build OUT: write every output into folder OUT.
build() {
    local out="$1" theme target work
    work="$(mktemp -d)"
    cp "$SOURCES"/*.hip "$SOURCES/common.h" "$work/"
    (
        cd "$work"
        for theme in "${THEMES[@]}"; do
            for target in "${TARGETS[@]}"; do
                compile "$out" "$theme" "$target" ""
                compile "$out" "$theme" "$target" ".w64" -mwavefrontsize64
            done
        done
    )
    rm -rf "$work"
    "$PYTHON" "$SOURCES/make_manifest.py" --rdna "$out" -o "$out/MANIFEST.md"
}

outputs() {  # the committed outputs, one per line, relative to this folder
    (cd "$1" && ls -1 ./*.co ./*.o MANIFEST.md | sed 's|^\./||' | sort)
}

if [[ "${1:-}" == "--check" ]]; then
    # shellcheck source=../reproducible.sh
    source "$HERE/../reproducible.sh"
    check_reproducible
fi

rm -f ./*.co ./*.o
build "$HERE"
echo "built $(outputs "$HERE" | wc -l) files ($(cat $(outputs "$HERE") | wc -c) bytes)"
