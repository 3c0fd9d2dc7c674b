"""The typed instruction builder picks the record and operands the assembler picks.

Instruction selection and the passes used to write each instruction as assembly, with
virtual registers as stand-in physical registers, and assemble it. The typed builder
(:mod:`luthier.amdgpu_dialects.amdgpu_mc.builder`) gives the matcher operand items
instead. For every form they built (``builder_forms.txt``), both ways must make the same
op; and what the assembler rejects, the builder rejects.
"""

from __future__ import annotations

import functools
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Attribute, Block

from luthier.amdgpu_dialects.amdgpu_mc.builder import (
    OFF,
    BuildOperand,
    InstBuilder,
    Keyword,
    MCBuildError,
    reg,
    waitcnt,
)
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, build_instruction
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr, operand_attribute
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.vreg_syntax import stand_ins, taken_units
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.asm_matcher import BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER
from luthier.amdgpu_dialects.mc.asm_operands import parse_symbolic_expression
from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.mc.printer import printer_for

_FORMS = Path(__file__).with_name("builder_forms.txt")


@dataclass(frozen=True)
class Form:
    processor: str
    mnemonic: str
    #: Each operand as the builder takes it and as assembly writes it.
    operands: tuple[tuple[BuildOperand, str], ...]
    flags: tuple[str, ...]
    offset: int | None

    def __str__(self) -> str:
        return f"{self.processor}: {self.statement(None)}"

    def statement(self, names: dict[VirtRegAttr, str] | None) -> str:
        texts = [names[typed] if names is not None and isinstance(typed, VirtRegAttr)
                 else text for typed, text in self.operands]
        named = [*self.flags, *([f"offset:{self.offset}"] if self.offset is not None else [])]
        return " ".join([self.mnemonic, ", ".join(texts), *named]).strip()


def _operand(text: str) -> BuildOperand:
    if text.startswith("%"):
        number, register_class = text[1:].split(":", 1)
        return VirtRegAttr((int(number), register_class))
    if text.lstrip("-").isdigit():
        return int(text)
    if text == "off":
        return OFF
    if text.endswith(")"):
        counter, count = text[:-1].split("(")
        return waitcnt(**{counter: int(count)})
    if "@" in text:
        return SymbolOperandAttr(parse_symbolic_expression(text))
    return reg(text)


def _form(line: str) -> Form:
    processor, mnemonic, operands, named = (part.strip() for part in line.split("|"))
    texts = operands.split(", ") if operands else []
    words = named.split()
    offsets = [int(word.split(":")[1]) for word in words if word.startswith("offset:")]
    return Form(processor, mnemonic, tuple((_operand(text), text) for text in texts),
                tuple(word for word in words if ":" not in word),
                offsets[0] if offsets else None)


@functools.cache
def _forms() -> list[Form]:
    lines = _FORMS.read_text().splitlines()
    return [_form(line) for line in lines if line and not line.startswith("#")]


def _assembled(form: Form) -> InstructionOpBase:
    """The op the assembler makes of the form's statement (virtual registers written as
    stand-in physical registers no other operand uses, then put back)."""
    vregs = [typed for typed, _ in form.operands if isinstance(typed, VirtRegAttr)]
    physical = [text for typed, text in form.operands
                if not isinstance(typed, VirtRegAttr | int | SymbolOperandAttr)]
    names = stand_ins(vregs, form.processor, taken_units(physical))
    matched = parser_for(form.processor).parse_statement(form.statement(names))
    inst = matched.inst
    by_name = {name: vreg for vreg, name in names.items()}
    slots: list[Attribute] = [
        by_name[value] if isinstance(value, str) and value in by_name
        else operand_attribute(value) for value in inst.operands]
    for fixup in matched.fixups:
        placeholder = BRANCH_PLACEHOLDER if fixup.kind == "fixup_si_sopp_br" \
            else LITERAL_PLACEHOLDER
        slots[inst.operands.index(placeholder)] = SymbolOperandAttr(fixup.expr)
    return build_instruction(printer_for(form.processor).mnemonic(inst.desc), inst.desc.name,
                             slots)


def _built(form: Form) -> InstructionOpBase:
    return InstBuilder(form.processor).inst(
        form.mnemonic, [typed for typed, _ in form.operands], flags=form.flags,
        offset=form.offset)


def test_the_recorded_forms_cover_selection_and_the_passes() -> None:
    forms = _forms()
    mnemonics = {form.mnemonic for form in forms}
    assert {"s_add_u32", "v_add_u32_e64", "global_load_dword", "scratch_store_dword",
            "s_waitcnt", "v_writelane_b32", "s_load_dwordx2"} <= mnemonics
    assert {form.processor for form in forms} == {"gfx90a", "gfx942"}
    assert any(isinstance(typed, SymbolOperandAttr) for form in forms
               for typed, _ in form.operands)
    assert any(form.offset for form in forms) and any(form.flags for form in forms)


def test_typed_build_equals_assembling_the_statement() -> None:
    differ: list[str] = []
    for form in _forms():
        built, assembled = _built(form), _assembled(form)
        if built.name != assembled.name or built.properties != assembled.properties:
            differ.append(f"{form}: {built.properties} != {assembled.properties}")
    assert not differ, "\n".join(differ[:20])


@pytest.mark.parametrize(("mnemonic", "operands"), [
    # two SGPRs on GFX9's constant bus
    ("v_add_u32_e64", [VirtRegAttr.of(0, "VGPR_32"), VirtRegAttr.of(1, "SReg_32"),
                       VirtRegAttr.of(2, "SReg_32")]),
    # a VGPR where the scalar unit reads
    ("s_add_u32", [VirtRegAttr.of(0, "SReg_32"), VirtRegAttr.of(1, "VGPR_32"), 4]),
    # a 64-bit register in a 32-bit slot
    ("s_mov_b32", [VirtRegAttr.of(0, "SReg_32"), VirtRegAttr.of(1, "SReg_64")]),
    # a sub-register of the wrong width
    ("s_mov_b64", [VirtRegAttr.of(0, "SReg_64"), VirtRegAttr.of(1, "SReg_64").part(0)]),
    # two different literals
    ("s_add_u32", [VirtRegAttr.of(0, "SReg_32"), 1000, 2000]),
    # a VOP1 source past the 32-bit encoding's reach
    ("v_mov_b32_e32", [reg("s0"), reg("v1")]),
    ("s_no_such_instruction", []),
])
def test_what_the_assembler_rejects_the_builder_rejects(
        mnemonic: str, operands: list[BuildOperand]) -> None:
    form = Form("gfx90a", mnemonic, tuple((typed, _text(typed)) for typed in operands), (),
                None)
    with pytest.raises(AsmParseError):
        _assembled(form)
    with pytest.raises(MCBuildError):
        _built(form)


def _text(typed: BuildOperand) -> str:
    if isinstance(typed, VirtRegAttr):
        return typed.text
    if isinstance(typed, int):
        return str(typed)
    if isinstance(typed, PhysRegAttr):
        return typed.data
    assert isinstance(typed, Keyword)
    return typed.word


def test_same_register_twice_takes_the_constant_bus_once() -> None:
    sgpr = VirtRegAttr.of(1, "SReg_32")
    op = InstBuilder("gfx90a").inst("v_add_u32_e64", [VirtRegAttr.of(0, "VGPR_32"), sgpr,
                                                      sgpr])
    assert op.opcode.data.startswith("V_ADD_U32_e64")
    assert list(op.mc_operands.data).count(sgpr) == 2


def test_a_shape_is_matched_once() -> None:
    builder = InstBuilder("gfx942")
    first = builder.inst("s_mov_b32", [VirtRegAttr.of(3, "SReg_32"), 7])
    second = builder.inst("s_mov_b32", [VirtRegAttr.of(9, "SReg_32"), 7])
    assert first.opcode == second.opcode
    assert second.mc_operands.data[0] == VirtRegAttr.of(9, "SReg_32")


def test_branches_name_blocks() -> None:
    target = Block()
    op = InstBuilder("gfx90a").branch("s_cbranch_scc1", [target, Block()])
    assert op.opcode.data.startswith("S_CBRANCH_SCC1")
    assert op.successors[0] is target
    with pytest.raises(MCBuildError):
        InstBuilder("gfx90a").branch("s_no_such_branch", [target])


@pytest.mark.parametrize(("processor", "wave", "vector", "scalar"), [
    ("gfx90a", None, "s_waitcnt vmcnt(0)", "s_waitcnt lgkmcnt(0)"),
    ("gfx942", None, "s_waitcnt vmcnt(0)", "s_waitcnt lgkmcnt(0)"),
    ("gfx1030", None, "s_waitcnt vmcnt(0)", "s_waitcnt lgkmcnt(0)"),
    ("gfx1100", 64, "s_waitcnt vmcnt(0)", "s_waitcnt lgkmcnt(0)"),
    ("gfx1201", None, "s_wait_loadcnt 0x0", "s_wait_kmcnt 0x0"),
])
def test_waits_for_loads_in_each_generations_encoding(processor: str, wave: int | None,
                                                      vector: str, scalar: str) -> None:
    """The s_waitcnt fields moved in GFX10 (6-bit lgkmcnt) and GFX11 (vmcnt in 15:10), and
    GFX12 split the counters into instructions of their own; llvm-mc-19 encodes each text
    to the bytes ours gives."""
    build = InstBuilder(processor, wave)
    isa, printer = load_target(processor, wave), printer_for(processor, wave)
    texts = [printer.print(op.to_mcinst(isa.by_name[op.opcode.data]))
             for op in (build.wait_vector_loads(), build.wait_scalar_loads())]
    assert texts == [vector, scalar]
    for op, text in zip((build.wait_vector_loads(), build.wait_scalar_loads()), texts,
                        strict=True):
        done = subprocess.run(["llvm-mc-19", "-arch=amdgcn", f"-mcpu={processor}",
                               "-show-encoding"], input=text, capture_output=True,
                              text=True, check=True)
        imm = op.mc_operands.data[0]
        assert isinstance(imm, IntAttr)
        value = cast(int, imm.data)  # pyright: ignore[reportUnknownMemberType]
        low, high = value & 0xFF, value >> 8 & 0xFF
        assert f"[0x{low:02x},0x{high:02x}," in done.stdout, (text, done.stdout)
