"""The one exception every bad input of the code-object reader raises.

A user who hands ``luthier-opt`` a truncated file, a host binary or a code object for the wrong
GPU must get one line naming the file and what is wrong with it, never a traceback from deep
inside pyelftools or msgpack. Every module of this package therefore turns whatever it finds
wrong into :class:`CodeObjectError`, and the boundary to third-party parsers converts their
exceptions too.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.errors import LuthierError


class CodeObjectError(LuthierError):
    """A code object, offload bundle or fat binary that cannot be read.

    ``path`` names the input (a file path, or a descriptive name for bytes read from memory or
    from inside a bundle) and ``reason`` says what is wrong, in a few words.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = " ".join(reason.split())
        super().__init__(f"{path}: {self.reason}")

    def __reduce__(self) -> tuple[type[CodeObjectError], tuple[str, str]]:
        return (CodeObjectError, (self.path, self.reason))
