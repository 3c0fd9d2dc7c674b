#!/usr/bin/env bash
# Set up everything luthier-xdsl needs on Debian 12 (bookworm), then run the main job on the
# bundled sample (scripts/sample.sh).
#
#   bash scripts/setup.sh                 # install what is missing, then run the sample
#   bash scripts/setup.sh --install-only  # install what is missing, no sample
#
# Safe to run again: each step checks first and skips what is already there.
#   1. Debian packages clang-19, llvm-19, lld-19 (and python3/nodejs/xz-utils if absent).
#   2. A Python >= 3.11 with `pip install -e '.[dev]'` of this checkout. $PYTHON picks the
#      interpreter; where python3 is Debian's externally managed one, a .venv is made here.
#   3. The parts of the LLVM 19 source we build from and test against, from Debian's source
#      package llvm-toolchain-19 (the exact version of the installed llvm-19), extracted into
#      third_party/llvm-19/llvm/. The downloaded tarball is kept in $LUTHIER_CACHE_DIR
#      (default ~/.cache/luthier-xdsl).
#   4. Third-party AMDGPU code objects (Debian's ROCm 5.x libraries) for the conformance tests,
#      fetched by test/corpus/thirdparty/fetch.sh into build/thirdparty/.
# apt steps need root: run as root, or as a user with sudo.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

INSTALL_ONLY=0
for arg in "$@"; do
    case "$arg" in
        --install-only) INSTALL_ONLY=1 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) die "unknown argument: $arg (try --help)" ;;
    esac
done

CACHE_DIR="${LUTHIER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/luthier-xdsl}"
LLVM_SOURCE_PACKAGE=llvm-toolchain-19
APT_UPDATED=0

# Run a command as root: directly when we are root, through sudo when we have it.
as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "this step needs root and sudo is not installed: run 'bash scripts/setup.sh' as root, or run as root: $*"
    fi
}

apt_update_once() {
    if [[ "$APT_UPDATED" -eq 0 ]]; then
        log "apt-get update"
        as_root apt-get update -q
        APT_UPDATED=1
    fi
}

apt_install() {
    apt_update_once
    log "apt-get install $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

install_system_packages() {
    local wanted=()
    # clang-tools-19 has clang-offload-bundler, which clang-19 runs to build HIP fat binaries.
    luthier_have_llvm_tools || wanted+=(clang-19 clang-tools-19 llvm-19 lld-19)
    command -v python3 >/dev/null 2>&1 || [[ -n "${PYTHON:-}" ]] \
        || wanted+=(python3 python3-venv python3-pip)
    # pyright (from PyPI) runs on Node.js; without one it would try to download one.
    command -v node >/dev/null 2>&1 || wanted+=(nodejs)
    command -v xz >/dev/null 2>&1 || wanted+=(xz-utils)
    if [[ "${#wanted[@]}" -eq 0 ]]; then
        log "system packages: present"
        return
    fi
    apt_install "${wanted[@]}"
    luthier_have_llvm_tools || die "still missing one of: ${LUTHIER_LLVM_TOOLS[*]}"
}

# Debian's python3 refuses pip installs into the system (PEP 668): use a venv in the checkout.
make_venv_if_needed() {
    [[ -n "${PYTHON:-}" ]] && return
    [[ -x "$REPO_ROOT/.venv/bin/python" ]] && return
    local python
    python="$(command -v python3 || command -v python)"
    if "$python" -c 'import os, sys, sysconfig
managed = os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
sys.exit(0 if managed and sys.prefix == sys.base_prefix else 1)'; then
        log "$python is externally managed: creating $REPO_ROOT/.venv"
        "$python" -m venv "$REPO_ROOT/.venv" 2>/dev/null || {
            apt_install python3-venv
            "$python" -m venv "$REPO_ROOT/.venv"
        }
    fi
}

install_python_packages() {
    make_venv_if_needed
    luthier_select_python
    if "$PYTHON" scripts/check_install.py 2>/dev/null; then
        log "python packages: present ($PYTHON)"
        return
    fi
    log "pip install -e '.[dev]' ($PYTHON)"
    "$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore \
        -e "$REPO_ROOT[dev]"
    # pyenv finds new console scripts (luthier-mc...) only after a rehash.
    if command -v pyenv >/dev/null 2>&1; then
        pyenv rehash || true
    fi
    "$PYTHON" scripts/check_install.py || die "the install of this checkout is still incomplete"
}

# Make `apt-get source` able to find Debian source packages: derive deb-src entries from the
# machine's own deb entries, so that the same mirrors and suites are used.
have_source_package() {
    apt-cache showsrc "$LLVM_SOURCE_PACKAGE" 2>/dev/null | grep -q '^Package:'
}

ensure_deb_src() {
    have_source_package && return
    # deb-src entries may be configured already, with package lists not yet fetched.
    apt_update_once
    have_source_package && return
    local deb822=/etc/apt/sources.list.d/debian.sources
    local target
    if [[ -f "$deb822" ]] && grep -q '^Types: *deb *$' "$deb822"; then
        target=/etc/apt/sources.list.d/luthier-deb-src.sources
        log "adding deb-src entries to $target (from $deb822)"
        sed 's/^Types: *deb *$/Types: deb-src/' "$deb822" | as_root tee "$target" >/dev/null
    elif [[ -f /etc/apt/sources.list ]] && grep -q '^deb ' /etc/apt/sources.list; then
        target=/etc/apt/sources.list.d/luthier-deb-src.list
        log "adding deb-src lines to $target (from /etc/apt/sources.list)"
        sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | as_root tee "$target" >/dev/null
    else
        die "no deb entries found in $deb822 or /etc/apt/sources.list to derive deb-src from"
    fi
    APT_UPDATED=0
    apt_update_once
    have_source_package || die "apt still knows no source package $LLVM_SOURCE_PACKAGE"
}

# The source version of the installed llvm-19 (e.g. 1:19.1.7-3~deb12u1), or nothing.
installed_llvm_version() {
    dpkg-query -W -f='${source:Version}' llvm-19 2>/dev/null || true
}

# The name of the upstream tarball of a Debian version: 1:19.1.7-3~deb12u1 -> ..._19.1.7.orig...
tarball_name() {
    local upstream="${1#*:}"
    echo "${LLVM_SOURCE_PACKAGE}_${upstream%-*}.orig.tar.xz"
}

find_cached_tarball() {
    local wanted="$1"
    if [[ -n "$wanted" ]]; then
        [[ -f "$CACHE_DIR/$wanted" ]] && echo "$CACHE_DIR/$wanted"
        return 0
    fi
    compgen -G "$CACHE_DIR/${LLVM_SOURCE_PACKAGE}_*.orig.tar.xz" | sort | tail -n 1 || true
}

fetch_llvm_source() {
    # The version of the installed llvm-19, so that sources and oracle tools agree.
    local version wanted=""
    version="$(installed_llvm_version)"
    [[ -n "$version" ]] && wanted="$(tarball_name "$version")"
    if [[ -f "$LUTHIER_LLVM_SRC_STAMP" ]] \
        && [[ -z "$wanted" || "$(cat "$LUTHIER_LLVM_SRC_STAMP")" == "$wanted" ]]; then
        log "LLVM 19 source: present in third_party/llvm-19"
        return
    fi
    mkdir -p "$CACHE_DIR"
    local tarball
    tarball="$(find_cached_tarball "$wanted")"
    if [[ -z "$tarball" ]]; then
        ensure_deb_src
        local spec="$LLVM_SOURCE_PACKAGE"
        [[ -n "$version" ]] && spec="$LLVM_SOURCE_PACKAGE=$version"
        log "apt-get source --download-only $spec (into $CACHE_DIR)"
        (cd "$CACHE_DIR" && apt-get source -q --download-only "$spec") \
            || (cd "$CACHE_DIR" && apt-get source -q --download-only "$LLVM_SOURCE_PACKAGE")
        tarball="$(find_cached_tarball "$wanted")"
        [[ -n "$tarball" ]] || tarball="$(find_cached_tarball "")"
        [[ -n "$tarball" ]] || die "apt-get source left no ${LLVM_SOURCE_PACKAGE}_*.orig.tar.xz in $CACHE_DIR"
    fi
    local top
    top="$(basename "$tarball" .orig.tar.xz)"
    log "extracting the AMDGPU parts of $(basename "$tarball") into third_party/llvm-19"
    local staging="$REPO_ROOT/third_party/.llvm-19.partial"
    rm -rf "$staging"
    mkdir -p "$staging"
    tar -xJf "$tarball" -C "$staging" --strip-components=1 --wildcards \
        "$top/llvm/lib/Target/AMDGPU/*" \
        "$top/llvm/include/llvm/*.td" \
        "$top/llvm/test/MC/AMDGPU/*" \
        "$top/llvm/test/MC/Disassembler/AMDGPU/*" \
        "$top/llvm/docs/AMDGPUUsage.rst"
    [[ -f "$staging/llvm/lib/Target/AMDGPU/AMDGPU.td" ]] || die "extraction missed AMDGPU.td"
    basename "$tarball" > "$staging/.extracted"
    rm -rf "$LUTHIER_LLVM_SRC"
    mv "$staging" "$LUTHIER_LLVM_SRC"
}

fetch_thirdparty_code_objects() {
    # Needs the installed checkout: the code objects are extracted with our own reader.
    bash "$REPO_ROOT/test/corpus/thirdparty/fetch.sh"
}

install_system_packages
install_python_packages
fetch_llvm_source
fetch_thirdparty_code_objects
log "setup complete"
if [[ "$INSTALL_ONLY" -eq 0 ]]; then
    bash "$REPO_ROOT/scripts/sample.sh"
fi
