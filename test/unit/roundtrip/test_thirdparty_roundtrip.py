"""Round trips of code objects that someone else compiled and linked (rocRAND, the HSA
runtime's blit kernels; ROCm 5.x clang and ld.lld 15, code object v4, see
test/corpus/thirdparty/README.md), through the user's command.

``luthier-opt --lift in.co -o out.co`` gives every one of them back byte for byte, as a
whole file, with no warning, and ``--report`` says so. That takes following the input's
linker where ld.lld 15 and 19 differ: no ``.relro_padding`` section (``PT_GNU_RELRO`` still
reaches its page end), the input's ``.comment`` as it was (naming LLD 15, not merged with
ours), and ``.strtab`` in the order that linker met the names (hidden globals it made
local among the globals).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.compare import compare_code_objects, file_differences

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "build" / "thirdparty"
CODE_OBJECTS = sorted((OUT / "codeobjects").glob("*/*.co"))
IN_CI = os.environ.get("CI") == "true"
READELF = "llvm-readelf-19"
OBJDUMP = "llvm-objdump-19"


def _require(condition: bool, message: str) -> None:
    if condition:
        return
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def test_there_is_a_thirdparty_corpus() -> None:
    _require(len(CODE_OBJECTS) >= 5 and (OUT / ".stamp").is_file(),
             f"no third-party corpus in {OUT}: run bash test/corpus/thirdparty/fetch.sh")


def _kernel_names(path: Path) -> set[str]:
    out = subprocess.run([READELF, "--symbols", "--wide", str(path)], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines()
            if line.split() and line.split()[-1].endswith(".kd")}


@pytest.mark.parametrize("path", CODE_OBJECTS,
                         ids=[f"{p.parent.name}/{p.name}" for p in CODE_OBJECTS])
def test_thirdparty_code_object_round_trips(path: Path, tmp_path: Path) -> None:
    _require(shutil.which(READELF) is not None and shutil.which(OBJDUMP) is not None,
             "LLVM 19 tools are not installed (scripts/setup.sh installs them)")
    output = tmp_path / "out.co"
    run = subprocess.run([sys.executable, "-m", "luthier.drivers.luthier_opt", "--lift",
                          "--no-progress", str(path), "-o", str(output)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert "warning" not in run.stderr, run.stderr
    assert output.read_bytes() == path.read_bytes(), \
        [str(d) for d in file_differences(read_code_object(path), read_code_object(output))]
    comparison = compare_code_objects(read_code_object(path), read_code_object(output))
    assert comparison.functions == comparison.identical_functions > 0
    assert comparison.descriptors == comparison.identical_descriptors > 0
    readelf = subprocess.run([READELF, "-h", "-l", "-S", "-s", "--dyn-syms", "--notes",
                              str(output)], capture_output=True, text=True, check=False)
    assert readelf.returncode == 0 and "warning" not in readelf.stderr, readelf.stderr
    assert _kernel_names(output) == _kernel_names(path)
    objdump = subprocess.run([OBJDUMP, "-d", str(output)], capture_output=True, text=True,
                             check=False)
    assert objdump.returncode == 0 and "warning" not in objdump.stderr, objdump.stderr


def test_report_says_the_round_trip_is_the_input(tmp_path: Path) -> None:
    """``--report`` of an identity round trip compares the written file with the input."""
    _require(bool(CODE_OBJECTS), "no third-party corpus: run bash test/corpus/thirdparty/fetch.sh")
    path = min(CODE_OBJECTS, key=lambda candidate: candidate.stat().st_size)
    run = subprocess.run([sys.executable, "-m", "luthier.drivers.luthier_opt", "--lift",
                          "--no-progress", "--report", str(path), "-o",
                          str(tmp_path / "out.co")], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stderr
    assert "file: no differences from the input" in run.stderr.splitlines()
