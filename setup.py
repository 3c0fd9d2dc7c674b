"""Map the top-level folders to subpackages of the ``luthier`` namespace.

pyproject.toml holds the metadata; this file holds what it cannot express: the folder list is
walked for ``__init__.py`` at build time, so a new subpackage (say ``amdgpu_dialects/isa/``) is
packaged without editing any configuration. ``luthier`` itself is the folder ``api/`` (its
``__init__.py``, the Python entry point ``import luthier; luthier.instrument(...)``): no
folder of the checkout is named after it, so running from the checkout never shadows the
installed package, and no generic top-level module such as ``passes`` or ``frontend`` lands
in site-packages.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
NAMESPACE = "luthier"

#: Checkout folder -> subpackage of ``luthier`` it is installed as.
MAPPED_FOLDERS: dict[str, str] = {
    "api": NAMESPACE,
    "amdgpu_dialects": f"{NAMESPACE}.amdgpu_dialects",
    "frontend": f"{NAMESPACE}.frontend",
    "lowering": f"{NAMESPACE}.lowering",
    "passes": f"{NAMESPACE}.passes",
    "drivers": f"{NAMESPACE}.drivers",
    "conformance": f"{NAMESPACE}.conformance",
    "emulator": f"{NAMESPACE}.emulator",
}

#: Non-Python files installed with a package, as globs relative to the package folder.
PACKAGE_DATA: dict[str, list[str]] = {
    f"{NAMESPACE}.amdgpu_dialects.isa": ["tables/*.json", "tables/*.json.gz", "tables/*.compact"],
    f"{NAMESPACE}.drivers": ["luthier_opt_help.json"],
    f"{NAMESPACE}.frontend.hip": ["include/*.h"],
}


def find_mapped_packages(root: Path = ROOT) -> dict[str, str]:
    """Return every package under the mapped folders, as dotted name -> folder (relative).

    A folder is a package when it has an ``__init__.py`` and so do all its parents up to the
    mapped folder; anything else could not be imported under ``luthier`` anyway.
    """
    packages: dict[str, str] = {}
    for folder, package in MAPPED_FOLDERS.items():
        top = root / folder
        if not (top / "__init__.py").is_file():
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            here = Path(dirpath)
            relative = here.relative_to(top)
            dotted = ".".join((package, *relative.parts))
            if "__init__.py" not in filenames:
                dirnames[:] = []
                continue
            packages[dotted] = here.relative_to(root).as_posix()
            dirnames[:] = sorted(
                name for name in dirnames if name != "__pycache__" and not name.startswith(".")
            )
    return packages


def main() -> None:
    packages = find_mapped_packages()
    setup(
        packages=sorted(packages),
        package_dir={
            package: folder
            for package, folder in packages.items()
            if package in MAPPED_FOLDERS.values()
        },
        package_data={
            package: patterns for package, patterns in PACKAGE_DATA.items() if package in packages
        },
        include_package_data=False,
    )


if __name__ == "__main__":
    main()
