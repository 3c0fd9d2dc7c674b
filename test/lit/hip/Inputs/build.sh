#!/usr/bin/env bash
# Rebuild the LLVM IR inputs of the HIP import tests from their .hip sources with clang-19,
# as luthier-opt --hooks compiles a .hip file (luthier.frontend.hip.compile.compile_command:
# device only, no ROCm headers or libraries, -O2, line tables, named values), plus a fixed
# -cuid and compilation directory so that the output does not depend on where it runs.
#
#   bash test/lit/hip/Inputs/build.sh           # rewrite the .ll files here
#   bash test/lit/hip/Inputs/build.sh --check   # rebuild into a temporary folder, compare
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Relative to this folder (where clang runs): the header's path is in the debug info.
INCLUDE="../../../../frontend/hip/include"
BAD_CASES=(INLINE_ASM FLOAT CMPXCHG LOOP RECURSION ALLOCA POINTER UNDEFINED_GLOBAL
           INITIALIZED_GLOBAL UNKNOWN_FUNCTION REGISTER_WIDTH INSERT_SELECTOR INSERT_UNKNOWN_HOOK
           UNSUPPORTED_INTRINSIC NO_HOOK MATH FLOAT_ATOMIC)

compile() {  # compile SOURCE OUT [DEFINE]
    clang-19 -x hip --offload-device-only -nogpulib -nogpuinc -O2 --offload-arch=gfx90a \
        -emit-llvm -S -gline-tables-only -fno-discard-value-names -cuid=hooks \
        -fdebug-compilation-dir=. -I "$INCLUDE" ${3:+-D"$3"} -o "$2" "$1"
}

build() {  # build OUT: every .ll into folder OUT
    local out="$1" case lower
    cd "$HERE"
    compile control.hip "$out/control.ll"
    compile floats.hip "$out/floats.ll"
    compile fma.hip "$out/fma.ll"
    compile fdiv.hip "$out/fdiv.ll"
    compile division.hip "$out/division.ll"
    compile fmod.hip "$out/fmod.ll"
    compile minmax.hip "$out/minmax.ll"
    for case in "${BAD_CASES[@]}"; do
        lower="$(echo "$case" | tr '[:upper:]' '[:lower:]')"
        compile bad_hooks.hip "$out/bad_$lower.ll" "$case"
    done
}

if [[ "${1:-}" == "--check" ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    build "$scratch"
    status=0
    for file in "$scratch"/*.ll; do
        if ! cmp -s "$file" "$HERE/$(basename "$file")"; then
            echo "out of date: test/lit/hip/Inputs/$(basename "$file")" >&2
            status=1
        fi
    done
    exit "$status"
fi
build "$HERE"
