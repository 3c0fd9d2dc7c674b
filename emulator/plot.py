"""``luthier-run --plot FILE``: what a run reports, as a picture.

One figure (:mod:`luthier.lowering.figure`), a panel per thing asked for: the instructions
each wave executed, each ``--global`` that holds several values (a bar per value that is
not zero), the globals of one value side by side, and a per-opcode table (``--global
NAME:opcodes``) as its most counted mnemonics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from luthier.lowering.figure import Panel

#: The most opcodes or values one panel shows (the largest ones).
MOST_BARS = 40


def wave_panel(kernel: str, counts: Sequence[int]) -> Panel:
    return Panel(f"{kernel}: instructions executed per wave",
                 [str(index) for index in range(len(counts))], [float(c) for c in counts])


def array_panel(name: str, values: npt.NDArray[Any]) -> Panel:
    """A global of several values: its values that are not zero, the largest first when
    there are more than :data:`MOST_BARS`, in index order."""
    indexes = np.flatnonzero(values).tolist()
    if len(indexes) > MOST_BARS:
        indexes = sorted(sorted(indexes, key=lambda i: -float(values[i]))[:MOST_BARS])
    shown = "" if len(indexes) == np.count_nonzero(values) else f" ({MOST_BARS} largest)"
    return Panel(f"{name}: values that are not zero, by index{shown}",
                 [str(i) for i in indexes], [float(values[i]) for i in indexes])


def scalar_panel(values: dict[str, float]) -> Panel:
    return Panel("globals", list(values), list(values.values()), horizontal=True)


def opcode_panel(name: str, counts: dict[str, int]) -> Panel:
    top = list(counts.items())[:MOST_BARS]
    more = f" ({MOST_BARS} most counted of {len(counts)})" if len(counts) > MOST_BARS else ""
    return Panel(f"{name}: counts per opcode{more}", [label for label, _ in reversed(top)],
                 [float(count) for _, count in reversed(top)], horizontal=True)
