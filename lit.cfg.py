"""lit configuration: the golden-IR and tool tests under test/lit/ (``lit -v test/lit``).

RUN lines name tools as users type them; substitutions point them at what this checkout
runs: ``luthier-mc``/``luthier-opt`` (this checkout's console scripts), ``filecheck`` (the
Python FileCheck, also as ``FileCheck``), ``llvm-mc``/``llvm-objdump``/``llvm-readelf``/
``ld.lld`` (Debian's LLVM 19 tools), ``%python`` (the interpreter running lit). ``not`` is a
builtin of lit's internal shell; test/tools/not (on PATH) handles ``not --crash``. The
features ``luthier-mc`` and ``luthier-opt`` are set when those drivers exist, for
``REQUIRES:``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

import lit.formats  # pyright: ignore[reportMissingTypeStubs]

# lit executes this file with `config` (a lit.TestingConfig) in its globals.
config: Any = globals()["config"]

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / "test" / "tools"
SCRIPTS = Path(sysconfig.get_path("scripts"))

config.name = "luthier-xdsl"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".s", ".test"]
config.excludes = ["Inputs", "Output", "third_party", "examples", "build"]
config.test_source_root = str(ROOT)
config.test_exec_root = str(ROOT)
config.environment["PATH"] = os.pathsep.join(
    [str(TOOLS), str(SCRIPTS), config.environment.get("PATH", os.environ.get("PATH", ""))]
)
# lit drops PYTHONPATH; keep it, so that a checkout whose packages are put first on the path
# (a second worktree, say, beside the installed one) runs its own luthier-opt in the tests.
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]


def quote(path: str) -> str:
    """Quote a path for a RUN line if it needs it."""
    return f'"{path}"' if " " in path else path


def console_script(name: str) -> str:
    """The console script of this interpreter's install, else whatever PATH has."""
    candidate = SCRIPTS / name
    if candidate.is_file():
        return quote(str(candidate))
    return quote(shutil.which(name) or name)


def add_tool(name: str, command: str) -> None:
    """Replace ``name`` where it stands as a command word (not inside a path or longer name)."""
    pattern = rf"(?<![\w./%-]){re.escape(name)}(?![\w.-])"
    config.substitutions.append((pattern, command.replace("\\", "\\\\")))


def has_module(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


for driver, module in (
    ("luthier-mc", "luthier.drivers.luthier_mc"),
    ("luthier-opt", "luthier.drivers.luthier_opt"),
    ("luthier-batch", "luthier.drivers.luthier_batch"),
):
    add_tool(driver, console_script(driver))
    if has_module(module):
        config.available_features.add(driver)

add_tool("FileCheck", console_script("filecheck"))
add_tool("filecheck", console_script("filecheck"))
for tool in ("llvm-mc", "llvm-objdump", "llvm-readelf", "ld.lld"):
    add_tool(tool, quote(shutil.which(f"{tool}-19") or f"{tool}-19"))
config.substitutions.append(("%python", quote(sys.executable)))
# HIP hook files (.hip) compile with clang-19 (scripts/setup.sh installs it).
if shutil.which("clang-19"):
    config.available_features.add("clang-19")
