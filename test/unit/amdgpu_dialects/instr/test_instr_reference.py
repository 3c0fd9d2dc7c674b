"""docs/instr-reference.md is what the dialect's definitions give today."""

from __future__ import annotations

from pathlib import Path

from luthier.amdgpu_dialects.instr.dialect import INSTR
from luthier.amdgpu_dialects.instr.reference import REFERENCE, main, reference

ROOT = Path(__file__).resolve().parents[4]


def test_the_committed_reference_is_current() -> None:
    assert main(["--check", "--root", str(ROOT)]) == 0, \
        "run python -m luthier.amdgpu_dialects.instr.reference"


def test_every_op_and_attribute_has_its_section() -> None:
    text = reference()
    for op in INSTR.operations:
        assert f"### `{op.name}`" in text
    for attr in INSTR.attributes:
        assert f"### `#{attr.name}`" in text
    assert "`SMEM`" not in text and "`VMEM`" not in text  # classes no target has


def test_a_stale_reference_is_reported(tmp_path: Path) -> None:
    (tmp_path / REFERENCE).parent.mkdir(parents=True)
    (tmp_path / REFERENCE).write_text(reference().replace("instr.atomic", "instr.atomik"))
    assert main(["--check", "--root", str(tmp_path)]) == 1
    assert main(["--root", str(tmp_path)]) == 0
    assert main(["--check", "--root", str(tmp_path)]) == 0
