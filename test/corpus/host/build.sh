#!/usr/bin/env bash
# Rebuild the host-binary corpus: HIP libraries and programs with host code and an embedded
# fat binary, as a HIP application ships them, built with clang-19 without ROCm from the
# kernel corpus's sources (../kernels/*.hip) and hip_host.h.
#
#   bash test/corpus/host/build.sh          # rebuild everything here
#   bash test/corpus/host/build.sh --check  # rebuild into a temporary folder and compare
#
# Outputs (device code for gfx90a and gfx942 unless said):
#   libelementwise.so        shared library linked by ld.lld-19 (a RELATIVE relocation
#                            points its __hip_fatbin_wrapper at the fat binary)
#   libelementwise.zstd.so   the same with --offload-compress (a zstd CCOB bundle)
#   libelementwise.bfd.so    linked by GNU ld instead (a different segment layout)
#   libelementwise.rdna.so   for gfx90a and gfx1030 (CDNA and RDNA side by side)
#   libelementwise.gfx1150.so  for gfx90a and gfx1150 (a target luthier has no tables for:
#                            left as it was, with a warning)
#   libtwo.so                two translation units (elementwise, lds): .hip_fatbin holds
#                            two bundles, one wrapper each
#   elementwise.exe          a position-dependent executable (-no-pie: an absolute pointer,
#                            no relocation) that needs libstub_runtime.so
#   elementwise.host.o       the relocatable host object (relocations against .hip_fatbin)
#   libstub_runtime.so       stub_runtime.c: the HIP registration entry points, writing the
#                            bundle a library registers to $LUTHIER_FATBIN_DUMP.<n>
#
# Needs clang-19 and ld.lld-19 (scripts/setup.sh installs them) and GNU ld (binutils). A fixed
# -cuid and relative paths keep every output byte-identical from one build to the next,
# which --check verifies.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
HIP_FLAGS=(-x hip -nogpulib -nogpuinc -O2 --offload-arch=gfx90a --offload-arch=gfx942 -fPIC
           -I. -I../kernels)

# build OUT: write every output into folder OUT.
build() {
    local out="$1" work theme
    work="$(mktemp -d)"
    cp ../kernels/*.hip ../kernels/common.h hip_host.h stub_runtime.c main.c "$work/"
    (
        cd "$work"
        for theme in elementwise lds; do
            printf '#include "hip_host.h"\n#include "%s.hip"\n' "$theme" > "$theme.host.hip"
            clang-19 "${HIP_FLAGS[@]}" -cuid="$theme" -c -o "$theme.host.o" "$theme.host.hip"
        done
        clang-19 "${HIP_FLAGS[@]}" -cuid=elementwise --offload-compress -c \
            -o elementwise.zstd.o elementwise.host.hip
        clang-19 "${HIP_FLAGS[@]/--offload-arch=gfx942/--offload-arch=gfx1030}" \
            -cuid=elementwise -c -o elementwise.rdna.o elementwise.host.hip
        clang-19 -fuse-ld=lld -shared -o "$out/libelementwise.rdna.so" elementwise.rdna.o
        clang-19 "${HIP_FLAGS[@]/--offload-arch=gfx942/--offload-arch=gfx1150}" \
            -cuid=elementwise -c -o elementwise.gfx1150.o elementwise.host.hip
        clang-19 -fuse-ld=lld -shared -o "$out/libelementwise.gfx1150.so" elementwise.gfx1150.o
        clang-19 -fuse-ld=lld -shared -o "$out/libelementwise.so" elementwise.host.o
        clang-19 -fuse-ld=lld -shared -o "$out/libelementwise.zstd.so" elementwise.zstd.o
        clang-19 -fuse-ld=bfd -shared -o "$out/libelementwise.bfd.so" elementwise.host.o
        clang-19 -fuse-ld=lld -shared -o "$out/libtwo.so" elementwise.host.o lds.host.o
        clang-19 -O1 -fPIC -shared -fuse-ld=lld -o "$out/libstub_runtime.so" stub_runtime.c
        clang-19 "${HIP_FLAGS[@]/-fPIC/-fno-pic}" -cuid=elementwise -c -o elementwise.nopic.o \
            elementwise.host.hip
        clang-19 -O1 -c -o main.o main.c
        clang-19 -fuse-ld=lld -no-pie -o "$out/elementwise.exe" main.o elementwise.nopic.o \
            -L"$out" -lstub_runtime
        cp elementwise.host.o "$out/elementwise.host.o"
    )
    rm -rf "$work"
}

outputs() {  # the committed outputs, one per line, relative to this folder
    (cd "$1" && ls -1 ./*.so ./*.exe ./*.o | sed 's|^\./||' | sort)
}

if [[ "${1:-}" == "--check" ]]; then
    # shellcheck source=../reproducible.sh
    source "$HERE/../reproducible.sh"
    check_reproducible
fi

rm -f ./*.so ./*.exe ./*.o
build "$HERE"
echo "built $(outputs "$HERE" | wc -l) files ($(cat $(outputs "$HERE") | wc -c) bytes)"
