"""The compact ISA tables (what ``load_target`` reads) are current with the JSON tables.

``python -m luthier.amdgpu_dialects.isa.compact --check`` rebuilds each compact table from
its JSON and compares; a tampered compact table must fail the same check, so the check
cannot pass vacuously.
"""

from __future__ import annotations

import marshal
import shutil
import subprocess
import sys
from pathlib import Path

from luthier.amdgpu_dialects.isa.compact import MARSHAL_VERSION, TABLES_DIR, compact_path
from luthier.amdgpu_dialects.isa.target import SHARED_TABLES, SUPPORTED_TARGETS, load_target


def _check(tables: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "luthier.amdgpu_dialects.isa.compact", "--check",
         "--tables", str(tables)], capture_output=True, text=True, timeout=300, check=False)


def test_every_target_has_a_current_compact_table() -> None:
    for target in SUPPORTED_TARGETS:  # gfx1201 is served by gfx1200's table
        table = SHARED_TABLES.get(target, target)
        assert compact_path(table).is_file(), f"no compact table for {target}"
    result = _check(TABLES_DIR)
    assert result.returncode == 0, result.stderr


def test_a_stale_compact_table_fails_the_check(tmp_path: Path) -> None:
    for table in TABLES_DIR.glob("gfx90a.*"):
        shutil.copy(table, tmp_path / table.name)
    victim = compact_path("gfx90a", tmp_path)
    data = list(marshal.loads(victim.read_bytes()))
    data[3] = 32  # the wavefront size
    victim.write_bytes(marshal.dumps(tuple(data), MARSHAL_VERSION))
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "gfx90a.compact" in result.stderr


def test_loaded_model_shares_what_the_table_deduplicates() -> None:
    isa = load_target("gfx90a")
    by_name = isa.by_name
    first, second = by_name["V_ADD_F32_e32_vi"], by_name["V_SUB_F32_e32_vi"]
    assert first.operands is second.operands and first.index is second.index
    assert first.slot("src0").kind is isa.operand_kinds[first.slot("src0").kind.name]
    assert first.mask and first.value & first.mask == first.value
