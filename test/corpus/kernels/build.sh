#!/usr/bin/env bash
# Rebuild the kernel corpus: HIP kernels, one .hip file per theme, compiled with clang-19 for
# gfx908, gfx90a and gfx942 into every form the frontend reads.
#
#   bash test/corpus/kernels/build.sh          # rebuild everything here, then MANIFEST.md
#   bash test/corpus/kernels/build.sh --check  # rebuild into a temporary folder and compare
#
# For each theme T and target G:
#   T.G.co        loadable code object (ET_DYN, as clang links it with lld), code object v5
#   T.G.o         relocatable object (ET_REL, with relocations): the object clang hands to lld,
#                 kept by -save-temps. It comes from clang's own assembler run on the -S text, so
#                 it has one extra, empty section (.AMDGPU.csdata) that an object assembled in
#                 memory (and the .co) lacks; the instructions are the same.
# and for each theme:
#   T.hipfb       clang offload bundle (HIP fat binary) with every target and an empty host entry
# plus, for a few themes, assembly and what llvm-mc-19 makes of it:
#   T.G.s         clang -S output
#   T.G.mc.o      llvm-mc-19 -filetype=obj of T.G.s (ET_REL)
# and the vector-add theme in other flavours:
#   elementwise.gfx90a.cov4.co, elementwise.gfx942.cov6.co   code object versions 4 and 6
#   elementwise.gfx942.preload.co   kernel arguments preloaded into SGPRs
#                                   (-amdgpu-kernarg-preload-count=8): each kernel starts with
#                                   the 256-byte s_trap/s_nop block for firmware without preload
#   elementwise.features.hipfb      a bundle of target IDs with features
#                                   (gfx90a:xnack+, gfx942:sramecc-:xnack-)
#
# Needs clang-19 and llvm-mc-19 (scripts/setup.sh installs them); MANIFEST.md also needs
# llvm-readelf-19, llvm-objdump-19 and clang-offload-bundler-19 (make_manifest.py). A fixed
# -cuid per theme and relative paths keep every output byte-identical from one build to the
# next, which --check verifies (it compares the binaries and MANIFEST.md).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
PYTHON="${PYTHON:-python3}"
TARGETS=(gfx908 gfx90a gfx942)
THEMES=(elementwise lds control_flow calls scratch mfma globals atomics edges)
# theme.target pairs that also get an .s and an llvm-mc object.
ASM=(control_flow.gfx90a globals.gfx942 calls.gfx942)
CLANG_FLAGS=(-x hip --offload-device-only -nogpulib -nogpuinc -O2)

# build OUT: write every output into folder OUT (sources are read from here).
build() {
    local out="$1" theme target work
    work="$(mktemp -d)"
    cp ./*.hip common.h "$work/"
    (
        cd "$work"
        for theme in "${THEMES[@]}"; do
            for target in "${TARGETS[@]}"; do
                clang-19 "${CLANG_FLAGS[@]}" --offload-arch="$target" --no-gpu-bundle-output \
                    -cuid="$theme" -o "$out/$theme.$target.co" "$theme.hip"
                # -save-temps keeps the relocatable object lld links (named after the input).
                mkdir -p "temps.$target"
                (cd "temps.$target" && clang-19 "${CLANG_FLAGS[@]}" --offload-arch="$target" \
                    --no-gpu-bundle-output -cuid="$theme" -save-temps -o linked.co \
                    "../$theme.hip")
                cp "temps.$target/$theme-hip-amdgcn-amd-amdhsa-$target.o" \
                    "$out/$theme.$target.o"
                rm -rf "temps.$target"
            done
            clang-19 "${CLANG_FLAGS[@]}" "${TARGETS[@]/#/--offload-arch=}" \
                -cuid="$theme" -o "$out/$theme.hipfb" "$theme.hip"
        done
        for pair in "${ASM[@]}"; do
            theme="${pair%.*}"
            target="${pair#*.}"
            clang-19 "${CLANG_FLAGS[@]}" --offload-arch="$target" --no-gpu-bundle-output \
                -cuid="$theme" -S -o "$out/$pair.s" "$theme.hip"
            llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu="$target" -filetype=obj \
                -o "$out/$pair.mc.o" "$out/$pair.s"
        done
        clang-19 "${CLANG_FLAGS[@]}" --offload-arch=gfx90a --no-gpu-bundle-output \
            -cuid=elementwise -mcode-object-version=4 -o "$out/elementwise.gfx90a.cov4.co" \
            elementwise.hip
        # clang-19 warns that v6 is "still in development"; the warning is expected.
        clang-19 "${CLANG_FLAGS[@]}" --offload-arch=gfx942 --no-gpu-bundle-output \
            -cuid=elementwise -mcode-object-version=6 -o "$out/elementwise.gfx942.cov6.co" \
            elementwise.hip 2>/dev/null
        clang-19 "${CLANG_FLAGS[@]}" --offload-arch=gfx942 --no-gpu-bundle-output \
            -cuid=elementwise -mllvm -amdgpu-kernarg-preload-count=8 \
            -o "$out/elementwise.gfx942.preload.co" elementwise.hip
        clang-19 "${CLANG_FLAGS[@]}" --offload-arch=gfx90a:xnack+ \
            --offload-arch=gfx942:sramecc-:xnack- -cuid=elementwise \
            -o "$out/elementwise.features.hipfb" elementwise.hip
    )
    rm -rf "$work"
    "$PYTHON" "$HERE/make_manifest.py" "$out" -o "$out/MANIFEST.md"
}

outputs() {  # the committed outputs, one per line, relative to this folder
    (cd "$1" && ls -1 ./*.co ./*.o ./*.hipfb ./*.s MANIFEST.md | sed 's|^\./||' | sort)
}

if [[ "${1:-}" == "--check" ]]; then
    # shellcheck source=../reproducible.sh
    source "$HERE/../reproducible.sh"
    check_reproducible
fi

rm -f ./*.co ./*.o ./*.hipfb ./*.s
build "$HERE"
echo "built $(outputs "$HERE" | wc -l) files ($(cat $(outputs "$HERE") | wc -c) bytes)"
