"""The committed sample inputs are what examples/sample/make_mc_input.py makes of the .co files.

Run examples/sample/build.sh after changing the kernel or the script.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "sample"
CODE_OBJECTS = sorted(SAMPLE.glob("vector_add.*.co"))


def test_sample_code_objects_are_committed() -> None:
    assert {path.name for path in CODE_OBJECTS} >= {"vector_add.gfx90a.co", "vector_add.gfx942.co"}


@pytest.mark.parametrize("code_object", CODE_OBJECTS, ids=[path.name for path in CODE_OBJECTS])
def test_mc_input_matches_code_object(code_object: Path) -> None:
    if shutil.which("llvm-objdump-19") is None:
        pytest.skip("llvm-objdump-19 is not installed (scripts/setup.sh installs it)")
    mcpu = code_object.name.split(".")[1]
    made = subprocess.run(
        [sys.executable, str(SAMPLE / "make_mc_input.py"), f"--mcpu={mcpu}", code_object.name],
        cwd=SAMPLE,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    committed = code_object.with_suffix(".txt").read_text()
    assert made == committed, f"{code_object.with_suffix('.txt').name} is stale: run build.sh"
