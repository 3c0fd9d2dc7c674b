#!/usr/bin/env bash
# Type-check (pyright, strict) and lint (ruff) the whole project.
#
# pyright cannot see that `luthier.<name>` is the folder <name>/ (a package-dir mapping, see
# setup.py), so this builds a tree of symlinks, .typecheck/luthier/<name> -> ../../<name>
# (gitignored), which pyproject.toml gives pyright as extraPaths. Editors using pyright or
# pylance see the same once this script has run.
#
#   bash scripts/typecheck.sh            # pyright, then ruff check .
#   bash scripts/typecheck.sh --no-ruff  # pyright only (scripts/test.sh runs ruff itself)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
luthier_select_python

RUN_RUFF=1
for arg in "$@"; do
    case "$arg" in
        --no-ruff) RUN_RUFF=0 ;;
        *) die "unknown argument: $arg" ;;
    esac
done

MAPPED=(amdgpu_dialects frontend lowering passes drivers conformance emulator)

rm -rf .typecheck
mkdir -p .typecheck/luthier
# api/ is the luthier package itself (its __init__.py); the others are its subpackages.
ln -s ../../api/__init__.py .typecheck/luthier/__init__.py
for folder in "${MAPPED[@]}"; do
    if [[ -f "$folder/__init__.py" ]]; then
        ln -s "../../$folder" ".typecheck/luthier/$folder"
    fi
done

# What to check: the mapped packages that exist, plus tests, examples, scripts, configs.
targets=()
for path in api "${MAPPED[@]}" test examples scripts setup.py lit.cfg.py; do
    [[ -e "$path" ]] && targets+=("$path")
done

log "pyright (strict) ${targets[*]}"
pyright --pythonpath "$PYTHON" "${targets[@]}"
if [[ "$RUN_RUFF" -eq 1 ]]; then
    log "ruff check ."
    ruff check .
fi
