"""Instruction selection: hook code (``arith``, ``scf``, ``instr``) to ``amdgpu_mc``."""
