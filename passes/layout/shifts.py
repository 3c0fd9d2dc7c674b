"""Bytes inserted at numbered slots, and how far they push what lies after each slot.

Branch relaxation lays a function out once per round and then inserts islands into it; the
offset of anything after an insertion moves by the bytes inserted before it. A Fenwick tree
(binary indexed tree) over the slots keeps both operations logarithmic, so a round that adds
thousands of islands to a function of hundreds of thousands of instructions never lays the
function out again until the round ends.
"""

from __future__ import annotations


class Shifts:
    """Bytes inserted at slots ``0 .. count - 1`` (slot ``g`` is the boundary right after
    the ``g``-th op of the round's layout)."""

    __slots__ = ("_tree", "_at")

    def __init__(self, count: int) -> None:
        self._tree = [0] * (count + 1)
        #: Bytes inserted at each slot that has any.
        self._at: dict[int, int] = {}

    def insert(self, slot: int, size: int) -> None:
        """Record ``size`` more bytes at ``slot``."""
        self._at[slot] = self._at.get(slot, 0) + size
        tree = self._tree
        index = slot + 1
        while index < len(tree):
            tree[index] += size
            index += index & -index

    def before(self, slot: int) -> int:
        """Bytes inserted at the slots before ``slot`` (what moves the op after slot
        ``slot - 1``, and the end of op ``slot``)."""
        tree = self._tree
        total = 0
        index = slot
        while index > 0:
            total += tree[index]
            index -= index & -index
        return total

    def at(self, slot: int) -> int:
        """Bytes inserted at ``slot`` itself."""
        return self._at.get(slot, 0)

    def slots(self) -> list[int]:
        """The slots that received bytes, in ascending order."""
        return sorted(self._at)
