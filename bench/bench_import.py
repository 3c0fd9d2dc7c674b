"""How long importing the amdgpu_mc dialect takes (target: under half a second).

Each measurement is a fresh interpreter, so nothing is cached in-process; the figure that
matters is the wall time of ``import luthier.amdgpu_dialects.amdgpu_mc.dialect``, shown with
the cost of building the dialect object (which makes the 2000-odd instruction op classes) and
the cost of importing xDSL's builtin dialect alone, for reference.

    python bench/bench_import.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

_PROGRAM = """
import time
start = time.perf_counter()
import xdsl.dialects.builtin
after_xdsl = time.perf_counter()
from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
after_import = time.perf_counter()
make_dialect()
after_build = time.perf_counter()
print(after_xdsl - start, after_import - start, after_build - after_import)
"""

TARGET_SECONDS = 0.5


def measure() -> tuple[float, float, float]:
    output = subprocess.run([sys.executable, "-c", _PROGRAM], check=True,
                            capture_output=True, text=True).stdout.split()
    xdsl_seconds, import_seconds, build_seconds = (float(value) for value in output)
    return xdsl_seconds, import_seconds, build_seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters to time")
    args = parser.parse_args(argv)
    runs = [measure() for _ in range(max(1, args.runs))]
    xdsl_seconds = statistics.median(run[0] for run in runs)
    import_seconds = statistics.median(run[1] for run in runs)
    build_seconds = statistics.median(run[2] for run in runs)
    print(f"median of {len(runs)} fresh interpreters")
    print(f"import xdsl.dialects.builtin alone:      {xdsl_seconds * 1000:7.1f} ms")
    print(f"import the amdgpu_mc dialect (with xDSL): {import_seconds * 1000:7.1f} ms")
    print(f"build the dialect (all op classes):       {build_seconds * 1000:7.1f} ms")
    verdict = "PASS" if import_seconds < TARGET_SECONDS else "MISS"
    print(f"target import < {TARGET_SECONDS * 1000:.0f} ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
