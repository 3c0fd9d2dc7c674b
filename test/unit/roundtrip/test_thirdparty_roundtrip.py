"""Round trips of code objects that someone else compiled and linked (rocRAND, the HSA
runtime's blit kernels; ROCm 5.x clang and ld.lld, code object v4, see
test/corpus/thirdparty/README.md), through the user's command.

``luthier-opt --lift in.co -o out.co`` keeps every section and symbol (debug sections byte
for byte, undefined symbols, every binding and visibility) with no warning, but cannot give
the same file: the inputs were laid out by ld.lld 15, our writer lays out as ld.lld 19 does.
What differs is that alone (:data:`LINKER_VERSION_SECTIONS`): lld 19's ``.relro_padding``
section (and the relro segment it widens, with the section indices after it), its string in
``.comment``, and lld 15's order of ``.strtab``. Every function's instruction bytes, kernel
descriptor (its code entry pointing at its kernel), the metadata, and llvm-readelf /
llvm-objdump's view of the kernels are the same.
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
#: The sections whose bytes or size differ from the input because of the linker version alone:
#: lld 19's ``.relro_padding``, ``.comment`` (lld 19 adds its string), ``.shstrtab`` (the
#: padding's name), ``.symtab``/``.strtab`` (lld 15 adds some names to ``.strtab`` in
#: another order, so their offsets differ).
LINKER_VERSION_SECTIONS = {".relro_padding", ".comment", ".shstrtab", ".symtab", ".strtab"}
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
    comparison = compare_code_objects(read_code_object(path), read_code_object(output))
    differences = file_differences(read_code_object(path), read_code_object(output))
    assert [str(d) for d in differences if d.kind == "symbol"] == []
    assert [str(d) for d in differences
            if d.kind == "section" and d.name not in LINKER_VERSION_SECTIONS] == []
    assert [str(difference) for difference in comparison.differences] == []
    assert comparison.functions == comparison.identical_functions > 0
    assert comparison.descriptors == comparison.identical_descriptors > 0
    readelf = subprocess.run([READELF, "-h", "-l", "-S", "-s", "--dyn-syms", "--notes",
                              str(output)], capture_output=True, text=True, check=False)
    assert readelf.returncode == 0 and "warning" not in readelf.stderr, readelf.stderr
    assert _kernel_names(output) == _kernel_names(path)
    objdump = subprocess.run([OBJDUMP, "-d", str(output)], capture_output=True, text=True,
                             check=False)
    assert objdump.returncode == 0 and "warning" not in objdump.stderr, objdump.stderr
