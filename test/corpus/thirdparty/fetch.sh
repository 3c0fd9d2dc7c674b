#!/usr/bin/env bash
# Fetch AMDGPU code objects that someone else compiled: Debian bookworm's ROCm 5.x packages.
#
#   bash test/corpus/thirdparty/fetch.sh          # fetch and extract, unless already done
#   bash test/corpus/thirdparty/fetch.sh --stamp  # print what build/thirdparty/.stamp must say
#   bash test/corpus/thirdparty/fetch.sh --large  # the large set instead, on demand (below)
#
# The large set (rocSPARSE: a 94 MB .deb, 1.3 GB unpacked, 333 code objects of up to 533
# thousand instructions; about 3 minutes) is for benchmarks and campaigns at library scale
# (bench/bench_lift.py, scripts/round_trip_campaign.py), never for CI: it goes to
# build/thirdparty-large/ with its own stamp, and its unpacked tree is removed once the
# code objects are out.
#
# Downloads each package below with `apt-get download NAME=VERSION` (kept in
# $LUTHIER_CACHE_DIR/thirdparty, default ~/.cache/luthier-xdsl/thirdparty), checks its SHA-256,
# unpacks it with `dpkg-deb -x` under build/thirdparty/root/<package>/, and runs extract.py
# (luthier's own reader) to write every gfx90a/gfx908/gfx942 code object to
# build/thirdparty/codeobjects/<package>/ and build/thirdparty/MANIFEST.txt. The stamp
# build/thirdparty/.stamp (package versions, checksums, extract.py's hash) is written last;
# when it says what --stamp prints, the script does nothing. See README.md in this folder.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/common.sh"

HERE="$REPO_ROOT/test/corpus/thirdparty"
CACHE_DIR="${LUTHIER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/luthier-xdsl}/thirdparty"

# package version sha256-of-the-.deb
PACKAGES=(
    "librocrand1 5.3.3-4 b145d4e47a26ce14da5f8550a092db8d3c7e2d84174c68885336de40f51b7b81"
    "libhsa-runtime64-1 5.2.3-3 9b633756945b16124376b274dbc681e4022c2b9704b8bdfa04637b09c7bfad93"
)
LARGE_PACKAGES=(
    "librocsparse0 5.3.0+dfsg-2 688878bb8cb9ec7970e7b632828d91336a6819860fb0c306372eb6a7199b3b8e"
)

OUT="$REPO_ROOT/build/thirdparty"
print_stamp=false
for argument in "$@"; do
    case "$argument" in
        --stamp) print_stamp=true ;;
        --large) PACKAGES=("${LARGE_PACKAGES[@]}"); OUT="$REPO_ROOT/build/thirdparty-large" ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) die "unknown argument: $argument (try --help)" ;;
    esac
done
STAMP="$OUT/.stamp"

expected_stamp() {
    local entry
    for entry in "${PACKAGES[@]}"; do
        echo "$entry"
    done
    echo "extract.py $(sha256sum "$HERE/extract.py" | cut -d' ' -f1)"
}

if $print_stamp; then
    expected_stamp
    exit 0
fi

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$(expected_stamp)" ]]; then
    log "third-party code objects: present in ${OUT#"$REPO_ROOT"/}"
    exit 0
fi

as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "apt-get update needs root and sudo is not installed: run as root: $*"
    fi
}

# Print the path of the .deb of NAME VERSION in the cache, downloaded when absent, checked
# against SHA256. (Commands write to stderr: stdout is the path.)
fetch_deb() {
    local name="$1" version="$2" sha256="$3"
    local deb
    deb="$CACHE_DIR/${name}_${version#*:}_amd64.deb"
    if [[ ! -f "$deb" ]]; then
        if ! apt-cache show "$name=$version" >/dev/null 2>&1; then
            log "apt-get update (apt knows no $name=$version yet)"
            as_root apt-get update -q >&2
        fi
        log "apt-get download $name=$version (into $CACHE_DIR)"
        (cd "$CACHE_DIR" && apt-get download -q "$name=$version" >&2) \
            || die "apt-get download $name=$version failed (Debian bookworm's main archive has it)"
    fi
    [[ -f "$deb" ]] || die "apt-get download left no $deb"
    if [[ "$(sha256sum "$deb" | cut -d' ' -f1)" != "$sha256" ]]; then
        rm -f "$deb"
        die "$deb: SHA-256 differs from the pinned one (removed; run again to download it anew)"
    fi
    echo "$deb"
}

luthier_select_python
mkdir -p "$CACHE_DIR"
rm -rf "$OUT"
mkdir -p "$OUT/root"
roots=()
for entry in "${PACKAGES[@]}"; do
    read -r name version sha256 <<<"$entry"
    deb="$(fetch_deb "$name" "$version" "$sha256")"
    log "dpkg-deb -x $(basename "$deb") ${OUT#"$REPO_ROOT"/}/root/$name"
    dpkg-deb -x "$deb" "$OUT/root/$name"
    roots+=("$name=$OUT/root/$name")
done
log "extracting gfx90a/gfx908/gfx942 code objects into ${OUT#"$REPO_ROOT"/}/codeobjects"
"$PYTHON" "$HERE/extract.py" "$OUT" "${roots[@]}"
if [[ "$OUT" == */thirdparty-large ]]; then
    rm -rf "$OUT/root"  # 1.3 GB of host libraries whose code objects are out
fi
expected_stamp > "$STAMP"
log "third-party code objects: $(grep -c '^codeobjects/' "$OUT/MANIFEST.txt") files listed in ${OUT#"$REPO_ROOT"/}/MANIFEST.txt"
