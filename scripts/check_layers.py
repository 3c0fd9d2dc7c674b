"""Check the layers contracts of pyproject.toml (``[tool.importlinter]``) with import-linter.

``luthier.<name>`` is a mapping of top-level folders (setup.py), installed through an editable
finder that import-linter's scanner cannot walk. So this builds a plain package tree,
``<tree>/luthier/<name> -> <folder>`` (symbolic links), and runs ``lint-imports`` with that
tree first on ``PYTHONPATH``. ``--folders DIR`` takes the folders from another checkout (the
layers test uses it to show that an upward import breaks the contract).

    python scripts/check_layers.py            # exit 0 when every contract is kept
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The folders installed as ``luthier.<folder>`` (setup.py's MAPPED_FOLDERS).
MAPPED = ("amdgpu_dialects", "frontend", "lowering", "passes", "emulator", "drivers",
          "conformance")


def check_layers(folders: Path = REPO, config: Path = REPO / "pyproject.toml") -> tuple[int, str]:
    """Run lint-imports over the packages in ``folders``; its exit status and report."""
    beside = Path(sysconfig.get_path("scripts")) / "lint-imports"
    lint_imports = str(beside) if beside.is_file() else shutil.which("lint-imports")
    if lint_imports is None:
        return 2, "lint-imports is not installed (pip install -e '.[dev]')"
    with tempfile.TemporaryDirectory(prefix="luthier-layers-") as tree:
        package = Path(tree) / "luthier"
        package.mkdir()
        for name in MAPPED:
            if (folders / name / "__init__.py").is_file():
                (package / name).symlink_to((folders / name).resolve(), target_is_directory=True)
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [tree, *filter(None, [os.environ.get("PYTHONPATH")])]))
        done = subprocess.run([lint_imports, str(config), "--no-cache"],
                              env=environment, capture_output=True, text=True, check=False,
                              cwd=tree)
    return done.returncode, done.stdout + done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--folders", type=Path, default=REPO,
                        help="the checkout whose folders are checked (default: this one)")
    args = parser.parse_args(argv)
    status, report = check_layers(args.folders)
    report_lines = report.splitlines()
    start = next((i for i, line in enumerate(report_lines) if line.startswith("Contracts")), 0)
    print("\n".join(report_lines[start:]))
    return status


if __name__ == "__main__":
    sys.exit(main())
