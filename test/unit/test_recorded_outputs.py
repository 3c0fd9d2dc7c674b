"""Every corpus input gives the bytes recorded in ``test/corpus/recorded_outputs.json``.

``scripts/record_outputs.py`` runs the user's commands (each output format of an unchanged
input, and every example hook through ``--lift --inline-hooks --emit-preamble``) and
compares SHA-256 digests and sizes with the record, made before the architecture
refactoring. A change of output is deliberate or a bug: re-record only with the reason in
the commit message. Marked ``slow`` (minutes on two cores).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _recorder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "record_outputs", ROOT / "scripts" / "record_outputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_record_covers_every_case() -> None:
    recorder = _recorder()
    recorded = json.loads(recorder.RECORD.read_text())
    keys = {case.key for case in recorder.cases()}
    assert keys == set(recorded)
    instrumented = [key for key in keys if " + examples/hooks/" in key]
    assert len(instrumented) >= 8 * 20
    assert all(result["status"] == 0 for result in recorded.values())


def test_differences_names_each_changed_case() -> None:
    recorder = _recorder()
    recorded = {"a": {"status": 0, "sha256": "1"}, "b": {"status": 0, "sha256": "2"}}
    now = {"a": {"status": 0, "sha256": "1"}, "b": {"status": 0, "sha256": "3"},
           "c": {"status": 1, "error": "x"}}
    lines = recorder.differences(recorded, now)
    assert [line.split(":")[0] for line in lines] == ["b", "c"]


def _python_twin(key: str) -> bool:
    """A case instrumenting with a Python example hook (``examples/hooks/X.py``)."""
    return key.endswith(".py")


def _not_python_twin(key: str) -> bool:
    return not _python_twin(key)


def test_python_twins_are_recorded_as_their_mlir() -> None:
    """Each Python example hook builds the IR of its MLIR twin (test_examples.py), and the
    record holds the same bytes for both on every input: so checking the MLIR twins' cases
    checks the Python ones' (which the slow check below leaves out, for CI's time)."""
    recorded = json.loads(_recorder().RECORD.read_text())
    twins = [key for key in recorded if _python_twin(key)]
    assert len(twins) >= 8 * 20
    for key in twins:
        assert recorded[key] == recorded[key.removesuffix(".py") + ".mlir"], key


@pytest.mark.slow
def test_outputs_equal_the_record() -> None:
    """Every case but the Python twins' (see above); ``python scripts/record_outputs.py
    --check`` runs them all."""
    recorder = _recorder()
    recorded = {key: value for key, value in json.loads(recorder.RECORD.read_text()).items()
                if not _python_twin(key)}
    now = recorder.run_all(os.cpu_count() or 1, None, only=_not_python_twin)
    assert recorder.differences(recorded, now) == []
