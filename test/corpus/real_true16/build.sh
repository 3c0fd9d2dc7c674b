#!/usr/bin/env bash
# Rebuild the real-true16 corpus: half.hip compiled with clang-22 for gfx1100 and gfx1201,
# in wave32 and wave64 (-mwavefrontsize64). LLVM 21 and later compile GFX11 as real true16
# by default (llvm/llvm-project PRs 140736 and 143518), GFX12 from PR 187514 (March 2026,
# after LLVM 22): gfx1201 goes through llc-22 -mattr=+real-true16, as that default does.
# LLVM 19, whose tables the project generates, cannot decode such code; these objects test the real-true16 twins of the tables and the
# undefined bits a lifted word keeps (amdgpu_dialects/isa/generate.py, docs/targets.md).
#
#   bash test/corpus/real_true16/build.sh          # rebuild here
#   bash test/corpus/real_true16/build.sh --check  # rebuild into a temporary folder, compare
#
# For each target G and wave size:
#   half.G.co / half.G.w64.co            loadable code object (ET_DYN), code object v5
#   half.G.objdump / half.G.w64.objdump  llvm-objdump-22 -d of it: the reference text of
#                                        the halves (tests compare without needing LLVM 22)
#   half.G.fake16.co / half.G.w64.fake16.co  the same source compiled by clang-19 (fake
#                                        true16): the emulator's runs of the two builds
#                                        must give the same bytes
#
# Needs clang-22, llc-22, lld-22 and llvm-objdump-22 (apt-get install clang-22 lld-22 llvm-22, from
# the same Debian repositories as LLVM 19) and clang-19; the tests read only the committed
# outputs.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
TARGETS=(gfx1100 gfx1201)
CLANG_FLAGS=(-x hip --offload-device-only -nogpulib -nogpuinc -O2 --no-gpu-bundle-output
             -cuid=half)

# compile OUT TARGET SUFFIX MATTR [FLAGS...]: half.G<suffix>.co and its disassembly (with
# the features MATTR, as llvm-objdump reads a wave64 object as wave32 unless told) into OUT.
compile() {
    local out="$1" target="$2" suffix="$3" mattr="$4" work
    shift 4
    if [[ "$target" == gfx11* ]]; then
        clang-22 "${CLANG_FLAGS[@]}" "$@" --offload-arch="$target" \
            -o "$out/half.$target$suffix.co" half.hip
    else
        work="$(mktemp -d)"
        clang-22 "${CLANG_FLAGS[@]}" "$@" --offload-arch="$target" -emit-llvm -S \
            -o "$work/half.ll" half.hip
        llc-22 -mtriple=amdgcn-amd-amdhsa -mcpu="$target" -mattr="+real-true16,$mattr" -O2 \
            -filetype=obj "$work/half.ll" -o "$work/half.o"
        ld.lld-22 -shared "$work/half.o" -o "$out/half.$target$suffix.co"
        rm -rf "$work"
    fi
    # The disassembly without the file name line, so that it does not depend on the folder.
    llvm-objdump-22 -d --mattr="+real-true16,$mattr" "$out/half.$target$suffix.co" \
        | tail -n +3 > "$out/half.$target$suffix.objdump"
    clang-19 "${CLANG_FLAGS[@]}" "$@" --offload-arch="$target" \
        -o "$out/half.$target$suffix.fake16.co" half.hip
}

build() {
    local out="$1" target
    for target in "${TARGETS[@]}"; do
        compile "$out" "$target" "" "+wavefrontsize32"
        compile "$out" "$target" ".w64" "+wavefrontsize64" -mwavefrontsize64
    done
}

outputs() {  # the committed outputs, one per line, relative to this folder
    (cd "$1" && ls -1 ./*.co ./*.objdump | sed 's|^\./||' | sort)
}

if [[ "${1:-}" == "--check" ]]; then
    # shellcheck source=../reproducible.sh
    source "$HERE/../reproducible.sh"
    check_reproducible
fi

rm -f ./*.co ./*.objdump
build "$HERE"
echo "built $(outputs "$HERE" | wc -l) files"
