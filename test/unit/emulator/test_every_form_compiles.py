"""Every instruction form a target decodes compiles in the emulator, or is refused with an
:class:`EmulationError` that stops the run when (and only if) it executes: never a crash of
the compiler; and run alone on random registers, it runs or stops with that error.

Semantics are registered by base name (``v_dot4c_i32_i8``) and reached from every encoding
of it (``_e32``, ``_e64``, ``_sdwa``, ``_dpp``): a builder that looked its operation up by
the full mnemonic raised ``KeyError`` on ``v_dot4c_i32_i8_e32`` (gfx9) and on
``v_cvt_pkrtz_f16_f32_e32`` (RDNA), forms clang-19 emits. The forms come from seeded random
words of every encoding class of the target's family (the conformance harness's generator),
decoded and built into ops as the lifter builds them; branches are left out (their targets
are labels), and so are the decodes the encoder refuses (a random word can decode to an
operand LLVM's printer shows but no instruction takes: the layout could not place it).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

import luthier.emulator.program as program_module
from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, build_instruction
from luthier.amdgpu_dialects.amdgpu_mc.layout import UnsizedError, instruction_size
from luthier.amdgpu_dialects.amdgpu_mc.mnemonics import INSTRUCTION_KINDS
from luthier.amdgpu_dialects.amdgpu_mc.operands import operand_attribute
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.isa.target import EMULATED_TARGETS, load_target
from luthier.amdgpu_dialects.mc.decoder import DecodeError, decoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.conformance.encoding_classes import classes_for, random_words
from luthier.emulator.dispatch import Workgroup, run_wave
from luthier.emulator.errors import EmulationError
from luthier.emulator.memory import GlobalMemory, LocalMemory, PrivateMemory
from luthier.emulator.semantics.registry import Builder, Instruction, Step
from luthier.emulator.state import Wave

from .asm import HEADER

#: Random words per encoding class: a few thousand distinct forms per target, in seconds.
WORDS_PER_CLASS = 600


def _forms(target: str) -> list[InstructionOpBase]:
    """One op per distinct decoded instruction (wave64, which every target accepts)."""
    classes = classes_for(target)
    assert classes is not None
    decoder, printer = decoder_for(target, 64), printer_for(target, 64)
    isa = load_target(target, 64)
    ops: dict[tuple[str, tuple[object, ...], int], InstructionOpBase] = {}
    for _, word in random_words(WORDS_PER_CLASS, 20261128, classes):
        try:
            inst = decoder.decode(word)
        except DecodeError:
            continue
        mnemonic = printer.mnemonic(inst.desc)
        if INSTRUCTION_KINDS.get(mnemonic) == "branch":
            continue
        key = (inst.desc.name, tuple(inst.operands), inst.unmodelled)
        if key in ops:
            continue
        op = build_instruction(mnemonic, inst.desc.name,
                               [operand_attribute(value) for value in inst.operands], (),
                               inst.unmodelled)
        try:
            instruction_size(op, isa)
        except UnsizedError:
            continue
        ops[key] = op
    return list(ops.values())


def _code_object(target: str, ops: list[InstructionOpBase]) -> CodeObjectOp:
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    # Wave64 code: an RDNA code object says so (its default is wave32).
    header = HEADER.format(target=target)
    if subtarget_for(target).major >= 10:
        header = header.replace("abi_version = 3 : i64", "abi_version = 3 : i64, "
                                "wavefront_size = 64 : i64")
    text = header + "  amdgpu_mc.func @f {\n    amdgpu_mc.s_endpgm\n  }\n}\n"
    module = Parser(context, text).parse_module()
    assert isinstance(module, ModuleOp)
    code_object = module.body.block.first_op
    assert isinstance(code_object, CodeObjectOp)
    function = code_object.body.block.first_op
    assert function is not None
    block = function.regions[0].block
    end = block.first_op
    assert end is not None
    block.insert_ops_before(ops, end)
    return code_object


@pytest.mark.parametrize("target", EMULATED_TARGETS)
def test_every_decoded_form_compiles_or_is_refused_at_run_time(
        target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ops = _forms(target)
    assert len(ops) > 1000  # the sweep reaches most of the encoding classes
    crashes: Counter[str] = Counter()
    built: Counter[str] = Counter()
    found = program_module.semantics_of

    def checked(mnemonic: str) -> Builder | None:
        builder = found(mnemonic)
        if builder is None:
            return None

        def build(inst: Instruction) -> Step:
            try:
                step = builder(inst)
            except EmulationError:
                raise
            except Exception as error:  # what the test is for: any other exception
                crashes[f"{inst.mnemonic}: {type(error).__name__}: {error}"] += 1
                raise EmulationError("crashed") from None
            built[inst.mnemonic] += 1
            return step

        return build

    monkeypatch.setattr(program_module, "semantics_of", checked)
    program_module.compile_program(_code_object(target, ops))
    assert not crashes, "\n".join(f"{count} x {what}" for what, count in crashes.most_common())
    assert sum(built.values()) > len(ops) // 2  # most forms have semantics


@pytest.mark.parametrize("target", EMULATED_TARGETS)
def test_every_decoded_form_runs_or_stops_with_an_emulation_error(target: str) -> None:
    """Each form (every other one, for time) alone on a wave whose first VGPRs hold random
    bits: it runs, or stops the wave with an :class:`EmulationError` (a memory fault at a
    random address, a form without semantics), never another exception (which the run
    reports as an "internal error")."""
    rng = np.random.default_rng(11)
    ran = 0
    crashes: list[str] = []
    for op in _forms(target)[::2]:
        try:
            program = program_module.compile_program(_code_object(target, [op]))
        except EmulationError:
            continue
        wave = Wave(64, Workgroup((0, 0, 0), LocalMemory(1024, "LDS")))
        wave.memory = GlobalMemory()
        wave.private = PrivateMemory(64, 256)
        wave.exec_bits = wave.full
        for index in range(8):
            wave.v[index] = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
        try:
            run_wave(wave, program, 100)
            ran += 1
        except EmulationError as error:
            # run_wave reports a handler's own exception as an "internal error".
            if "internal error" in str(error):
                crashes.append(str(error))
        except Exception as error:  # what the test is for: any other exception
            crashes.append(f"{op.mnemonic}: {type(error).__name__}: {error}")
    assert not crashes, "\n".join(crashes)
    assert ran > 500
