"""The committed ISA tables are exactly what the generator makes from LLVM 19's TableGen files.

Runs ``llvm-tblgen-19 -dump-json`` over ``AMDGPU.td`` from ``third_party/llvm-19`` (which
``scripts/setup.sh`` extracts), then ``python -m luthier.amdgpu_dialects.isa.generate
--check`` on its output, which fails on any difference with ``amdgpu_dialects/isa/tables``.
A tampered copy of the tables must fail the same check, so the check cannot pass vacuously.

This takes a few minutes (the records dump is about 420 MB) and is marked ``slow``: skip it
locally with ``pytest -m "not slow"``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LLVM_SRC = ROOT / "third_party" / "llvm-19"
AMDGPU_TD = LLVM_SRC / "llvm" / "lib" / "Target" / "AMDGPU" / "AMDGPU.td"
TABLES = ROOT / "amdgpu_dialects" / "isa" / "tables"


def _generate_check(records: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "luthier.amdgpu_dialects.isa.generate", "--check",
         "--llvm-src", str(LLVM_SRC), "--records-json", str(records), "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False,
    )


@pytest.mark.slow
def test_isa_tables_match_llvm_tablegen(tmp_path: Path) -> None:
    if not AMDGPU_TD.is_file():
        pytest.skip(f"{AMDGPU_TD} is missing: run scripts/setup.sh to extract LLVM 19's sources")
    tblgen = shutil.which("llvm-tblgen-19")
    if tblgen is None:
        pytest.skip("llvm-tblgen-19 is not installed (Debian package llvm-19)")
    records = tmp_path / "amdgpu.json"
    try:
        subprocess.run(
            [tblgen, "-dump-json", "-I", str(LLVM_SRC / "llvm" / "include"),
             "-I", str(AMDGPU_TD.parent), str(AMDGPU_TD), "-o", str(records)],
            check=True, capture_output=True, timeout=1800,
        )
        current = _generate_check(records, TABLES)
        assert current.returncode == 0, (
            "the committed ISA tables differ from what LLVM 19's TableGen records give; "
            "regenerate them with python -m luthier.amdgpu_dialects.isa.generate\n"
            + current.stderr)

        # The check notices a one-character change in one table.
        tampered = tmp_path / "tables"
        shutil.copytree(TABLES, tampered)
        victim = tampered / "gfx942.json"
        text = victim.read_text()
        victim.write_text(text.replace('"s_mov_b32"', '"s_mov_b33"', 1))
        assert victim.read_text() != text
        stale = _generate_check(records, tampered)
        assert stale.returncode == 1
        assert "gfx942.json" in stale.stderr
        assert "gfx90a.json" not in stale.stderr
    finally:
        records.unlink(missing_ok=True)  # 420 MB: do not keep it in pytest's tmp dirs
