"""Checks LLVM's assembler makes on a matched instruction (``validateInstruction``).

Matching only asks whether each operand fits its slot; some rules look at the whole
instruction or at the target: the GFX9 constant bus (one SGPR or literal per VALU
instruction), 64-bit alignment of VGPR/AGPR tuples on gfx90a and later, registers and
modifiers the processor lacks. A violation is reported like llvm-mc reports it and the
statement is rejected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from luthier.amdgpu_dialects.isa.target import InstrDef, TargetISA
from luthier.amdgpu_dialects.mc.asm_matcher import LITERAL_PLACEHOLDER, is_vopd
from luthier.amdgpu_dialects.mc.asm_operands import Item
from luthier.amdgpu_dialects.mc.decoder import MCInst
from luthier.amdgpu_dialects.mc.encoder import is_inline_constant, literal_dword

_VALU_CLASSES = frozenset({"VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "SDWA", "DPP"})
_MEMORY_CLASSES = frozenset({"FLAT", "MUBUF", "MTBUF", "DS", "MIMG"})
#: The sources of both halves of a dual-issue instruction, as one constant bus sees them.
_VOPD_SOURCES = ("src0X", "vsrc1X", "src0Y", "vsrc1Y")
_TRAP_REGISTERS = frozenset({"tba", "tba_lo", "tba_hi", "tma", "tma_lo", "tma_hi"})
#: SGPR pairs at the top of the GFX9 file that GFX10+ no longer names: FLAT_SCRATCH is a
#: hardware register there (or architected), and XNACK_MASK is gone.
_GFX9_TOP_REGISTERS = frozenset({"flat_scratch", "flat_scratch_lo", "flat_scratch_hi",
                                 "xnack_mask", "xnack_mask_lo", "xnack_mask_hi"})


@dataclass(frozen=True, slots=True)
class ValidationError(Exception):
    """A rule violation: llvm-mc's ``message`` at 0-based ``column`` (-1: the mnemonic)."""

    message: str
    column: int


#: Mnemonics whose first operand is an export target, not a register.
_EXPORTS = frozenset({"exp", "export"})


class Validator:
    """The whole-instruction rules of one target."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.align_vgpr_tuples = isa.is_gfx90a
        self.has_lds_direct = not isa.is_gfx90a
        #: VOPD instruction name -> its components' operand indices.
        self._vopd: dict[str, _Components] = {}

    def check_items(self, items: list[Item], mnemonic: str = "") -> None:
        """Rules about what was written, whatever instruction it matched (of
        ``mnemonic``: an export's first operand is its target, where ``null`` names target
        9 on every generation that has it, as LLVM's own parser of that operand reads it)."""
        exports = mnemonic.lower() in _EXPORTS
        for index, item in enumerate(items):
            if exports and index == 0:
                continue
            text = item.text.lower()
            if item.kind == "reg" and (text in _TRAP_REGISTERS or (
                    text in _GFX9_TOP_REGISTERS and self.isa.generation >= 10)):
                raise ValidationError("register not available on this GPU", item.column)
            if item.kind == "reg" and text == "null" and self.isa.generation < 10:
                raise ValidationError("'null' operand is not supported on this GPU",
                                      item.column)
            if item.kind == "reg" and text == "src_lds_direct" and not self.has_lds_direct:
                raise ValidationError("lds_direct is not supported on this GPU", item.column)

    def check(self, inst: MCInst, columns: dict[int, int]) -> None:
        """``columns`` maps operand indices to where they were written."""
        desc = inst.desc
        if self.align_vgpr_tuples:
            for value in inst.operands:
                if isinstance(value, str) and value[:2] in ("v[", "a[") \
                        and int(value[2:].split(":", 1)[0]) % 2:
                    raise ValidationError(
                        "invalid register class: vgpr tuples must be 64 bit aligned", -1)
        if desc.classes & _VALU_CLASSES or is_vopd(desc):
            self._constant_bus(inst, columns)
        if self.isa.is_gfx90a:
            self._gfx90a_rules(inst, columns)
        if desc.classes & {"FLAT", "MUBUF"} and desc.has("cpol"):
            self._atomic_glc(inst)
        if "VOP3" in desc.classes and desc.has("sdst") and "VOPC" not in desc.classes \
                and not desc.name.startswith("V_CMP"):
            for name in ("src0_modifiers", "src1_modifiers", "src2_modifiers"):
                mods = inst.operand(name)
                if isinstance(mods, int) and mods & 2:
                    raise ValidationError("ABS not allowed in VOP3B instructions", -1)
        if self.isa.is_gfx940 and "IsDOT" in desc.classes:
            self._dot_op_sel(inst)
        if is_vopd(desc):
            components = self._vopd.get(desc.name)
            if components is None:
                components = self._vopd[desc.name] = _vopd_components(desc)
            _vopd_banks(inst, components, columns)

    def _atomic_glc(self, inst: MCInst) -> None:
        """Returning atomics are selected by glc (sc0 on gfx940); the others must not use it."""
        classes = inst.desc.classes
        cpol = inst.operand("cpol")
        glc = isinstance(cpol, int) and bool(cpol & 1)
        name = "sc0" if self.isa.is_gfx940 else "glc"
        if "IsAtomicRet" in classes and not glc:
            raise ValidationError(f"instruction must use {name}", -1)
        if "IsAtomicNoRet" in classes and glc:
            raise ValidationError(f"instruction must not use {name}", -1)

    def _gfx90a_rules(self, inst: MCInst, columns: dict[int, int]) -> None:
        desc = inst.desc
        classes = desc.classes
        if "DPP" in classes and desc.has("dpp_ctrl") and _has_64bit_vgpr(inst):
            ctrl = inst.operands[desc.index["dpp_ctrl"]]
            if isinstance(ctrl, int) and not 0x150 <= ctrl <= 0x15F:
                raise ValidationError("DP ALU dpp only supports row_newbcast", -1)
        if "IsMAI" in classes and desc.has("src2") and desc.has("vdst"):
            dst, src2 = inst.operand("vdst"), inst.operand("src2")
            # Only results wider than 128 bits are written over several passes.
            if isinstance(dst, str) and isinstance(src2, str) and dst != src2 \
                    and not _is_virtual(dst) and not _is_virtual(src2) \
                    and _span(dst)[1] - _span(dst)[0] >= 4:
                first_dst, last_dst = _span(dst)
                first_src, last_src = _span(src2)
                if dst[0] == src2[0] and first_src <= last_dst and first_dst <= last_src:
                    raise ValidationError(
                        "source 2 operand must not partially overlap with dst",
                        columns.get(desc.index["src2"], -1))
        if classes & _MEMORY_CLASSES:
            files = {value[0] for name in ("vdst", "vdata", "data0", "data1")
                     if isinstance(value := inst.operand(name), str) and value[0] in "va"}
            if len(files) > 1:
                raise ValidationError(
                    "invalid register class: data and dst should be all VGPR or AGPR", -1)
        if desc.mnemonic.startswith("ds_gws") and desc.has("data0"):
            data = inst.operand("data0")
            if isinstance(data, str) and not _is_virtual(data) and _span(data)[0] % 2:
                raise ValidationError("vgpr must be even aligned",
                                      columns.get(desc.index["data0"], -1))

    def _dot_op_sel(self, inst: MCInst) -> None:
        """gfx940 dot instructions take neither op_sel nor a non-default op_sel_hi."""
        desc = inst.desc
        check_lo, check_hi = desc.has("op_sel"), desc.has("op_sel_hi")
        for name in ("src0_modifiers", "src1_modifiers", "src2_modifiers"):
            mods = inst.operand(name)
            if isinstance(mods, int) and ((check_lo and mods & 4)
                                          or (check_hi and not mods & 8)):
                raise ValidationError("invalid op_sel operand", -1)

    def _constant_bus(self, inst: MCInst, columns: dict[int, int]) -> None:
        """GFX9 VALU instructions read at most one SGPR or literal value; GFX10+ ones two
        (one for the 64-bit shifts, LLVM's ``getConstantBusLimit``), of which at most one
        literal value."""
        desc = inst.desc
        limit = 2 if self.isa.generation >= 10 and desc.mnemonic not in (
            "v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64") else 1
        used: set[str | int] = set()
        k_index = desc.index.get("imm")
        if k_index is not None and isinstance(inst.operands[k_index], int) \
                and desc.operands[k_index].kind.operand_type.startswith("OPERAND_KIMM"):
            used.add(int(inst.operands[k_index] or 0))
        for implicit in ("VCC", "M0"):
            if implicit in desc.uses:
                used.add(implicit.lower())
        for name in _VOPD_SOURCES if is_vopd(desc) else ("src0", "src1", "src2"):
            index = desc.index.get(name)
            if index is None:
                continue
            value = inst.operands[index]
            key: str | int
            if isinstance(value, str):
                if value[:1] in ("v", "a") and value not in ("vcc", "vcc_lo", "vcc_hi"):
                    continue
                if value == "m0" and name == "src1" and desc.mnemonic == "v_writelane_b32":
                    continue  # the lane select may be m0 next to an SGPR value
                if value == "src_lds_direct":
                    continue  # LDS data, not a constant-bus read
                if value == "null":
                    continue  # GFX10+'s null reads nothing over the constant bus
                key = value
            elif isinstance(value, int):
                operand_type = desc.operands[index].kind.operand_type
                if value == LITERAL_PLACEHOLDER or not is_inline_constant(value, operand_type):
                    if operand_type in ("OPERAND_IMMEDIATE", "OPERAND_UNKNOWN"):
                        continue
                    # One literal dword may serve operands of different types.
                    key = value if value == LITERAL_PLACEHOLDER \
                        else literal_dword(value, operand_type)
                else:
                    continue
            else:
                continue
            if key in used:
                continue
            if len(used) >= limit:
                raise ValidationError("invalid operand (violates constant bus restrictions)",
                                      columns.get(index, -1))
            if isinstance(key, int) and any(isinstance(u, int) for u in used):
                raise ValidationError("only one unique literal operand is allowed",
                                      columns.get(index, -1))
            used.add(key)


#: VGPR bank masks of a VOPD component's dst, src0, src1 and src2 (LLVM's
#: ``VOPD_VGPR_BANK_MASKS``): the two dsts differ in parity, sources in bank (index % 4).
_VOPD_BANK_MASKS = (1, 3, 3, 1)


def _vopd_components(inst: InstrDef) -> _Components:
    """Operand indices of the X and Y components' dst, src0, src1, src2 (None: absent, or a
    mandatory literal K), from the AsmString halves; a tied src2 (fmac) comes last."""
    halves = inst.asm.split("::")
    components: list[tuple[int | None, ...]] = []
    for half in halves:
        names = [a or b for a, b in re.findall(r"\$\{(\w+)\}|\$(\w+)", half)]
        slots: list[int | None] = []
        for name in names:
            kind = inst.operands[inst.index[name]].kind
            slots.append(None if kind.operand_type.startswith("OPERAND_KIMM")
                         else inst.index[name])
        tied = inst.tied.get(names[0]) if names else None
        if tied is not None and tied != names[0]:
            slots.append(inst.index[tied])
        components.append(tuple(slots + [None] * (4 - len(slots))))
    return components[0], components[1]


_Components = tuple[tuple[int | None, ...], tuple[int | None, ...]]


def _vopd_banks(inst: MCInst, components: _Components, columns: dict[int, int]) -> None:
    """The halves of a dual-issue instruction read their VGPRs from different banks and
    write registers of opposite parity (LLVM's ``validateVOPDRegBankConstraints``; on
    GFX12 a mov pair only checks the destinations)."""
    desc = inst.desc
    x, y = components
    checked = 1 if desc.name.startswith("V_DUAL_MOV_B32_e32_X_MOV_B32_e32_gfx12") else 4
    for position in range(checked):
        first, second = x[position], y[position]
        if first is None or second is None:
            continue
        x_reg, y_reg = _vgpr_index(inst.operands[first]), _vgpr_index(inst.operands[second])
        if x_reg is None or y_reg is None:
            continue
        mask = _VOPD_BANK_MASKS[position]
        if x_reg & mask == y_reg & mask:
            column = max(columns.get(first, -1), columns.get(second, -1))
            if position == 0:
                raise ValidationError("one dst register must be even and the other odd",
                                      column)
            raise ValidationError(
                f"src{position - 1} operands must use different VGPR banks", column)


def _vgpr_index(value: object) -> int | None:
    """The index of a single VGPR operand (``v12``), None for anything else."""
    if isinstance(value, str) and value[:1] == "v" and value[1:].isdigit():
        return int(value[1:])
    return None


def _is_virtual(register: str) -> bool:
    """A virtual register (``v%0``, see ``Item.virtual``): its index is not known yet, so
    index rules (overlap, alignment) are the register allocator's."""
    return "%" in register


def _span(register: str) -> tuple[int, int]:
    """First and last index of a register or tuple (``v[4:7]`` -> (4, 7))."""
    body = register.lstrip("vast").lstrip("tmp")
    if body.startswith("["):
        first, last = body[1:-1].split(":")
        return int(first), int(last)
    return int(body), int(body)


def _has_64bit_vgpr(inst: MCInst) -> bool:
    """DP ALU instructions: DPP on an instruction with a 64-bit VGPR operand."""
    return any(
        s.kind.register_class is not None and s.kind.register_class.width == 64
        and "v" in s.kind.register_class.files
        for s in inst.desc.operands
    )
