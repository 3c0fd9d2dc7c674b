"""Which chunk each ``--jobs`` worker takes next: its own run in layout order, then the
second half of the largest run nobody has reached, until every chunk is taken once."""

from __future__ import annotations

import random

import pytest

from luthier.drivers.work_sharing import ChunkSchedule


def test_each_worker_goes_through_its_own_run_in_order() -> None:
    schedule = ChunkSchedule([5] * 8, [0, 4])
    assert (schedule.first(0), schedule.first(1)) == (0, 4)
    assert [schedule.next(0), schedule.next(4), schedule.next(1), schedule.next(5)] \
        == [1, 5, 2, 6]


def test_a_worker_done_early_takes_the_second_half_of_the_largest_run_left() -> None:
    schedule = ChunkSchedule([1] * 8, [0, 4])
    schedule.first(0)
    schedule.first(1)
    # The second worker ends its run (4..7) while the first is still on chunk 0: of 1..3
    # it takes 3 (the first worker keeps 1 and 2, which it reaches first).
    assert [schedule.next(4), schedule.next(5), schedule.next(6)] == [5, 6, 7]
    assert schedule.next(7) == 3
    assert schedule.next(0) == 1
    assert schedule.next(1) == 2
    assert schedule.next(2) is None  # 3 is the other worker's
    assert schedule.next(3) is None


def test_halves_are_cut_by_instructions_not_by_chunks() -> None:
    schedule = ChunkSchedule([1, 10, 1, 1, 1, 1, 5], [0, 6])
    schedule.first(0)
    schedule.first(1)
    # Left: 1..5 (10 + 4 instructions): its first chunk is already half.
    assert schedule.next(6) == 2


def test_the_largest_run_is_the_one_stolen_from() -> None:
    schedule = ChunkSchedule([1] * 12, [0, 4, 8])
    for worker in range(3):
        schedule.first(worker)
    assert schedule.next(8) == 9
    assert schedule.next(4) == 5
    # Free now: 1..3, 6..7, 10..11; the third worker ends its run and takes 3 (in 1..3).
    assert schedule.next(9) == 10
    assert schedule.next(10) == 11
    assert schedule.next(11) == 3


@pytest.mark.parametrize("seed", range(20))
def test_every_chunk_is_taken_exactly_once_whatever_the_order(seed: int) -> None:
    generator = random.Random(seed)
    weights = [generator.randint(1, 100) for _ in range(generator.randint(2, 30))]
    workers = generator.randint(1, min(4, len(weights)))
    starts = sorted({0, *generator.sample(range(1, len(weights)), workers - 1)})
    schedule = ChunkSchedule(weights, starts)
    running = [schedule.first(worker) for worker in range(len(starts))]
    taken = list(running)
    while running:
        finished = running.pop(generator.randrange(len(running)))
        following = schedule.next(finished)
        if following is not None:
            running.append(following)
            taken.append(following)
    assert sorted(taken) == list(range(len(weights)))


@pytest.mark.parametrize("starts", [[], [1], [0, 0], [0, 3], [2, 0]])
def test_starts_must_cut_the_chunks(starts: list[int]) -> None:
    with pytest.raises(ValueError, match="do not cut"):
        ChunkSchedule([1, 1, 1], starts)
