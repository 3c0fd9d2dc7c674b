#!/usr/bin/env python3
"""The floor under an identity round trip: what a fresh process spends before it builds
any IR, against llvm-objdump-19 -d on the same file.

Issue 23 asks for ``luthier-opt --lift X -o Y`` within 2x of llvm-objdump's CPU time. This
measures, in a fresh child process each (CPU time, median of ``--runs``):

* ``python``: the interpreter starting with this machine's site packages (``-c pass``);
* ``import``: importing the code-object reader and the decoder;
* ``read``: ``read_code_object`` on the file;
* ``tables``: ``decoder_for(processor)`` (the decoder tables);
* ``decode``: decoding every instruction of every function, memos cold, building nothing;

and sums them: no round trip that decodes each instruction in Python can cost less. Also
how many instructions are distinct (the decoder's memo works per distinct encoding).

    python bench/bench_lift_floor.py                   # rocRAND's gfx90a object if fetched
    python bench/bench_lift_floor.py --input test/corpus/kernels/elementwise.gfx90a.co
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROCRAND = ROOT / "build" / "thirdparty" / "codeobjects" / "librocrand1" / \
    "librocrand.xnack-.gfx90a.co"
FALLBACK = ROOT / "test" / "corpus" / "bench" / "kernels.gfx90a.co"

#: Runs in a fresh process: each stage's CPU time, as JSON on the last line.
_STAGES = r"""
import json, sys, time
clock = time.process_time
start = clock()
from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.frontend.codeobj import read_code_object
imported = clock()
code_object = read_code_object(open(sys.argv[1], "rb").read())
read = clock()
decoder = decoder_for(code_object.processor, real_true16=True)
decoder.clear_memo()
tables = clock()
count = 0
encodings = set()
for function in [*code_object.kernels, *code_object.device_functions]:
    code, offset = function.code, 0
    while offset < len(code):
        size = decoder.decode(code, offset, offset).size
        encodings.add(code[offset:offset + size])
        offset += size
        count += 1
decoded = clock()
print(json.dumps({"import": imported - start, "read": read - imported,
                  "tables": tables - read, "decode": decoded - tables,
                  "instructions": count, "distinct": len(encodings),
                  "processor": code_object.processor}))
"""


def _child_cpu(command: list[str]) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--input", type=Path, default=ROCRAND if ROCRAND.is_file() else FALLBACK)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    python = statistics.median(_child_cpu([sys.executable, "-c", "pass"])[0]
                               for _ in range(args.runs))
    stages: list[dict[str, float]] = []
    for _ in range(args.runs):
        _, out = _child_cpu([sys.executable, "-c", _STAGES, str(args.input)])
        stages.append(json.loads(out.splitlines()[-1]))
    names = ("import", "read", "tables", "decode")
    median = {name: statistics.median(stage[name] for stage in stages) for name in names}
    processor = str(stages[0]["processor"])
    objdump = statistics.median(
        _child_cpu(["llvm-objdump-19", "-d", f"--mcpu={processor}", str(args.input)])[0]
        for _ in range(args.runs))
    floor = python + sum(median.values())
    print(f"input: {args.input} ({processor}, {int(stages[0]['instructions'])} instructions, "
          f"{int(stages[0]['distinct'])} distinct encodings)")
    print(f"CPU ms, median of {args.runs} fresh processes")
    print(f"  python start-up  {1000 * python:8.1f}")
    for name in names:
        print(f"  {name:15} {1000 * median[name]:8.1f}")
    print(f"  floor (sum)     {1000 * floor:8.1f}")
    print(f"llvm-objdump-19 -d: {1000 * objdump:.1f} ms; 2x budget {2000 * objdump:.1f} ms; "
          f"floor / objdump = {floor / objdump:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
