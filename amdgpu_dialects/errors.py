"""The base of every error that reports a mistake in what a user gave (a file, a hook, an
option, an argument) rather than a bug of ours.

Each layer raises its own kind (:class:`~luthier.frontend.codeobj.CodeObjectError`, a
lift's, an emission's, the emulator's...), and each kind's message is the one line a tool
prints; all of them are :class:`LuthierError`, so that Python code driving luthier
(``import luthier``) catches the user's mistakes with one ``except`` and lets bugs through.
It lives in the lowest layer because every layer's errors derive from it.
"""

from __future__ import annotations


class LuthierError(Exception):
    """A mistake in what was given, described in one line."""
