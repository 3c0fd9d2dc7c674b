"""A finished workgroup keeps only what the run reports: a grid of thousands of waves must
not hold every wave's register files (about 200 KiB each) to the end."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from luthier.emulator import api, dispatch
from luthier.emulator.dispatch import Workgroup

from .common import program


def test_finished_waves_hold_their_counts_not_their_registers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    kept: list[Workgroup] = []
    run_workgroup = dispatch.run_workgroup

    def keeping(group: Workgroup, *args: Any) -> int:
        kept.append(group)
        return run_workgroup(group, *args)

    monkeypatch.setattr(dispatch, "run_workgroup", keeping)
    a = np.arange(1024, dtype=np.float32)
    result = api.run_kernel(program("elementwise", "gfx90a"), "vector_add", 4, 256,
                            [a, a, np.zeros(1024, np.float32), 1000])
    waves = [wave for group in kept for wave in group.waves]
    assert len(waves) == 16 and result.wave_instructions == [wave.executed for wave in waves]
    assert all(wave.v.size == 0 and wave.a.size == 0 and wave.private is None
               and wave.workgroup is None for wave in waves)
    assert all(group.lds.data.size == 0 for group in kept)
    assert result.buffers[2] is not None and result.buffers[2][999] == 2 * 999
