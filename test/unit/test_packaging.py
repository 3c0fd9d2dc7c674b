"""The folder -> ``luthier.<name>`` mapping holds for every package, installed or built.

Every folder with Python files under a mapped folder must be a subpackage that imports as
``luthier.<dotted path>`` from this checkout, and a build (what ``pip install .`` would put in
site-packages) must hold every module and every ISA table.
"""

from __future__ import annotations

import importlib
import importlib.resources
import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE_FOLDER = Path("amdgpu_dialects/isa/tables")
TABLE_PACKAGE = "luthier.amdgpu_dialects.isa"
TABLE_PATTERNS = ("*.json", "*.json.gz", "*.compact")


def load_setup() -> tuple[dict[str, str], Callable[[Path], dict[str, str]]]:
    """setup.py's folder mapping and package finder (setup.py is not importable by name)."""
    spec = importlib.util.spec_from_file_location("luthier_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return (
        cast(dict[str, str], module.MAPPED_FOLDERS),
        cast(Callable[[Path], dict[str, str]], module.find_mapped_packages),
    )


MAPPED_FOLDERS, find_mapped_packages = load_setup()


def python_folders() -> Iterator[tuple[str, Path]]:
    """Yield (dotted package name, folder relative to ROOT) for each folder with .py files."""
    for folder, package in MAPPED_FOLDERS.items():
        top = ROOT / folder
        if not top.is_dir():
            continue
        for path in sorted([top, *top.rglob("*")]):
            if not path.is_dir() or path.name == "__pycache__" or path.name.startswith("."):
                continue
            if not any(path.glob("*.py")):
                continue
            relative = path.relative_to(top)
            yield ".".join((package, *relative.parts)), path.relative_to(ROOT)


def table_files() -> list[Path]:
    folder = ROOT / TABLE_FOLDER
    return sorted(path for pattern in TABLE_PATTERNS for path in folder.glob(pattern))


PYTHON_FOLDERS = list(python_folders())


def test_mapped_folders_hold_packages() -> None:
    """Guard against a silently empty test: the folders this checkout always has are found."""
    found = {package for package, _ in PYTHON_FOLDERS}
    for package in ("luthier.amdgpu_dialects", "luthier.frontend", "luthier.drivers"):
        assert package in found


@pytest.mark.parametrize(
    ("package", "folder"), PYTHON_FOLDERS, ids=[package for package, _ in PYTHON_FOLDERS]
)
def test_folder_is_an_importable_subpackage(package: str, folder: Path) -> None:
    assert (ROOT / folder / "__init__.py").is_file(), (
        f"{folder}/ has Python files but no __init__.py: it would not be installed as {package}"
    )
    module = importlib.import_module(package)
    locations = [Path(location).resolve() for location in module.__path__]
    if (ROOT / folder).resolve() in locations:
        return
    # Installed as a copy (not editable): the copy must have every module of the folder.
    assert len(locations) == 1, f"{package} has no single folder: {locations}"
    modules = (ROOT / folder).glob("*.py")
    missing = sorted(path.name for path in modules if not (locations[0] / path.name).exists())
    assert not missing, f"the installed {package} ({locations[0]}) lacks {missing}: reinstall"


def test_setup_finds_every_python_folder() -> None:
    packages = find_mapped_packages(ROOT)
    for package, folder in PYTHON_FOLDERS:
        assert packages.get(package) == folder.as_posix()


def test_installed_package_has_the_tables() -> None:
    tables = table_files()
    if not tables:
        pytest.skip(f"no tables in {TABLE_FOLDER} yet")
    installed = importlib.resources.files(TABLE_PACKAGE).joinpath("tables")
    for table in tables:
        assert installed.joinpath(table.name).is_file(), f"{table.name} is not installed"


def test_build_holds_every_module_and_table(tmp_path: Path) -> None:
    """Build the packages the way a wheel would be built, from a copy of the checkout."""
    pytest.importorskip("setuptools")
    source = tmp_path / "source"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for folder in MAPPED_FOLDERS:
        if (ROOT / folder).is_dir():
            shutil.copytree(
                ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
            )
    build = tmp_path / "build"
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(build)],
        cwd=source,
        check=True,
        capture_output=True,
    )
    # luthier itself is api/ (the entry point import luthier gives), nothing else.
    assert (build / "luthier" / "__init__.py").read_bytes() == \
        (ROOT / "api" / "__init__.py").read_bytes()
    for package, folder in PYTHON_FOLDERS:
        built = build / Path(*package.split("."))
        for module in (ROOT / folder).glob("*.py"):
            assert (built / module.name).is_file(), f"the build lacks {package}.{module.stem}"
    built_tables = build / Path(*TABLE_PACKAGE.split(".")) / "tables"
    for table in table_files():
        assert (built_tables / table.name).is_file(), f"the build lacks the table {table.name}"
    # The HIP hook header, which clang-19 includes from the installed package.
    assert (build / "luthier" / "frontend" / "hip" / "include" / "luthier_hooks.h").read_bytes() \
        == (ROOT / "frontend" / "hip" / "include" / "luthier_hooks.h").read_bytes()
