"""Lifted corpus objects and parsed hand-written IR for the analysis tests (cached: lifting
a code object takes about a second)."""

from __future__ import annotations

import functools
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object

ROOT = Path(__file__).resolve().parents[4]
KERNELS = ROOT / "test" / "corpus" / "kernels"
LIT_INPUTS = ROOT / "test" / "lit" / "analysis"
ROCRAND = ROOT / "build" / "thirdparty" / "codeobjects" / "librocrand1" \
    / "librocrand.xnack-.gfx90a.co"


@functools.cache
def lifted(path: Path) -> CodeObjectOp:
    module = lift_code_object(read_code_object(path)).module
    assert isinstance(module, CodeObjectOp)
    return module


def corpus(name: str) -> CodeObjectOp:
    return lifted(KERNELS / name)


@functools.cache
def parsed(name: str) -> CodeObjectOp:
    """The code object of ``test/lit/analysis/<name>`` (the lit inputs double as fixtures)."""
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    path = LIT_INPUTS / name
    module = Parser(context, path.read_text(), path.name).parse_module()
    assert isinstance(module, ModuleOp)
    code_object = next(iter(module.ops))
    assert isinstance(code_object, CodeObjectOp)
    return code_object


def function(code_object: CodeObjectOp, name: str) -> FunctionLikeOp:
    for op in code_object.body.ops:
        if isinstance(op, FunctionLikeOp) and op.sym_name.data == name:
            return op
    raise KeyError(name)


def functions(code_object: CodeObjectOp) -> list[FunctionLikeOp]:
    return [op for op in code_object.body.ops if isinstance(op, FunctionLikeOp)]
