"""``luthier-opt``: xdsl-opt for AMDGPU code objects.

    luthier-opt --lift in.co                     # print the lifted amdgpu_mc IR
    luthier-opt in.co --kernel=vector_add -o k.mlir
    luthier-opt lifted.mlir -p some-pass -o out.mlir
    luthier-opt app.hipfb --list                 # bundle entries, targets, kernels
    luthier-opt app.hipfb --offload-arch=gfx90a --lift
    luthier-opt --lift in.co -o out.co           # lift and re-emit (byte-identical)
    luthier-opt lifted.mlir --emit=obj -o out.o  # a relocatable object
    luthier-opt in.co -o out.s                   # LLVM-syntax assembly (llvm-mc reads it)
    luthier-opt kernel.s -o kernel.co            # assemble (pure Python), lift, link
    luthier-opt in.co --hooks tool.py -p insert-hooks   # instrument with a tool's hooks
    luthier-opt --lift --inline-hooks --emit-preamble in.co --hooks H.mlir -o out.co

Code objects (``.co``, ``.hsaco``, ``.o``, ``.elf``), offload bundles and HIP fat binaries
(``.hipfb``, ``.fatbin``, or any host ELF with a ``.hip_fatbin`` section) are lifted on
input; assembly (``.s``) is assembled into a relocatable object, then lifted; ``.mlir`` files
are parsed. ``--hooks FILE`` (``.mlir``, or ``.py`` defining a module-level ``hooks``)
adds a tool's ``instr.global``/``instr.hook``/``instr.insert`` ops to the input before
the passes run. Everything else is xdsl-opt's: ``-p`` pass pipelines,
``--print-op-generic``, ``--split-input-file``, ``--verify-diagnostics``.

A user's mistake (a corrupt file, an unknown kernel, IR that does not parse or verify) is
one line on stderr, ``luthier-opt: error: <input>: <reason>``, exit status 1, and no output
file: output is written to a temporary file that replaces ``-o`` only on success.

This module is only the entry point: it imports the machinery (``opt_main.py``, and with
it xDSL) when there is work to do; ``--help`` is answered from a snapshot of the command
line (``opt_help.py``) in a fraction of that time.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence

from luthier.drivers.opt_help import print_help_from_snapshot


def main(argv: Sequence[str] | None = None) -> int:
    if print_help_from_snapshot(sys.argv[1:] if argv is None else argv):
        return 0
    from luthier.drivers.opt_main import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
