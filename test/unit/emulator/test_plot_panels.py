"""What the figures show: the panels of ``luthier-run --plot`` and ``--report --plot``."""

from __future__ import annotations

import numpy as np

from luthier.emulator.plot import MOST_BARS, array_panel, opcode_panel, scalar_panel
from luthier.passes.layout.footprint import MOST_KERNELS, KernelFootprint, footprint_panels


def test_an_array_shows_its_values_that_are_not_zero_in_index_order() -> None:
    values = np.zeros(8192, np.uint64)
    values[[3, 70, 5000]] = [7, 1, 2]
    panel = array_panel("table", values)
    assert list(panel.labels) == ["3", "70", "5000"] and list(panel.values) == [7, 1, 2]
    assert panel.title == "table: values that are not zero, by index"


def test_a_large_array_shows_its_largest_values() -> None:
    values = np.arange(1, 101, dtype=np.uint64)
    panel = array_panel("table", values)
    assert list(panel.labels) == [str(i) for i in range(100 - MOST_BARS, 100)]
    assert f"({MOST_BARS} largest)" in panel.title


def test_opcodes_most_counted_on_top_and_scalars_side_by_side() -> None:
    counts = {f"op{i}": 100 - i for i in range(MOST_BARS + 5)}
    panel = opcode_panel("histogram", counts)
    assert panel.labels[-1] == "op0" and len(panel.labels) == MOST_BARS  # barh: top is last
    assert f"{MOST_BARS} most counted of {MOST_BARS + 5}" in panel.title
    assert list(scalar_panel({"a": 1.0, "b": 2.0}).labels) == ["a", "b"]


def test_a_library_report_shows_its_largest_kernels_before_and_after() -> None:
    before = [KernelFootprint(f"k{i}", 100 + i, 10, 8, 0, 0, 8) for i in range(60)]
    after = [KernelFootprint(f"k{i}", 1000 + 10 * i, 16, 9, 0, 0, 8) for i in range(60)]
    code, sgprs, vgprs, waves = footprint_panels(before, after)
    assert list(code.labels) == [f"@k{i}" for i in range(60 - MOST_KERNELS, 60)]
    assert code.before is not None and code.before[0] == 100 + 60 - MOST_KERNELS
    assert code.values[-1] == 1000 + 10 * 59
    assert f"({MOST_KERNELS} largest of 60)" in code.title
    assert set(sgprs.values) == {16} and set(vgprs.values) == {9} and set(waves.values) == {8}
