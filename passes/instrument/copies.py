"""Copies between application registers and virtual registers, per register kind.

Payload entry and exit move values between the application's registers and the payload's
virtual registers: SGPRs with ``s_mov`` (a pair with ``s_mov_b64`` only when even-aligned,
as the encoding requires), VGPRs with ``v_mov_b32`` per 32-bit unit (for the lanes active
at the point), AGPRs through ``v_accvgpr_read``/``write``, SCC as 0/1 through
``s_cselect_b32``/``s_cmp_lg_u32``.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr, register_units
from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.passes.analysis.register_usage import ADDRESSABLE

#: Special registers hooks may name, with their width in 32-bit units.
SPECIAL_REGISTERS = {"exec": 2, "vcc": 2, "exec_lo": 1, "exec_hi": 1, "vcc_lo": 1,
                     "vcc_hi": 1, "m0": 1, "scc": 1, "flat_scratch": 2, "flat_scratch_lo": 1,
                     "flat_scratch_hi": 1}

_UNIT_CLASS = {"s": "SReg_32", "v": "VGPR_32", "a": "AGPR_32", "ttmp": "SReg_32"}


def register_exists(isa: TargetISA, name: str) -> bool:
    """Whether ``name`` names registers the target has: ``s102``-``s105`` encode
    FLAT_SCRATCH and XNACK_MASK on GFX9, ``a0`` needs AGPRs, ``v300`` is past the file."""
    scalar = isa.register_classes.get("SReg_32")
    if name in SPECIAL_REGISTERS:
        return True
    units = register_units(name)
    if units is None:
        return scalar is not None and (scalar.contains(name) or scalar.contains(f"{name}_lo"))
    prefix, first, count = units
    if prefix == "s" and first + count > ADDRESSABLE["s"]:
        return False
    rclass = isa.register_classes.get(_UNIT_CLASS[prefix])
    if rclass is None:
        return False
    return all(rclass.contains(f"{prefix}{index}") for index in range(first, first + count))


def _units(name: str) -> list[str]:
    """The 32-bit parts of a register name (``s[5:6]`` -> ``s5``, ``s6``)."""
    units = register_units(name)
    if units is None:
        return [name]
    prefix, first, count = units
    return [f"{prefix}{index}" for index in range(first, first + count)]


def copy_from(builder: InstBuilder, dest: VirtRegAttr, name: str) -> list[InstructionOpBase]:
    """``dest = name`` (an application register read at the payload's entry)."""
    if name == "scc":
        return [builder.inst("s_cselect_b32", [dest, 1, 0])]
    units = register_units(name)
    prefix = units[0] if units is not None else "s"
    if prefix == "a":
        return [builder.inst("v_accvgpr_read_b32", [dest.part(i) if len(parts) > 1 else dest,
                                                     reg(part)])
                for parts in [_units(name)] for i, part in enumerate(parts)]
    if prefix == "v":
        parts = _units(name)
        return [builder.inst("v_mov_b32_e32",
                             [dest.part(i) if len(parts) > 1 else dest, reg(part)])
                for i, part in enumerate(parts)]
    width = SPECIAL_REGISTERS.get(name) or (units[2] if units is not None else 1)
    if width == 2 and (units is None or units[1] % 2 == 0):
        return [builder.inst("s_mov_b64", [dest, reg(name)])]
    parts = _units(name)
    return [builder.inst("s_mov_b32", [dest.part(i) if len(parts) > 1 else dest, reg(part)])
            for i, part in enumerate(parts)]


def copy_to(builder: InstBuilder, name: str, source: VirtRegAttr) -> list[InstructionOpBase]:
    """``name = source`` (an application register written at the payload's exit)."""
    if name == "scc":
        return [builder.inst("s_cmp_lg_u32", [source, 0])]
    units = register_units(name)
    prefix = units[0] if units is not None else "s"
    parts = _units(name)

    def part(index: int) -> VirtRegAttr:
        return source.part(index) if len(parts) > 1 else source

    if prefix == "a":
        return [builder.inst("v_accvgpr_write_b32", [reg(unit), part(i)])
                for i, unit in enumerate(parts)]
    if prefix == "v":
        return [builder.inst("v_mov_b32_e32", [reg(unit), part(i)]) for i, unit in enumerate(parts)]
    width = SPECIAL_REGISTERS.get(name) or (units[2] if units is not None else 1)
    if width == 2 and (units is None or units[1] % 2 == 0):
        return [builder.inst("s_mov_b64", [reg(name), source])]
    return [builder.inst("s_mov_b32", [reg(unit), part(i)]) for i, unit in enumerate(parts)]


def copy_between(builder: InstBuilder, dest: VirtRegAttr, source: VirtRegAttr,
                 register_class: str, units: int) -> list[InstructionOpBase]:
    """``dest = source`` between two virtual registers of one class."""
    if register_class.startswith("S"):
        if units == 2:
            return [builder.inst("s_mov_b64", [dest, source])]
        return [builder.inst("s_mov_b32", [dest, source])]
    if units == 1:
        return [builder.inst("v_mov_b32_e32", [dest, source])]
    return [builder.inst("v_mov_b32_e32", [dest.part(i), source.part(i)]) for i in range(units)]
