"""Which chunk of a code object's functions each worker process lowers next
(``luthier-opt --jobs N``, :mod:`~luthier.drivers.function_workers`).

Cutting the functions into one run per worker, of equal instruction counts, left the
workers finishing up to two seconds apart on rocRAND: a point costs what its allocation
costs, which depends on how many earlier points of its worker allocated alike, and on a
shared machine one core can run a third slower than the other for seconds. So each run is
cut into a few chunks, and a worker that has done its own run takes the second half of
what is left of the largest run another worker has not reached yet (by instructions).
Each worker still goes through neighbouring functions in layout order, one after the
other: neighbours are often instances of one template, whose points allocate alike, and
a worker reuses an allocation only among its own points.
"""

from __future__ import annotations

from collections.abc import Sequence


class ChunkSchedule:
    """The chunks (``weights``: their sizes, in layout order) that ``starts`` begin, one
    run per worker; :meth:`next` hands each worker its next chunk."""

    def __init__(self, weights: Sequence[int], starts: Sequence[int]) -> None:
        if not starts or list(starts) != sorted(set(starts)) or starts[0] != 0 \
                or starts[-1] >= len(weights):
            raise ValueError(f"runs starting at {list(starts)} do not cut "
                             f"{len(weights)} chunks")
        self.weights = list(weights)
        self.starts = list(starts)
        self.taken = [False] * len(weights)

    @property
    def workers(self) -> int:
        return len(self.starts)

    def first(self, worker: int) -> int:
        """The first chunk of ``worker``'s run (taken)."""
        chunk = self.starts[worker]
        assert not self.taken[chunk]
        self.taken[chunk] = True
        return chunk

    def next(self, finished: int) -> int | None:
        """The chunk a worker that finished chunk ``finished`` takes (taken): the one after
        it, unless another worker has it; else the second half of the largest run of
        chunks nobody has taken. None when every chunk is taken."""
        follow = finished + 1
        if follow < len(self.taken) and not self.taken[follow]:
            self.taken[follow] = True
            return follow
        run = self._largest_free_run()
        if run is None:
            return None
        chunk = self._second_half(*run)
        self.taken[chunk] = True
        return chunk

    def _largest_free_run(self) -> tuple[int, int] | None:
        """The untaken run [start, end) of the most instructions (the first of equals)."""
        best: tuple[int, int] | None = None
        best_weight = -1
        start = None
        for index in range(len(self.taken) + 1):
            free = index < len(self.taken) and not self.taken[index]
            if free and start is None:
                start = index
            elif not free and start is not None:
                weight = sum(self.weights[start:index])
                if weight > best_weight:
                    best, best_weight = (start, index), weight
                start = None
        return best

    def _second_half(self, start: int, end: int) -> int:
        """The first chunk of [start, end) after at least half its instructions: the
        worker already in front of the run keeps the first half."""
        half = sum(self.weights[start:end]) / 2
        done = 0
        for chunk in range(start, end - 1):
            done += self.weights[chunk]
            if done >= half:
                return chunk + 1
        return end - 1
