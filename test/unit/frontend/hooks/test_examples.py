"""The hook examples: each ``.py`` builds the IR of its ``.mlir`` twin, and each places
the payloads it should on the sample kernels.

Twins are compared after parsing both texts with ``luthier-opt``'s context and dropping
SSA name hints (the MLIR names values, the Python API numbers them). Payload counts are
checked against ``llvm-objdump-19 -d`` of the same code object, an independent decoder:
the instructions inside each kernel symbol's ``[value, value + size)`` range.
"""

from __future__ import annotations

import re
import runpy
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.instr.attributes import ConstArgAttr
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS
from luthier.drivers.opt_main import LuthierOptMain, load_hooks, merge_hooks
from luthier.frontend.codeobj import read_code_objects
from luthier.frontend.hooks import HookModule, opcode_count, opcode_names
from luthier.frontend.lift import LiftOptions, lift_code_object
from luthier.passes.instrument.insert_hooks import InsertHooksPass

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = ROOT / "examples" / "hooks"
SAMPLES = [ROOT / "examples" / "sample" / f"vector_add.{target}.co"
           for target in ("gfx90a", "gfx942")]
NAMES = ["instr_count", "opcode_histogram", "memory_trace", "kernarg_reader"]
OBJDUMP = shutil.which("llvm-objdump-19")
READELF = shutil.which("llvm-readelf-19")


@cache
def context() -> Context:
    return LuthierOptMain(args=[]).ctx


def _canonical(text: str) -> str:
    module = Parser(context(), text).parse_module()
    for op in module.walk():
        for result in op.results:
            result.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None
    return str(module)


def _python_hooks(name: str) -> HookModule:
    hooks = runpy.run_path(str(EXAMPLES / f"{name}.py"))["hooks"]
    assert isinstance(hooks, HookModule)
    return hooks


@pytest.mark.parametrize("name", NAMES)
def test_python_twin_prints_the_mlir(name: str) -> None:
    python = _canonical(_python_hooks(name).text())
    mlir = _canonical((EXAMPLES / f"{name}.mlir").read_text())
    assert python == mlir


def _lift(path: Path) -> ModuleOp:
    modules = [lift_code_object(code_object, LiftOptions()).module
               for code_object in read_code_objects(path.read_bytes(), name=str(path))]
    return ModuleOp(modules)


def _kernel_mnemonics(path: Path) -> dict[str, list[str]]:
    """Each kernel's instruction mnemonics, by llvm-objdump-19 within the symbol's size."""
    assert OBJDUMP is not None and READELF is not None
    symbols = subprocess.run([READELF, "-s", "--wide", str(path)], check=True,
                             capture_output=True, text=True).stdout
    ranges: dict[str, tuple[int, int]] = {}
    for line in symbols.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[3] == "FUNC":
            start = int(fields[1], 16)
            ranges[fields[7]] = (start, start + int(fields[2]))
    listing = subprocess.run([OBJDUMP, "-d", str(path)], check=True, capture_output=True,
                             text=True).stdout
    found: dict[str, list[str]] = {name: [] for name in ranges}
    for line in listing.splitlines():
        match = re.match(r"\s+([a-z_0-9]+)\b.*// ([0-9A-F]+):", line)
        if match is None:
            continue
        address = int(match.group(2), 16)
        for name, (start, end) in ranges.items():
            if start <= address < end:
                found[name].append(match.group(1))
    return found


def _expected(name: str, mnemonics: dict[str, list[str]]) -> int:
    if name in ("instr_count", "opcode_histogram"):
        return sum(len(ops) for ops in mnemonics.values())
    if name == "memory_trace":
        return sum(1 for ops in mnemonics.values() for mnemonic in ops
                   if mnemonic.startswith(("global_", "flat_")))  # loads, stores, atomics
    return len(mnemonics)  # kernarg_reader: kernel entries


@pytest.mark.skipif(OBJDUMP is None or READELF is None, reason="needs LLVM 19 tools")
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: path.name)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["mlir", "py"])
def test_example_places_its_payloads(name: str, sample: Path, kind: str) -> None:
    module = _lift(sample)
    hooks = load_hooks(context(), str(EXAMPLES / f"{name}.{kind}"))
    merge_hooks(module, hooks, str(sample), f"{name}.{kind}")
    InsertHooksPass().apply(context(), module)
    module.verify()
    payloads = [op for op in module.walk() if isinstance(op, PayloadOp)]
    assert len(payloads) == _expected(name, _kernel_mnemonics(sample))
    if name == "opcode_histogram":
        _check_opcodes(module, payloads)


def _check_opcodes(module: ModuleOp, payloads: list[PayloadOp]) -> None:
    """Each payload's opcode argument names, through opcode_names, the instruction it
    instruments."""
    code_object = next(op for op in module.ops if isinstance(op, CodeObjectOp))
    names = opcode_names(code_object.processor)
    for payload in payloads:
        point = payload.next_op
        (arg,) = payload.args.data
        assert isinstance(point, InstructionOpBase) and isinstance(arg, ConstArgAttr)
        assert names[arg.value] == point.mnemonic


def test_histogram_covers_every_target() -> None:
    entries = runpy.run_path(str(EXAMPLES / "opcode_histogram.py"))["ENTRIES"]
    assert entries >= opcode_count(*SUPPORTED_TARGETS)
    text = (EXAMPLES / "opcode_histogram.mlir").read_text()
    assert f"arith.constant {entries} : i32" in text and f"size = {entries * 8} : i64" in text
