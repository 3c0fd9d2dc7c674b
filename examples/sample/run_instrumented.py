"""Run the sample kernel and its instrumented copy in the emulator, and compare.

    python examples/sample/run_instrumented.py ORIGINAL.co INSTRUMENTED.co

vector_add(a, b, c, n) runs on 1000 elements (4 workgroups of 256: the last one partly
idle) in both code objects with the same inputs. The outputs must be equal, and the
instruction counter's globals (examples/hooks/instr_count.mlir) must equal what the
emulator itself counted for the original: instructions per wave, and per thread (the
active lanes of each executed instruction). Exit status 1 when anything differs.
"""

from __future__ import annotations

import sys

import numpy as np

from luthier.emulator.api import run_kernel

N = 1000


def main(original: str, instrumented: str) -> int:
    rng = np.random.default_rng(7)
    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    arguments = (a, b, np.zeros(N, np.float32), N)
    before = run_kernel(original, "vector_add", 4, 256, list(arguments), trace=True)
    after = run_kernel(instrumented, "vector_add", 4, 256, list(arguments))
    expected, found = before.buffers[2], after.buffers[2]
    assert expected is not None and found is not None
    same = bool(np.array_equal(expected, found))
    waves = int.from_bytes(after.globals["instr_count_wave"], "little")
    threads = int.from_bytes(after.globals["instr_count_thread"], "little")
    assert before.trace is not None
    lanes = before.trace.thread_instructions
    print(f"outputs equal: {same}")
    print(f"instructions per wave:   counter {waves}, emulator {before.instructions}")
    print(f"instructions per thread: counter {threads}, emulator {lanes}")
    print(f"instrumented run: {after.instructions} instructions in {after.waves} waves "
          f"(original: {before.instructions})")
    return 0 if same and waves == before.instructions and threads == lanes else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
