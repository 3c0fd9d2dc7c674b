"""The committed mnemonic table (``amdgpu_mc/mnemonics.py``) is what its generator makes from
the ISA tables now, and ``--check`` notices a stale copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from luthier.amdgpu_dialects.amdgpu_mc import generate_mnemonics


def test_committed_mnemonics_are_current() -> None:
    assert generate_mnemonics.main(["--check"]) == 0


def test_check_fails_on_a_stale_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    current = generate_mnemonics.OUTPUT.read_text()
    stale = tmp_path / "mnemonics.py"
    stale.write_text(current.replace("    's_endpgm': 'terminator',\n", ""))
    assert stale.read_text() != current
    monkeypatch.setattr(generate_mnemonics, "OUTPUT", stale)
    assert generate_mnemonics.main(["--check"]) == 1
    assert "mnemonics.py is stale" in capsys.readouterr().err
