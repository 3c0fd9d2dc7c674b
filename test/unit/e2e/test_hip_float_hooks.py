"""A HIP hook computing with float and double, compiled by clang-19, instrumented into a
corpus kernel and run in the emulator.

Per-lane floats (from the lane id) and uniform ones (from EXEC's popcount) go through
clang's fmul/fadd/fsub, a constant clang writes in hex (0.1f), fpext/fptrunc, an ordered
and an unordered compare, a select, fneg, fminf (llvm.minnum) and conversions to int that
are summed into ``__device__`` counters with atomicAdd, and a uniform float stored to a
float global; everything the hook leaves is compared with the same arithmetic done by NumPy
in float32/float64, exactly, and the kernel's own output must be what the original gives.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from .test_instrumented_corpus import LuthierOpt
from .vector_add_runs import instrumented_vector_add

pytestmark = pytest.mark.skipif(shutil.which("clang-19") is None,
                                reason="HIP hooks need clang-19 (scripts/setup.sh installs it)")

HOOK = """#include "luthier_hooks.h"

LUTHIER_GLOBAL unsigned int Total;
LUTHIER_GLOBAL unsigned int Negatives;
LUTHIER_GLOBAL float Average;

LUTHIER_HOOK void floats() {
  float X = (float)luthier_lane_id();
  float Y = X * 0.75f + 0.1f;
  double D = (double)Y - 20.5;
  float Z = D > 10.0 ? (float)(D * 3.0) : __builtin_fminf(-Y, -1.5f);
  atomicAdd(&Total, (unsigned int)(int)(Z + 100.0f));
  if (!(D >= 0.0))
    atomicAdd(&Negatives, (unsigned int)(int)(float)D);
  Average = (float)__popcll(luthier_read_exec()) * 0.25f;
}

LUTHIER_INSERT(floats, at = "kernel_entry", args = []);
"""


def _expected() -> tuple[int, int, float]:
    """What the hook leaves after 4 waves of 64 lanes, in NumPy's float32/float64."""
    total = negatives = 0
    for _wave in range(4):
        for lane in range(64):
            y = np.float32(np.float32(lane) * np.float32(0.75)) + np.float32(0.1)
            d = np.float64(y) - np.float64(20.5)
            z = np.float32(d * 3.0) if d > 10.0 else min(np.float32(-y), np.float32(-1.5))
            total += int(np.float32(z + np.float32(100.0)))
            if not d >= 0.0:
                negatives += int(np.float32(d))
    return total & 0xFFFFFFFF, negatives, float(np.float32(64) * np.float32(0.25))


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_hip_float_hook_counts_what_numpy_computes(target: str, tmp_path: Path,
                                                   luthier_opt: LuthierOpt) -> None:
    hook = tmp_path / "floats.hip"
    hook.write_text(HOOK)
    after = instrumented_vector_add(hook, target, tmp_path, luthier_opt)
    total = struct.unpack("<I", after.globals["Total"][:4])[0]
    negatives = struct.unpack("<i", after.globals["Negatives"][:4])[0]
    average = struct.unpack("<f", after.globals["Average"][:4])[0]
    assert (total, negatives, average) == _expected()
