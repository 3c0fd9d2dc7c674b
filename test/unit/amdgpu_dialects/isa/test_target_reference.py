"""docs/targets.md is what the target objects answer today."""

from __future__ import annotations

from pathlib import Path

from luthier.amdgpu_dialects.isa.target_reference import REFERENCE, TARGETS, main, reference
from luthier.amdgpu_dialects.target.subtarget import Subtarget

ROOT = Path(__file__).resolve().parents[4]


def test_the_committed_table_is_current() -> None:
    assert main(["--check", "--root", str(ROOT)]) == 0, \
        "run python -m luthier.amdgpu_dialects.isa.target_reference"


def test_every_fact_and_target_is_in_the_table() -> None:
    text = reference()
    facts = [name for name, member in vars(Subtarget).items() if isinstance(member, property)]
    for name in facts:
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        assert len(row.split(" | ")) == len(TARGETS) + 2, row
        assert not row.endswith("|  |"), f"{name} has no docstring to say what it means"
    assert all(f" {target} |" in text for target in TARGETS)


def test_a_stale_table_is_reported(tmp_path: Path) -> None:
    (tmp_path / REFERENCE).parent.mkdir(parents=True)
    (tmp_path / REFERENCE).write_text(reference().replace("GFX12", "GFX13"))
    assert main(["--check", "--root", str(tmp_path)]) == 1
    assert main(["--root", str(tmp_path)]) == 0
    assert main(["--check", "--root", str(tmp_path)]) == 0
