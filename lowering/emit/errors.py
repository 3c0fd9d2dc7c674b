"""The emitter's one error type (one line: what and where)."""

from __future__ import annotations


class EmitError(Exception):
    """IR that cannot be encoded: an unallocated virtual register, a branch out of range,
    an opcode the target lacks."""
