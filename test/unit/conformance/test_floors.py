"""luthier-mc must not fall below the agreement floors in conformance/floors.json.

This runs the full harness (LLVM's whole AMDGPU MC corpus and random words, every target
floors.json names) against the ``luthier-mc`` command. The summary and the mismatch list are left in
build/conformance/ for whoever has to find out what regressed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from luthier.amdgpu_dialects.isa.target import TABLE_TARGETS
from luthier.conformance.cli import main
from luthier.conformance.report import load_floors

ROOT = Path(__file__).resolve().parents[3]
FLOORS = ROOT / "conformance" / "floors.json"
OUTPUT = ROOT / "build" / "conformance"


def test_luthier_mc_meets_the_floors(
    real_llvm_src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not (real_llvm_src / "llvm/test/MC/AMDGPU").is_dir():
        pytest.skip(f"no LLVM source tree at {real_llvm_src} (scripts/setup.sh extracts it)")
    floors = load_floors(FLOORS)
    # Every target with generated tables is scored: a target without floors is unmeasured.
    assert set(floors) == set(TABLE_TARGETS)
    summary_path = OUTPUT / "summary.json"
    status = main(
        [
            f"--llvm-src={real_llvm_src}",
            "--tool=luthier-mc",
            *(f"--mcpu={mcpu}" for mcpu in sorted(floors)),
            "--mode=all",
            f"--cache-dir={ROOT / 'build' / 'conformance-cache'}",
            f"--json={summary_path}",
            f"--mismatches={OUTPUT / 'mismatches.txt'}",
            f"--floors={FLOORS}",
        ]
    )
    report = capsys.readouterr().out
    summary = cast(dict[str, Any], json.loads(summary_path.read_text()))
    measured = cast(dict[str, dict[str, float | None]], summary["metrics"])
    for mcpu, per_metric in floors.items():
        assert set(per_metric) <= set(measured[mcpu]), f"{mcpu}: a floor names no metric"
    assert summary["floor_failures"] == [], report
    assert status == 0, report
