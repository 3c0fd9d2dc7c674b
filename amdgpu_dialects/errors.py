"""The base of every error that reports a mistake in what a user gave (a file, a hook, an
option, an argument) rather than a bug of ours.

Each layer raises its own kind (:class:`~luthier.frontend.codeobj.CodeObjectError`, a
lift's, an emission's, the emulator's...), and each kind's message is the one line a tool
prints; all of them are :class:`LuthierError`, so that Python code driving luthier
(``import luthier``) catches the user's mistakes with one ``except`` and lets bugs through.
It lives in the lowest layer because every layer's errors derive from it. Anything else
that reaches a tool's ``main`` is a bug of ours: :func:`report_internal_error` says so in
one line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


class LuthierError(Exception):
    """A mistake in what was given, described in one line."""


#: The exit status of a failure of ours (BSD's ``EX_SOFTWARE``), never a user's mistake
#: (those exit 1, usage errors 2): scripts and tests can tell them apart.
EXIT_INTERNAL = 70


def report_internal_error(prog: str, argv: Sequence[str] | None, error: Exception) -> int:
    """Print a bug of ours in one line, naming the input, and give :data:`EXIT_INTERNAL`;
    with ``LUTHIER_TRACEBACK=1`` in the environment, raise ``error`` instead (its
    traceback says where)."""
    if os.environ.get("LUTHIER_TRACEBACK"):
        raise error
    arguments = sys.argv[1:] if argv is None else list(argv)
    inputs = [arg for arg in arguments if not arg.startswith("-") and os.path.isfile(arg)]
    where = f"{inputs[0]}: " if inputs else ""
    text = " ".join(str(error).split())
    print(f"{prog}: internal error: {where}{type(error).__name__}: {text} (please report it "
          "with the command and its input; LUTHIER_TRACEBACK=1 shows where it failed)",
          file=sys.stderr)
    return EXIT_INTERNAL
