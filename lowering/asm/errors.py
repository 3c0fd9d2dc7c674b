"""The one error the directive emitters raise.

A kernel descriptor or metadata map that the assembler directives cannot reproduce exactly must
stop the emission: printing something close but different would give a code object that loads
and then misbehaves (wrong register budget, wrong float mode), which is far harder to debug than
a refusal. The message is one line and names the kernel and the field, so a driver can print it
as is.
"""

from __future__ import annotations


class DirectiveError(Exception):
    """A descriptor, target or metadata value that assembler directives cannot express."""

    def __init__(self, reason: str) -> None:
        # One line, whatever the caller passed: drivers print str(error) on a single line.
        super().__init__(" ".join(reason.split()))
