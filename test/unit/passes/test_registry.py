"""The pass registry (``luthier.passes.registry``) is complete, named right, and what stock
``xdsl-opt`` runs.

Every ``ModulePass`` class defined under ``luthier.passes`` and ``luthier.lowering`` must be
registered, under its own ``name``; the registry's factories import nothing until called.
``xdsl-opt`` (through the ``xdsl.universe`` entry point) lists every pass, and running the
individual passes there in the pipeline's order gives the same IR as ``luthier-opt``'s
``lower-hooks,finalize-instrumentation``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.passes import ModulePass

from luthier.passes.registry import LUTHIER_PASSES, LUTHIER_UNIVERSE

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"
HOOKS = ROOT / "examples" / "hooks" / "instr_count.mlir"
#: lower-hooks then finalize-instrumentation, one registered pass at a time.
PIPELINE = ("insert-hooks", "inline-hooks", "select-instructions", "virtualize-phys-regs",
            "place-sva", "lower-intrinsics", "save-payload-state",
            "allocate-payload-registers", "verify-payloads", "emit-preamble",
            "update-descriptors", "splice-payloads", "export-tool-globals", "relax-branches")
PRINTERS = ("print-cfg", "print-callgraph", "print-liveness", "print-register-usage")


def _defined_passes() -> set[type[ModulePass]]:
    found: set[type[ModulePass]] = set()
    for package_name in ("luthier.passes", "luthier.lowering"):
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            module = importlib.import_module(info.name)
            for _, value in inspect.getmembers(module, inspect.isclass):
                if (issubclass(value, ModulePass) and value.__module__ == info.name
                        and not inspect.isabstract(value)):
                    found.add(value)
    return found


def test_every_pass_is_registered_under_its_name() -> None:
    registered = {key: factory() for key, factory in LUTHIER_PASSES.items()}
    for key, pass_class in registered.items():
        assert pass_class.name == key
    assert set(registered.values()) == _defined_passes()
    assert LUTHIER_UNIVERSE.all_passes is LUTHIER_PASSES


def test_the_registry_imports_no_pass() -> None:
    program = ("import sys\nimport luthier.passes.registry\n"
               "print(sorted(m for m in sys.modules if m.startswith('luthier.') and "
               "m.split('.')[1] in ('passes', 'lowering', 'frontend')))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "['luthier.passes', 'luthier.passes.registry']"


def _run(*command: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, f"{' '.join(command)}: {done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def hooked_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample lifted, with instr_count's hooks merged in, as MLIR text."""
    path = tmp_path_factory.mktemp("registry") / "hooked.mlir"
    _run("luthier-opt", "--lift", str(SAMPLE), "--hooks", str(HOOKS), "--no-progress",
         "-o", str(path))
    return path


def test_xdsl_opt_lists_every_pass() -> None:
    help_text = "".join(_run("xdsl-opt", "--help").split())
    for key in LUTHIER_PASSES:
        assert key in help_text


def test_xdsl_opt_runs_the_passes_one_by_one(hooked_input: Path) -> None:
    stepwise = _run("xdsl-opt", str(hooked_input), "-p", ",".join(PIPELINE))
    whole = _run("luthier-opt", str(hooked_input), "-p",
                 "lower-hooks,finalize-instrumentation")
    assert stepwise == whole
    assert "instr.payload" not in stepwise and "amdgpu_mc.s_add_u32" in stepwise


@pytest.mark.parametrize("key", PRINTERS)
def test_xdsl_opt_runs_each_analysis_printer(hooked_input: Path, key: str) -> None:
    assert _run("xdsl-opt", str(hooked_input), "-p", key).strip()


def test_xdsl_opt_runs_the_report(hooked_input: Path) -> None:
    done = subprocess.run(["xdsl-opt", str(hooked_input), "-p",
                           "lower-hooks,print-instrumentation-report"],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "vector_add" in done.stderr + done.stdout
