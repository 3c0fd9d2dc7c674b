"""Run a few instructions on one wave: the harness of the per-family semantics tests.

The instructions are written as ``amdgpu_mc`` IR (assembly syntax after the op name) in a
device function ending in ``s_endpgm``; the test sets registers on a fresh wave, runs it and
reads registers back.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.emulator.dispatch import Workgroup, run_wave
from luthier.emulator.memory import GlobalMemory, LocalMemory, PrivateMemory
from luthier.emulator.program import Program, compile_program
from luthier.emulator.state import Wave

HEADER = ('amdgpu_mc.code_object "{target}" <{{code_object_version = 5 : i64, '
          'elf_type = "dyn", e_flags = 0 : i64, abi_version = 3 : i64}}> {{\n')


def assemble(body: str, target: str = "gfx90a") -> Program:
    """A program of one function whose body is ``body``: instruction lines (without the
    ``amdgpu_mc.`` prefix) and ``^bbN:`` block labels; ``s_endpgm`` is appended."""
    lines: list[str] = []
    for line in body.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        lines.append(line if line.startswith("^") else f"amdgpu_mc.{line}")
    text = (HEADER.format(target=target) + "  amdgpu_mc.func @f {\n" + "\n".join(lines)
            + "\n    amdgpu_mc.s_endpgm\n  }\n}\n")
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    module = Parser(context, text).parse_module()
    assert isinstance(module, ModuleOp)
    code_object = module.body.block.first_op
    assert isinstance(code_object, CodeObjectOp)
    code_object.verify()
    return compile_program(code_object)


def execute(body: str, setup: Callable[[Wave], None] = lambda wave: None,
            target: str = "gfx90a", lanes: int = 64,
            memory: GlobalMemory | None = None, lds_bytes: int = 1024) -> Wave:
    """Run ``body`` on a fresh wave (all lanes active) after ``setup``; returns the wave."""
    program = assemble(body, target)
    wave = Wave(lanes, Workgroup((0, 0, 0), LocalMemory(lds_bytes, "LDS")))
    wave.memory = memory if memory is not None else GlobalMemory()
    wave.private = PrivateMemory(lanes, 256)
    wave.exec_bits = wave.full
    setup(wave)
    run_wave(wave, program, 100_000)
    assert wave.done
    return wave
