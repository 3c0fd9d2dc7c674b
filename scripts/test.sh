#!/usr/bin/env bash
# The whole test suite: ruff, the layers contracts (import-linter), pyright (strict), pytest
# and lit. Installs what is missing first (scripts/setup.sh --install-only; the sample is not
# run). Exits non-zero when any step fails, including a pytest run that collects no test (its
# exit code 5).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

needs_install() {
    luthier_have_llvm_tools || return 0
    [[ -f "$LUTHIER_LLVM_SRC_STAMP" ]] || return 0
    [[ "$(cat build/thirdparty/.stamp 2>/dev/null)" == \
        "$(bash test/corpus/thirdparty/fetch.sh --stamp)" ]] || return 0
    (
        luthier_select_python
        "$PYTHON" scripts/check_install.py
    ) || return 0
    return 1
}

if needs_install; then
    log "installing what is missing: scripts/setup.sh --install-only"
    bash scripts/setup.sh --install-only
fi
luthier_select_python

failed=()
run_step() {
    local name="$1"
    shift
    log "$name: $*"
    if "$@"; then
        log "$name: passed"
    else
        log "$name: FAILED (exit $?)"
        failed+=("$name")
    fi
}

run_step ruff ruff check .
run_step layers "$PYTHON" scripts/check_layers.py
run_step pyright bash scripts/typecheck.sh --no-ruff
# One pytest worker per core (pytest-xdist): the suite is thousands of 1-3 s tests, and one
# process took 31 minutes, over the 30-minute CI budget. Idle workers take tests queued
# for busy ones (worksteal), so a few long tests near the end do not leave a core idle.
run_step pytest "$PYTHON" -m pytest -q -n auto --dist worksteal test/
run_step lit lit -v test/lit

if [[ "${#failed[@]}" -gt 0 ]]; then
    log "failed steps: ${failed[*]}"
    exit 1
fi
log "all steps passed"
