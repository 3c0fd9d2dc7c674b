"""Instruction selection to amdgpu_mc, and amdgpu_mc to assembly text, bytes and ELF."""
