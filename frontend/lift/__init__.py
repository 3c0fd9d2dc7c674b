"""Lifting: AMDGPU code objects -> ``amdgpu_mc`` IR (decoding, CFG recovery, symbolization)."""

from luthier.frontend.lift.errors import LiftError
from luthier.frontend.lift.lifter import LiftOptions, LiftResult, lift_code_object

__all__ = ["LiftError", "LiftOptions", "LiftResult", "lift_code_object"]
