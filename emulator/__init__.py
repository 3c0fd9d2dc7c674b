"""An AMDGPU emulator over lifted ``amdgpu_mc`` IR: run kernels without a GPU.

The emulator runs a kernel of a code object (or of IR that a pass rewrote) over a grid of
workgroups, with the initial register state the kernel descriptor asks for, a flat global
memory of buffers, LDS per workgroup and scratch per lane. Lanes are NumPy vectors, so one
VALU instruction costs a few NumPy calls whatever the wave size. See ``docs/emulator.md``.
"""

from luthier.emulator.api import KernelArgument, RunResult, run_kernel
from luthier.emulator.errors import EmulationError

__all__ = ["EmulationError", "KernelArgument", "RunResult", "run_kernel"]
