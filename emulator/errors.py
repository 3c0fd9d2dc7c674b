"""The one error type of the emulator: what went wrong, said in one line."""

from __future__ import annotations

from luthier.amdgpu_dialects.errors import LuthierError


class EmulationError(LuthierError):
    """A run that cannot go on: an instruction without semantics, an access outside every
    buffer, bad arguments. The message is one line and names what to look at (the
    mnemonic, the kernel, the offset of the instruction in its function)."""
