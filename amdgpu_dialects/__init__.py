"""The amdgpu_mc and instr dialects, the register model, and the ISA tables they are built from."""
