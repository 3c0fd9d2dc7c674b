"""Tell whether this checkout is installed, editable, with the tools the test suite runs.

scripts/setup.sh and scripts/test.sh run it to decide whether ``pip install -e '.[dev]'`` is
needed: it is when a dependency or tool is missing, or when ``luthier.<name>`` resolves to
another checkout (a second clone installed later) or misses a mapped folder that gained an
``__init__.py`` after the last install. Prints what is wrong and exits 1, or exits 0 silently.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "luthier-xdsl"
DEV_COMMANDS = ("ruff", "pyright", "lit", "filecheck", "pytest", "lint-imports")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*(?:==\s*([^;\s]+))?")


def declared_requirements() -> list[tuple[str, str | None]]:
    """(distribution, pinned version or None) for the dependencies and the dev extra, read
    from pyproject.toml so that a dependency added there triggers a reinstall here."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project.get("dependencies", []))
    requirements += list(project.get("optional-dependencies", {}).get("dev", []))
    out: list[tuple[str, str | None]] = []
    for requirement in requirements:
        match = _REQUIREMENT.match(str(requirement))
        if match is not None:
            out.append((match.group(1), match.group(2)))
    return out


def declared_entry_points() -> set[tuple[str, str, str]]:
    """(group, name, value) of the console scripts and plugin entry points pyproject.toml
    declares: an install made before one was added (``luthier-opt``, the ``xdsl.universe``
    plugin) lacks it, and only a reinstall creates it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {("console_scripts", name, str(value))
                for name, value in project.get("scripts", {}).items()}
    for group, entries in project.get("entry-points", {}).items():
        declared |= {(group, name, str(value)) for name, value in entries.items()}
    return declared


def installed_entry_points() -> set[tuple[str, str, str]]:
    try:
        distribution = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return set()
    return {(entry.group, entry.name, entry.value) for entry in distribution.entry_points}


def load_mapped_folders() -> dict[str, str]:
    """Read the folder -> package mapping from setup.py, the one place it is written."""
    spec = importlib.util.spec_from_file_location("luthier_setup", ROOT / "setup.py")
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {ROOT / 'setup.py'}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cast(dict[str, str], module.MAPPED_FOLDERS)


def problems_with_package(folder: str, package: str) -> list[str]:
    """Say why ``package`` does not import from ``ROOT/folder``, if it does not."""
    if not (ROOT / folder / "__init__.py").is_file():
        return []
    try:
        spec = importlib.util.find_spec(package)
    except ImportError as error:
        return [f"{package}: {error}"]
    if spec is None or spec.submodule_search_locations is None:
        return [f"{package} is not importable"]
    expected = (ROOT / folder).resolve()
    locations = [Path(location).resolve() for location in spec.submodule_search_locations]
    if expected not in locations:
        found = ", ".join(str(location) for location in locations)
        return [f"{package} resolves to {found}, not {expected}"]
    return []


def find_problems(
    mapped_folders: dict[str, str], which: Callable[[str], str | None] = shutil.which
) -> list[str]:
    """Everything that a fresh ``pip install -e '.[dev]'`` of this checkout would fix."""
    problems: list[str] = []
    try:
        importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        problems.append(f"distribution {DISTRIBUTION} is not installed")
    for distribution, version in declared_requirements():
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"distribution {distribution} is missing")
            continue
        if version is not None and installed != version:
            problems.append(f"{distribution} {installed} is installed, {version} is required")
    for group, name, value in sorted(declared_entry_points() - installed_entry_points()):
        problems.append(f"entry point {name} = {value} ({group}) is not installed")
    for command in DEV_COMMANDS:
        if which(command) is None:
            problems.append(f"command {command} is missing")
    for folder, package in mapped_folders.items():
        problems.extend(problems_with_package(folder, package))
    return problems


def main() -> int:
    problems = find_problems(load_mapped_folders())
    for problem in problems:
        print(f"check_install: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
