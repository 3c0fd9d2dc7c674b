"""What a relink carries from a linked code object without interpreting it, and when.

Lifting models code, descriptors, variables and the metadata note; everything else a linked
file holds (``.debug_*``, ``.comment``, other notes, sections of other tools) is carried to
the output as bytes. Bytes that hold no address stay right wherever the code goes. Bytes that
hold the input's addresses (a line table, address ranges, frame descriptions) are right only
while every symbol keeps its address and size: the lifter marks such a section with the
digest of the input's symbol layout, and the shared writer keeps it only when its own output
has the same digest (an identity round trip), so that stale addresses are never written.

The lifter (``frontend/lift``) and the writers (``lowering/elf``) both use this module, which
is why it lives in the layer below both.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

#: Debug sections whose bytes hold no address: strings, abbreviations and the offsets into
#: them. Every other ``.debug_*`` section (info, line, ranges, loc, frame, aranges, addr,
#: rnglists, loclists, names...) holds addresses or offsets into one that does.
ADDRESS_FREE_DEBUG_SECTIONS = frozenset(
    {".debug_str", ".debug_abbrev", ".debug_line_str", ".debug_str_offsets"}
)

#: Non-allocated sections whose bytes hold no address, apart from the debug ones above.
ADDRESS_FREE_SECTIONS = frozenset({".comment"})


def holds_addresses(name: str, is_note: bool) -> bool:
    """Whether a carried non-allocated section may hold the input's addresses.

    Only what is known to be address-free is trusted to stay right when code moves: notes,
    ``.comment`` and the debug string and abbreviation tables. A section of an unknown tool
    is assumed to hold addresses, so that it is dropped (with a warning) rather than kept
    wrong.
    """
    if is_note:
        return False
    return name not in ADDRESS_FREE_DEBUG_SECTIONS and name not in ADDRESS_FREE_SECTIONS


def kept_unlinked(name: str, bound: bool) -> bool:
    """Whether an object still to be linked (a relocatable output, or assembly) keeps a
    carried section: not when it holds the linked input's addresses (``bound``), and not
    the debug sections, which without those describe nothing and which a link would break
    (it merges ``.debug_str`` again, while ``.debug_str_offsets`` points into it)."""
    return not bound and not name.startswith(".debug")


def layout_digest(symbols: Iterable[tuple[str, int, int]]) -> str:
    """A digest of a symbol layout: every defined symbol's (name, address, size).

    Equal digests mean every function, descriptor and variable is where it was and as long
    as it was, which is what sections holding addresses need to stay right. The digest is
    independent of symbol order (the writers may order symbol tables differently)."""
    digest = hashlib.sha256()
    for name, address, size in sorted(symbols):
        digest.update(f"{name}\0{address:x}\0{size:x}\n".encode())
    return digest.hexdigest()[:32]
