"""scripts/check_install.py must ask for a reinstall when an install lacks something
pyproject.toml declares: here, a console script or plugin entry point added after the
install was made (``luthier-opt`` and the ``xdsl.universe`` plugin were)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_install", ROOT / "scripts" /
                                                  "check_install.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_this_install_is_complete() -> None:
    module = _load()
    assert module.find_problems(module.load_mapped_folders()) == []


def test_declared_entry_points_include_the_drivers_and_plugin() -> None:
    declared = {(group, name) for group, name, _ in _load().declared_entry_points()}
    assert ("console_scripts", "luthier-opt") in declared
    assert ("xdsl.universe", "luthier") in declared


def test_missing_entry_point_is_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _load()
    installed = module.installed_entry_points()
    monkeypatch.setattr(module, "installed_entry_points", lambda: {
        entry for entry in installed if entry[1] != "luthier-opt"})
    problems = module.find_problems(module.load_mapped_folders())
    assert problems == ["entry point luthier-opt = luthier.drivers.luthier_opt:main "
                        "(console_scripts) is not installed"]
