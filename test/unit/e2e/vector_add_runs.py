"""Instrument the corpus ``vector_add`` with a hook file and run both versions: the shared
harness of the float hook tests (MLIR and HIP), which compare the counters a hook leaves
with NumPy's arithmetic."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from luthier.emulator.api import RunResult, run_kernel

from .test_instrumented_corpus import LuthierOpt

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ROOT / "test" / "corpus" / "kernels"


def instrumented_vector_add(hook: Path, target: str, work: Path,
                            luthier_opt: LuthierOpt) -> RunResult:
    """Run ``vector_add`` (4 waves of 64 lanes) instrumented with ``hook`` by the user's
    command; checks its output equals the original's and returns the instrumented run."""
    original = KERNELS / f"elementwise.{target}.co"
    instrumented = work / "out.co"
    done = luthier_opt(["--no-progress", "--lift", "--inline-hooks", "--emit-preamble",
                        original, "--hooks", hook, "-o", instrumented])
    assert done.returncode == 0, done.stderr
    a = np.arange(200, dtype=np.float32)
    args = [a, a, np.zeros(200, np.float32), 200]
    before = run_kernel(original, "vector_add", 4, 64, list(args))
    after = run_kernel(instrumented, "vector_add", 4, 64, list(args))
    original_out, instrumented_out = before.buffers[2], after.buffers[2]
    assert original_out is not None and instrumented_out is not None
    assert np.array_equal(original_out, instrumented_out)
    return after
