"""The lifter's one error type: a one-line message naming the input and the reason."""

from __future__ import annotations

from luthier.amdgpu_dialects.errors import LuthierError


class LiftError(LuthierError):
    """Code the lifter cannot represent exactly (a branch out of its function, bytes that do
    not decode, a reference it cannot attribute); ``where`` names the function and address."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason
