"""Every example hook on corpus kernels of both targets: ``lower-hooks`` gives machine code
that the independent verifier accepts (it is the pipeline's last stage, and is run again
here), every payload is physical-register machine code, and the application's
instructions are exactly those of a fresh lift (same records, same operands, same order).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Attribute

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.instr.dialect import INSTR
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.drivers.opt_main import load_hooks, merge_hooks
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.instrument.pipeline import LowerHooksPass
from luthier.passes.instrument.verify_payloads import verify_payloads

ROOT = Path(__file__).resolve().parents[4]
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOOKS = ROOT / "examples" / "hooks"
OBJECTS = ["control_flow", "calls", "atomics", "lds", "mfma", "globals"]
EXAMPLES = ["instr_count", "opcode_histogram", "memory_trace", "kernarg_reader"]


def _context() -> Context:
    context = Context()
    for dialect in (Builtin, make_dialect(), INSTR, arith.Arith, scf.Scf):
        context.load_dialect(dialect)
    return context


def _lift(path: Path) -> ModuleOp:
    return ModuleOp([lift_code_object(read_code_object(path)).module])


@functools.cache
def _application(path: Path) -> tuple[tuple[str, str, tuple[Attribute, ...]], ...]:
    return _instructions(_lift(path))


def _instructions(module: ModuleOp) -> tuple[tuple[str, str, tuple[Attribute, ...]], ...]:
    """The application's instructions: top-level in function blocks, payloads skipped."""
    found: list[tuple[str, str, tuple[Attribute, ...]]] = []
    for code_object in module.ops:
        if not isinstance(code_object, CodeObjectOp):
            continue  # the tool's globals and hooks
        for function in code_object.body.ops:
            if not isinstance(function, FunctionLikeOp):
                continue
            for block in function.body.blocks:
                for op in block.ops:
                    if isinstance(op, InstructionOpBase):
                        found.append((function.sym_name.data, op.opcode.data,
                                      tuple(op.mc_operands.data)))
    return tuple(found)


@pytest.mark.parametrize("target", ["gfx908", "gfx90a", "gfx942"])
@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("name", OBJECTS)
def test_example_hook_lowers_to_verified_machine_code(name: str, example: str,
                                                       target: str) -> None:
    path = KERNELS / f"{name}.{target}.co"
    context = _context()
    module = _lift(path)
    merge_hooks(module, load_hooks(context, str(HOOKS / f"{example}.mlir")), path.name,
                example)
    LowerHooksPass().apply(context, module)
    module.verify()

    payloads = [op for op in module.walk() if isinstance(op, PayloadOp)]
    assert payloads, "the example places no payload"
    for payload in payloads:
        for op in payload.body.walk():
            if isinstance(op, InstructionOpBase):
                assert not any(isinstance(a, VirtRegAttr) for a in op.mc_operands.data)
            else:
                assert not isinstance(op, MCIntrinsicOp), op  # state ones read the SVA
    code_object = next(iter(module.ops))
    assert isinstance(code_object, CodeObjectOp)
    assert verify_payloads(code_object) == []
    assert _instructions(module) == _application(path)
