"""Instruction semantics, one module per instruction family; importing this package
registers them all in :data:`.registry.SEMANTICS`."""

from luthier.emulator.semantics import (
    crosslane,
    ds,
    flow,
    mfma,
    salu,
    salu_float,
    smem,
    valu_f16,
    valu_float,
    valu_int,
    valu_misc,
    vmem,
    vopc,
)
from luthier.emulator.semantics.registry import SEMANTICS, Instruction, Step, semantics

__all__ = ["SEMANTICS", "Instruction", "Step", "crosslane", "ds", "flow", "mfma", "salu",
           "salu_float", "semantics", "smem", "valu_f16", "valu_float", "valu_int",
           "valu_misc", "vmem", "vopc"]
