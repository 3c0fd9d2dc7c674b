"""What the hook-arithmetic tests share: a kernel compiled by clang-19 for every supported
target (its own results are the oracle: what HIP computes on the GPU), and the user's
command instrumenting it with a hook file.

Used by ``test_float_division.py``, ``test_float_remainder.py``, ``test_integer_division.py``
and ``test_wide_conversions.py``: each compiles one kernel per target and puts a hook
written in MLIR, Python or HIP at its entry.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS
from luthier.amdgpu_dialects.target.subtarget import subtarget_for

from .test_instrumented_corpus import LuthierOpt


def compile_kernels(folder: Path, stem: str, source: str) -> dict[str, Path]:
    """``source`` (HIP, device code only) compiled by clang-19 at -O2 for every supported
    target into ``folder`` (RDNA in wave64); the test is skipped without clang-19."""
    clang = shutil.which("clang-19")
    if clang is None:
        pytest.skip("clang-19 is not installed (scripts/setup.sh installs it)")
    (folder / f"{stem}.hip").write_text(source)
    found: dict[str, Path] = {}
    for target in SUPPORTED_TARGETS:
        out = folder / f"{stem}.{target}.co"
        # The hooks index their results by lane id over one wave of 64 work-items, so RDNA
        # kernels are compiled for 64-lane waves too.
        wave64 = ["-mwavefrontsize64"] if subtarget_for(target).major >= 10 else []
        subprocess.run([clang, "-x", "hip", "--offload-device-only", "-nogpulib", "-nogpuinc",
                        "-O2", f"--offload-arch={target}", *wave64, "--no-gpu-bundle-output",
                        "-o", str(out), str(folder / f"{stem}.hip")], check=True)
        found[target] = out
    return found


def instrument(kernel: Path, hook_text: str, suffix: str, work: Path,
               luthier_opt: LuthierOpt) -> Path:
    """``luthier-opt --lift --inline-hooks --emit-preamble KERNEL --hooks HOOK -o OUT``
    with ``hook_text`` written to a hook file of kind ``suffix`` (``.mlir``, ``.py``,
    ``.hip``); the instrumented code object."""
    hook = work / f"hook{suffix}"
    hook.write_text(hook_text)
    out = work / "instrumented.co"
    done = luthier_opt(["--lift", "--inline-hooks", "--emit-preamble", "--no-progress",
                        kernel, "--hooks", hook, "-o", out])
    assert done.returncode == 0, done.stderr
    return out
