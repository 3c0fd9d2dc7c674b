"""The generated ISA tables load and describe every decodable instruction consistently."""

from __future__ import annotations

import re

import pytest

from luthier.amdgpu_dialects.isa.target import (
    SUPPORTED_TARGETS,
    InstrDef,
    TargetISA,
    UnknownTargetError,
    load_target,
)

TARGETS = ("gfx90a", "gfx942")
_ASM_OPERAND = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def _decodable(isa: TargetISA) -> list[InstrDef]:
    return [inst for inst in isa.instructions if inst.decodable]


def _bits(fields: tuple[tuple[int, int, int], ...]) -> int:
    mask = 0
    for inst_lo, _var_lo, width in fields:
        mask |= ((1 << width) - 1) << inst_lo
    return mask


@pytest.mark.parametrize("target", TARGETS)
def test_target_loads(target: str) -> None:
    isa = load_target(target)
    assert isa.name == target
    assert isa.wavefront_size == 64
    assert isa.is_gfx90a
    assert isa.is_gfx940 == (target == "gfx942")
    # Thousands of real instructions, every name unique.
    decodable = _decodable(isa)
    assert len(decodable) > 2000
    assert len(isa.by_name) == len(isa.instructions)
    assert load_target(target) is isa  # cached


def test_unknown_target() -> None:
    with pytest.raises(UnknownTargetError, match="gfx1234"):
        load_target("gfx1234")
    assert "gfx90a" in SUPPORTED_TARGETS and "gfx942" in SUPPORTED_TARGETS


@pytest.mark.parametrize("target", TARGETS)
def test_fixed_bits_within_width(target: str) -> None:
    bad: list[str] = []
    for inst in _decodable(load_target(target)):
        full = (1 << (inst.size * 8)) - 1
        if inst.size not in (4, 8) or inst.mask & ~full or inst.value & ~inst.mask \
                or not inst.mask:
            bad.append(inst.name)
    assert bad == []


@pytest.mark.parametrize("target", TARGETS)
def test_operand_fields_within_width_and_disjoint(target: str) -> None:
    """Operand fields lie inside the word and never overlap fixed bits or each other."""
    bad: list[str] = []
    for inst in _decodable(load_target(target)):
        width = inst.size * 8
        taken = 0
        fields = [(s.name, s.fields) for s in inst.operands] + list(inst.extra_fields.items())
        for name, runs in fields:
            for inst_lo, var_lo, run_width in runs:
                if inst_lo < 0 or var_lo < 0 or run_width <= 0 or inst_lo + run_width > width:
                    bad.append(f"{inst.name}.{name}: run {inst_lo}+{run_width} outside {width}")
            bits = _bits(runs)
            if bits & inst.mask:
                bad.append(f"{inst.name}.{name}: overlaps fixed bits")
            if bits & taken:
                bad.append(f"{inst.name}.{name}: overlaps another operand")
            taken |= bits
    assert bad == []


@pytest.mark.parametrize("target", TARGETS)
def test_asm_string_operands_exist(target: str) -> None:
    bad: list[str] = []
    for inst in _decodable(load_target(target)):
        for match in _ASM_OPERAND.finditer(inst.asm):
            name = match.group(1) or match.group(2)
            if not inst.has(name):
                bad.append(f"{inst.name}: ${name}")
    assert bad == []


@pytest.mark.parametrize("target", TARGETS)
def test_operand_index_and_tied_operands(target: str) -> None:
    bad: list[str] = []
    for inst in load_target(target).instructions:
        if [inst.operands[i].name for i in inst.index.values()] != list(inst.index):
            bad.append(f"{inst.name}: index")
        if not 0 <= inst.num_defs <= len(inst.operands):
            bad.append(f"{inst.name}: num_defs")
        for name, partner in inst.tied.items():
            if not (inst.has(name) and inst.has(partner)):
                bad.append(f"{inst.name}: tied {name}={partner}")
    assert bad == []


@pytest.mark.parametrize("target", TARGETS)
def test_register_operands_have_classes(target: str) -> None:
    isa = load_target(target)
    bad = [
        f"{inst.name}.{slot.name}"
        for inst in _decodable(isa)
        for slot in inst.operands
        if slot.kind.is_register and slot.kind.register_class is None
    ]
    assert bad == []
    assert isa.register_classes["SReg_64"].contains("s[0:1]")
    assert not isa.register_classes["SReg_64"].contains("s[1:2]")
    assert isa.register_classes["AReg_128"].contains("a[4:7]")


def test_known_instruction_facts() -> None:
    isa = load_target("gfx90a")
    s_mov = isa.by_name["S_MOV_B32_vi"]
    assert (s_mov.size, s_mov.mnemonic) == (4, "s_mov_b32")
    assert s_mov.value == 0xBE800000 and s_mov.mask == 0xFF80FF00
    v_add = isa.by_name["V_ADD_F32_e64_vi"]
    assert v_add.size == 8
    assert [s.name for s in v_add.operands][:3] == ["vdst", "src0_modifiers", "src0"]
    assert "EXEC" in isa.by_name["V_MOV_B32_e32_vi"].uses
    assert "SCC" in isa.by_name["S_ADD_U32_vi"].defs
