"""Analyses and transforms over the amdgpu_mc and instr dialects."""
