#!/usr/bin/env bash
# Fetch AMDGPU code objects that someone else compiled: Debian bookworm's ROCm 5.x packages.
#
#   bash test/corpus/thirdparty/fetch.sh          # fetch and extract, unless already done
#   bash test/corpus/thirdparty/fetch.sh --stamp  # print what build/thirdparty/.stamp must say
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
OUT="$REPO_ROOT/build/thirdparty"
STAMP="$OUT/.stamp"
CACHE_DIR="${LUTHIER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/luthier-xdsl}/thirdparty"

# package version sha256-of-the-.deb
PACKAGES=(
    "librocrand1 5.3.3-4 b145d4e47a26ce14da5f8550a092db8d3c7e2d84174c68885336de40f51b7b81"
    "libhsa-runtime64-1 5.2.3-3 9b633756945b16124376b274dbc681e4022c2b9704b8bdfa04637b09c7bfad93"
)

expected_stamp() {
    local entry
    for entry in "${PACKAGES[@]}"; do
        echo "$entry"
    done
    echo "extract.py $(sha256sum "$HERE/extract.py" | cut -d' ' -f1)"
}

case "${1:-}" in
    "") ;;
    --stamp) expected_stamp; exit 0 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (try --help)" ;;
esac

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$(expected_stamp)" ]]; then
    log "third-party code objects: present in build/thirdparty"
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
    log "dpkg-deb -x $(basename "$deb") build/thirdparty/root/$name"
    dpkg-deb -x "$deb" "$OUT/root/$name"
    roots+=("$name=$OUT/root/$name")
done
log "extracting gfx90a/gfx908/gfx942 code objects into build/thirdparty/codeobjects"
"$PYTHON" "$HERE/extract.py" "$OUT" "${roots[@]}"
expected_stamp > "$STAMP"
log "third-party code objects: $(grep -c '^codeobjects/' "$OUT/MANIFEST.txt") files listed in build/thirdparty/MANIFEST.txt"
