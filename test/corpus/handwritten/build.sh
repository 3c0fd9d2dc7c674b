#!/usr/bin/env bash
# Assemble and link the hand-written code objects: each T.s becomes T.co (ld.lld-19 -shared of
# llvm-mc-19's object), as a user of hand-written assembly builds one.
#
#   bash test/corpus/handwritten/build.sh          # rebuild T.co here
#   bash test/corpus/handwritten/build.sh --check  # rebuild into a temporary folder, compare
#
# The inputs are what compilers never make and LLVM's tools accept: function symbols without
# .size (no_size.s), data words between and after functions (data_between.s), filler words
# after a function (filler.s), a table before the first function (leading_data.s), kernels
# that branch into the code of another (shared_tail.s) or into code no symbol names
# (unnamed_code.s), 16-bit halves of VGPRs as GFX11 true16 code names them (true16.s), and a
# processor we have no tables for (unsupported_target.s).
# Each file is assembled for the processor its .amdgcn_target line names. Needs llvm-mc-19
# and ld.lld-19 (scripts/setup.sh installs them).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

build() {
    local out="$1" source name work mcpu
    work="$(mktemp -d)"
    for source in *.s; do
        name="${source%.s}"
        mcpu="$(sed -n 's/^[[:space:]]*\.amdgcn_target "amdgcn-amd-amdhsa--\([a-z0-9]*\).*/\1/p' \
            "$source")"
        llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu="$mcpu" -filetype=obj "$source" \
            -o "$work/$name.o"
        ld.lld-19 -shared "$work/$name.o" -o "$out/$name.co"
    done
    rm -rf "$work"
}

if [[ "${1:-}" == "--check" ]]; then
    fresh="$(mktemp -d)"
    trap 'rm -rf "$fresh"' EXIT
    build "$fresh"
    status=0
    for source in *.s; do
        name="${source%.s}"
        if ! cmp -s "$fresh/$name.co" "$name.co"; then
            echo "test/corpus/handwritten/$name.co is not what build.sh makes of $source" >&2
            status=1
        fi
    done
    exit "$status"
fi
build "$HERE"
