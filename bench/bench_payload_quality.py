#!/usr/bin/env python3
"""Payload quality: what the instruction counter costs at every instruction of the corpus.

For each corpus code object (``test/corpus/kernels/*.co``, gfx90a and gfx942), every
instruction of every kernel gets the payload of ``examples/hooks/instr_count.mlir`` (one
hook that adds 1 to a per-wave counter and the active-lane count to a per-thread one),
lowered by the real pipeline (``lower-hooks``). Per payload:

* ``body``: the hook's machine code alone, before any save, restore, spill or copy
  removal (the instructions after ``lower-intrinsics``): the floor for this selection —
  a lowering can only beat it by removing copies, which allocation does;
* ``ours``: the instructions the pipeline emits (after SCC/VCC/M0 saves where the
  application needs them, allocation into dead registers, spills, removed copies);
* ``naive``: a save-everything-it-touches lowering measured on the same payloads, as
  NVBit-style tools do: every register the payload writes (each SGPR/VGPR/AGPR unit, SCC,
  VCC, M0; EXEC is restored by the code itself in both) is saved before and restored after,
  one instruction each, whether or not the application needs it.

It prints, per target and hook: points, median and mean instructions per point for the
three, what ours adds over the body, spills, and the kernels whose register budget grew.
It is a measurement script: it exits 0 whatever the figures.

    python bench/bench_payload_quality.py
    python bench/bench_payload_quality.py --input test/corpus/kernels/calls.gfx90a.co
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xdsl.context import Context  # noqa: E402
from xdsl.dialects import arith, scf  # noqa: E402
from xdsl.dialects.builtin import Builtin, ModuleOp  # noqa: E402

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect  # noqa: E402
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase  # noqa: E402
from luthier.amdgpu_dialects.amdgpu_mc.register_units import units_of  # noqa: E402
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp  # noqa: E402
from luthier.amdgpu_dialects.instr.dialect import INSTR  # noqa: E402
from luthier.amdgpu_dialects.instr.ops import PayloadOp  # noqa: E402
from luthier.amdgpu_dialects.isa.target import load_target  # noqa: E402
from luthier.drivers.opt_main import load_hooks, merge_hooks  # noqa: E402
from luthier.frontend.codeobj import read_code_object  # noqa: E402
from luthier.frontend.lift import lift_code_object  # noqa: E402
from luthier.lowering.isel.select import SelectInstructionsPass  # noqa: E402
from luthier.passes.instrument.inline_hooks import InlineHooksPass  # noqa: E402
from luthier.passes.instrument.insert_hooks import InsertHooksPass  # noqa: E402
from luthier.passes.instrument.lower_intrinsics import LowerIntrinsicsPass  # noqa: E402
from luthier.passes.instrument.payload_state import (  # noqa: E402
    SavePayloadStatePass,
    written_units,
)
from luthier.passes.instrument.regalloc import (  # noqa: E402
    AllocatePayloadRegistersPass,
    allocation_of,
)
from luthier.passes.instrument.verify_payloads import VerifyPayloadsPass  # noqa: E402
from luthier.passes.instrument.virtualize import VirtualizePhysRegsPass  # noqa: E402

HOOKS = ROOT / "examples" / "hooks" / "instr_count.mlir"
#: Units a naive lowering saves and restores one by one (EXEC excluded: see the docstring).
_SPECIAL = ("scc", "vcc_lo", "vcc_hi", "m0")


@dataclass
class Figures:
    minimum: list[int] = field(default_factory=lambda: [])
    ours: list[int] = field(default_factory=lambda: [])
    naive: list[int] = field(default_factory=lambda: [])
    spills: int = 0
    points_with_spills: int = 0
    grown: set[str] = field(default_factory=lambda: set())


def _context() -> Context:
    context = Context()
    for dialect in (Builtin, make_dialect(), INSTR, arith.Arith, scf.Scf):
        context.load_dialect(dialect)
    return context


def _count(payload: PayloadOp) -> int:
    return sum(1 for op in payload.body.walk() if isinstance(op, InstructionOpBase))


def _naive_saves(payload: PayloadOp, processor: str) -> int:
    units = written_units(payload, load_target(processor)) & ~units_of("exec")
    generic = units & ~sum(units_of(name) for name in _SPECIAL)
    specials = sum(1 for name in _SPECIAL if units & units_of(name))
    return 2 * (generic.bit_count() + specials)


def measure(path: Path, figures: dict[str, Figures]) -> None:
    context = _context()
    module = ModuleOp([lift_code_object(read_code_object(path)).module])
    merge_hooks(module, load_hooks(context, str(HOOKS)), path.name, HOOKS.name)
    code_object = next(iter(module.ops))
    assert isinstance(code_object, CodeObjectOp)
    processor = code_object.processor
    for stage in (InsertHooksPass(), InlineHooksPass(), SelectInstructionsPass(),
                  VirtualizePhysRegsPass(), LowerIntrinsicsPass()):
        stage.apply(context, module)
    payloads = [op for op in module.walk() if isinstance(op, PayloadOp)]
    minimum = {id(payload): _count(payload) for payload in payloads}
    for stage in (SavePayloadStatePass(), AllocatePayloadRegistersPass(),
                  VerifyPayloadsPass()):
        stage.apply(context, module)
    for payload in payloads:
        hook = payload.hook.string_value()
        entry = figures.setdefault(f"{processor} {hook}", Figures())
        entry.minimum.append(minimum[id(payload)])
        entry.ours.append(_count(payload))
        entry.naive.append(minimum[id(payload)] + _naive_saves(payload, processor))
        allocation = allocation_of(payload)
        count = len(allocation.get("spilled", []))
        entry.spills += count
        entry.points_with_spills += count > 0
        if allocation.get("budget_growth"):
            entry.grown.add(path.name)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--input", action="append", type=Path, default=[],
                        help="code objects to instrument (default: the corpus .co files)")
    args = parser.parse_args()
    inputs = args.input or sorted((ROOT / "test" / "corpus" / "kernels").glob("*.co"))
    figures: dict[str, Figures] = {}
    start = time.process_time()
    for path in inputs:
        measure(path, figures)
    elapsed = time.process_time() - start
    print(f"instruction counter at every instruction: {len(inputs)} code objects, "
          f"{elapsed:.1f} s CPU")
    print(f"{'target hook':36} {'points':>7} {'body':>5} {'ours':>5} {'naive':>6} "
          f"{'ours-body':>9} {'mean ours/naive':>16} {'spills':>7} {'grown':>6}")
    for name, entry in sorted(figures.items()):
        median_min = statistics.median(entry.minimum)
        median_ours = statistics.median(entry.ours)
        median_naive = statistics.median(entry.naive)
        mean_ours = statistics.fmean(entry.ours)
        mean_naive = statistics.fmean(entry.naive)
        print(f"{name:36} {len(entry.ours):7d} {median_min:5.0f} {median_ours:5.0f} "
              f"{median_naive:6.0f} {median_ours - median_min:9.0f} "
              f"{mean_ours:7.2f}/{mean_naive:<7.2f} {entry.spills:7d} {len(entry.grown):6d}")
    print("body/ours/naive: median instructions added per point; spills: application "
          "registers saved around payloads; grown: code objects whose budget grew")
    return 0


if __name__ == "__main__":
    sys.exit(main())
