#!/usr/bin/env python3
"""Instrumentation cost per kernel: what the user's command does to code size, registers
and scratch, and how long it takes per code object.

For each input code object (default: the corpus objects the end-to-end suite checks,
``test/corpus/kernels/{control_flow,calls,atomics,lds,mfma,globals,elementwise}`` on gfx90a
and gfx942), the pipeline of ``luthier-opt --lift --inline-hooks --emit-preamble IN.co
--hooks H.mlir -o OUT.co`` runs in this process (read, lift, merge the hooks,
``lower-hooks``, ``finalize-instrumentation``, emit), timed by wall clock. Then, per kernel,
from the input's and the output's own ELF (symbol sizes, descriptors, metadata notes):

* ``bytes``: the kernel function's symbol size before -> after, and the growth ratio;
* ``sgpr``, ``vgpr``, ``agpr``: the metadata's ``.sgpr_count``, ``.vgpr_count`` (on
  gfx90a/gfx942 the unified total, AGPRs included) and ``.agpr_count``;
* ``scratch``: the descriptor's private segment fixed size (bytes per lane);
* ``spills``: payload values the register allocator spilled (to VGPR lanes or AGPRs) in the
  kernel, and the metadata's SGPR+VGPR spill counts of the output (the compiler's own).

It prints one table per hook and a total; it is a measurement script: it exits 0 whatever
the figures (1 only when the pipeline itself fails on an input).

    python bench/bench_growth.py
    python bench/bench_growth.py --hook memory_trace
    python bench/bench_growth.py --input test/corpus/kernels/mfma.gfx90a.co
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xdsl.context import Context  # noqa: E402
from xdsl.dialects import arith, scf  # noqa: E402
from xdsl.dialects.builtin import Builtin, ModuleOp  # noqa: E402

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect  # noqa: E402
from luthier.amdgpu_dialects.amdgpu_mc.structure import KernelOp  # noqa: E402
from luthier.amdgpu_dialects.instr.dialect import INSTR  # noqa: E402
from luthier.amdgpu_dialects.instr.ops import PayloadOp  # noqa: E402
from luthier.drivers.opt_main import load_hooks, merge_hooks  # noqa: E402
from luthier.frontend.codeobj import read_code_object  # noqa: E402
from luthier.frontend.codeobj.model import CodeObject, Kernel  # noqa: E402
from luthier.frontend.lift import lift_code_object  # noqa: E402
from luthier.lowering.emit.object_spec import emit_code_object  # noqa: E402
from luthier.passes.instrument.pipeline import LowerHooksPass  # noqa: E402
from luthier.passes.instrument.regalloc import allocation_of  # noqa: E402
from luthier.passes.layout.pipeline import FinalizeInstrumentationPass  # noqa: E402

CORPUS = ROOT / "test" / "corpus" / "kernels"
HOOKS = ROOT / "examples" / "hooks"
OBJECTS = ("control_flow", "calls", "atomics", "lds", "mfma", "globals", "elementwise")
TARGETS = ("gfx90a", "gfx942")


@dataclass(frozen=True)
class Resources:
    """What a kernel asks of the machine, as its code object states it."""

    code_bytes: int
    sgprs: int
    vgprs: int
    agprs: int
    scratch: int
    spills: int

    @staticmethod
    def of(kernel: Kernel) -> Resources:
        meta = kernel.metadata
        if meta is None:
            return Resources(kernel.function.size, 0, 0, 0,
                             kernel.descriptor.private_segment_fixed_size, 0)
        return Resources(kernel.function.size, meta.sgpr_count or 0, meta.vgpr_count or 0,
                         meta.agpr_count or 0, kernel.descriptor.private_segment_fixed_size,
                         (meta.sgpr_spill_count or 0) + (meta.vgpr_spill_count or 0))


@dataclass(frozen=True)
class Row:
    obj: str
    kernel: str
    before: Resources
    after: Resources
    payload_spills: int


def _context() -> Context:
    context = Context()
    for dialect in (Builtin, make_dialect(), INSTR, arith.Arith, scf.Scf):
        context.load_dialect(dialect)
    return context


def _payload_spills(module: ModuleOp) -> dict[str, int]:
    """Spilled payload values per kernel (the allocation record each payload carries)."""
    spills: dict[str, int] = {}
    for kernel in module.walk():
        if not isinstance(kernel, KernelOp):
            continue
        spills[kernel.sym_name.data] = sum(
            len(allocation_of(payload).get("spilled", []))
            for payload in kernel.walk() if isinstance(payload, PayloadOp))
    return spills


def instrument(path: Path, hooks: Path) -> tuple[bytes, dict[str, int], float]:
    """The user's command in this process: the output bytes, payload spills per kernel,
    and the wall time from reading the input to the emitted bytes."""
    start = time.perf_counter()
    context = _context()
    module = ModuleOp([lift_code_object(read_code_object(path)).module])
    merge_hooks(module, load_hooks(context, str(hooks)), path.name, hooks.name)
    LowerHooksPass().apply(context, module)
    spills = _payload_spills(module)
    FinalizeInstrumentationPass().apply(context, module)
    data = emit_code_object(module)
    return data, spills, time.perf_counter() - start


def measure(path: Path, hooks: Path) -> tuple[list[Row], float, int, int]:
    """Per-kernel rows, the wall time, and the object's size before and after."""
    data, spills, seconds = instrument(path, hooks)
    before: CodeObject = read_code_object(path)
    after: CodeObject = read_code_object(data, name=f"{path.name} instrumented")
    rows = [Row(path.name.removesuffix(".co"), kernel.name, Resources.of(kernel),
                Resources.of(after.kernel(kernel.name)), spills.get(kernel.name, 0))
            for kernel in before.kernels]
    return rows, seconds, path.stat().st_size, len(data)


def _change(before: int, after: int) -> str:
    return f"{before}" if before == after else f"{before}->{after}"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hook", default="instr_count",
                        help="an example hook, examples/hooks/HOOK.mlir (default instr_count),"
                             " or the path of a hooks file")
    parser.add_argument("--input", action="append", type=Path, default=[],
                        help="code objects to instrument (default: the e2e corpus objects)")
    args = parser.parse_args()
    hooks = Path(args.hook) if args.hook.endswith(".mlir") else HOOKS / f"{args.hook}.mlir"
    inputs: list[Path] = args.input or [CORPUS / f"{obj}.{target}.co"
                                        for obj in OBJECTS for target in TARGETS]
    print(f"instrumentation with {hooks.name}: {len(inputs)} code objects")
    print(f"{'object':22} {'kernel':26} {'bytes':>13} {'growth':>7} {'sgpr':>7} "
          f"{'vgpr':>7} {'agpr':>5} {'scratch':>8} {'spills':>6}")
    total_before = total_after = 0
    times: list[tuple[str, float, int, int]] = []
    failed = 0
    for path in inputs:
        try:
            rows, seconds, size_before, size_after = measure(path, hooks)
        except Exception as error:  # report the object and go on: a measurement, not a test
            print(f"{path.name}: instrumentation failed: {type(error).__name__}: {error}")
            failed += 1
            continue
        times.append((path.name, seconds, size_before, size_after))
        for row in rows:
            b, a = row.before, row.after
            total_before += b.code_bytes
            total_after += a.code_bytes
            growth = a.code_bytes / b.code_bytes if b.code_bytes else 0.0
            spills = f"{row.payload_spills}+{a.spills}"
            print(f"{row.obj:22} {row.kernel:26} {_change(b.code_bytes, a.code_bytes):>13} "
                  f"{growth:>6.1f}x {_change(b.sgprs, a.sgprs):>7} "
                  f"{_change(b.vgprs, a.vgprs):>7} {_change(b.agprs, a.agprs):>5} "
                  f"{_change(b.scratch, a.scratch):>8} {spills:>6}")
    print()
    print(f"{'object':28} {'wall s':>7} {'file bytes':>17}")
    for name, seconds, size_before, size_after in times:
        print(f"{name:28} {seconds:>7.2f} {size_before:>8}->{size_after:<8}")
    if times:
        ratio = total_after / total_before if total_before else 0.0
        wall = sum(seconds for _, seconds, _, _ in times)
        print(f"total: kernel code {total_before} -> {total_after} bytes ({ratio:.1f}x), "
              f"{wall:.1f} s wall for {len(times)} objects "
              f"({wall / len(times):.2f} s per object)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
