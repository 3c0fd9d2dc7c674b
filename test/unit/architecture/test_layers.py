"""The layers contracts hold, an upward import breaks them, and the MC layer needs no xDSL.

``scripts/check_layers.py`` runs import-linter over the contracts in pyproject.toml
(docs/architecture.md draws the layers). The second test copies ``amdgpu_dialects/`` into a
temporary checkout, adds one module that imports the pass registry (an upward import) and
checks that the same command now fails and names that import: the contract cannot pass
vacuously.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[3]


def _check_layers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_layers",
                                                  ROOT / "scripts" / "check_layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_layers_contract_is_kept() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"]
    status, report = _check_layers().check_layers()
    assert status == 0, report
    assert f"{len(contracts)} kept, 0 broken" in report
    assert len(contracts) >= 4


def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    checker = _check_layers()
    for name in checker.MAPPED:
        if name != "amdgpu_dialects" and (ROOT / name).is_dir():
            (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copytree(ROOT / "amdgpu_dialects", tmp_path / "amdgpu_dialects",
                    ignore=shutil.ignore_patterns("tables", "__pycache__"))
    upward = tmp_path / "amdgpu_dialects" / "amdgpu_mc" / "upward.py"
    upward.write_text('"""An upward import."""\n\n'
                      "from luthier.passes.registry import LUTHIER_PASSES\n\n"
                      "__all__ = ['LUTHIER_PASSES']\n")
    status, report = checker.check_layers(tmp_path)
    assert status != 0
    assert "layers import only downward BROKEN" in report
    assert "luthier.amdgpu_dialects.amdgpu_mc.upward -> luthier.passes.registry" in report


def test_the_mc_layer_runs_without_xdsl() -> None:
    """Decode, print, parse and encode one instruction in a process that never imports xDSL
    (the forbidden contract checks the source; this checks what actually loads)."""
    program = (
        "import sys\n"
        "from luthier.amdgpu_dialects.mc.decoder import decoder_for\n"
        "from luthier.amdgpu_dialects.mc.encoder import encoder_for\n"
        "from luthier.amdgpu_dialects.mc.printer import printer_for\n"
        "from luthier.amdgpu_dialects.mc.asm_parser import parser_for\n"
        "inst = parser_for('gfx90a').parse('s_add_u32 s0, s1, 4')\n"
        "data = encoder_for('gfx90a').encode(inst)\n"
        "back = decoder_for('gfx90a').decode(data)\n"
        "print(printer_for('gfx90a').print(back), data.hex())\n"
        "print(sorted(m for m in sys.modules if m == 'xdsl' or m.startswith('xdsl.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    printed, loaded = done.stdout.splitlines()
    assert printed == "s_add_u32 s0, s1, 4 01840080"  # llvm-mc-19: [0x01,0x84,0x00,0x80]
    assert loaded == "[]"
