"""The emitter's one error type (one line: what and where)."""

from __future__ import annotations

from luthier.amdgpu_dialects.errors import LuthierError


class EmitError(LuthierError):
    """IR that cannot be encoded: an unallocated virtual register, a branch out of range,
    an opcode the target lacks."""
