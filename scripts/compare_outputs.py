#!/usr/bin/env python3
"""Compare two folders of outputs written by ``record_outputs.py --keep`` (before and after a
change that alters output bytes): per kernel of every output that differs, whether its code
bytes, VGPR granules and SGPR granules went down, stayed or went up, and the kernels where
any went up. An output change must be explained; this says whether it is an improvement.

    python scripts/compare_outputs.py OLD_DIR NEW_DIR
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from luthier.frontend.codeobj import CodeObject, read_code_objects

Facts = dict[str, tuple[int, int, int]]


def kernel_facts(code_object: CodeObject) -> Facts:
    """Per kernel: VGPR granules, SGPR granules, code bytes (its symbol's size)."""
    facts: Facts = {}
    for kernel in code_object.kernels:
        rsrc1 = kernel.descriptor.compute_pgm_rsrc1
        facts[kernel.name] = (rsrc1.granulated_workitem_vgpr_count,
                              rsrc1.granulated_wavefront_sgpr_count, kernel.function.size)
    return facts


def _trend(before: int, after: int, down: str, up: str) -> str:
    return down if after < before else up if after > before else "same"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Compare two folders of record_outputs.py outputs.")
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    tally: Counter[str] = Counter()
    worse: list[str] = []
    for new in sorted(args.new.glob("*.co")):
        old = args.old / new.name
        if not old.exists() or old.read_bytes() == new.read_bytes():
            continue
        tally["outputs differing"] += 1
        before = kernel_facts(read_code_objects(old.read_bytes(), name=str(old))[0])
        after = kernel_facts(read_code_objects(new.read_bytes(), name=str(new))[0])
        for name, (vgprs, sgprs, size) in before.items():
            new_vgprs, new_sgprs, new_size = after[name]
            tally["kernels"] += 1
            tally["code " + _trend(size, new_size, "smaller", "larger")] += 1
            tally["vgprs " + _trend(vgprs, new_vgprs, "fewer", "more")] += 1
            tally["sgprs " + _trend(sgprs, new_sgprs, "fewer", "more")] += 1
            if new_size > size or new_vgprs > vgprs or new_sgprs > sgprs:
                worse.append(f"{new.name} @{name}: code {size} -> {new_size}, vgpr granules "
                             f"{vgprs} -> {new_vgprs}, sgpr granules {sgprs} -> {new_sgprs}")
    for key, count in sorted(tally.items()):
        print(f"{key}: {count}")
    for line in worse:
        print(f"worse: {line}")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
