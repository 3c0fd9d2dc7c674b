# Shared helpers for the scripts in this folder. Source it; do not run it.
#
# After sourcing: the working directory is the repository root, REPO_ROOT is set, and
# `luthier_select_python` sets PYTHON and puts its scripts folder first on PATH.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

# System tools from Debian's llvm-19, clang-19, clang-tools-19 and lld-19 that builds and tests
# call.
LUTHIER_LLVM_TOOLS=(clang-19 llvm-mc-19 llvm-objdump-19 llvm-tblgen-19 llvm-readelf-19 ld.lld-19
    clang-offload-bundler-19)
# Where the LLVM 19 source parts land (gitignored) and the stamp that says they are complete.
LUTHIER_LLVM_SRC="$REPO_ROOT/third_party/llvm-19"
LUTHIER_LLVM_SRC_STAMP="$LUTHIER_LLVM_SRC/.extracted"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Pick the Python interpreter: $PYTHON if given, else the checkout's .venv if setup.sh made
# one, else python3 from PATH. Put its scripts folder (console scripts, ruff, pyright, lit...)
# first on PATH, so that the tools of that interpreter are the ones that run.
luthier_select_python() {
    if [[ -z "${PYTHON:-}" ]]; then
        if [[ -x "$REPO_ROOT/.venv/bin/python" ]]; then
            PYTHON="$REPO_ROOT/.venv/bin/python"
        elif command -v python3 >/dev/null 2>&1; then
            PYTHON="$(command -v python3)"
        elif command -v python >/dev/null 2>&1; then
            PYTHON="$(command -v python)"
        else
            die "no python3 found; install Python 3.11 or newer"
        fi
    fi
    "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
        || die "$PYTHON is $("$PYTHON" --version 2>&1); luthier-xdsl needs Python 3.11 or newer"
    local scripts
    scripts="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')"
    export PATH="$scripts:$PATH"
    export PYTHON
}

# True when every system tool the project uses is on PATH.
luthier_have_llvm_tools() {
    local tool
    for tool in "${LUTHIER_LLVM_TOOLS[@]}"; do
        command -v "$tool" >/dev/null 2>&1 || return 1
    done
}
