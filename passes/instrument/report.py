"""``print-instrumentation-report``: what instrumentation cost, per point and per kernel.

A tool writer wants to know, after ``allocate-payload-registers``, what the payloads take
from the application: which registers each payload uses, what had to be saved around it,
how many instructions it adds, and whether a kernel's register allocation and occupancy
changed. :func:`instrumentation_report` returns those facts as data (for tests and tools);
the pass prints them as two tables and leaves the IR unchanged.

Per kernel, *before* is what the descriptor allocates (:class:`RegisterBudget`); *after* is
the higher of that and the highest register the application or a payload uses (payloads in
device functions count for every kernel that may run them), rounded up to the allocation
granules the hardware allocates in; occupancy is recomputed from those counts. Payloads that
save registers to the instrumentation stack add a ``stack`` column (the byte range of their
slots, ``[32:40]``) and kernels a ``scratch`` column (private bytes per lane before and
after); both columns only appear when some payload uses the stack. Like
``print-liveness`` the report goes to stderr, so the IR on stdout stays byte-identical.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp, KernelOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.instr.points import instruction_text
from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS
from luthier.passes.analysis.callgraph import payloads_set_aside
from luthier.passes.analysis.effects import EffectError
from luthier.passes.analysis.register_budget import RegisterBudget
from luthier.passes.analysis.register_usage import RegisterUsage
from luthier.passes.instrument.regalloc import allocation_of, payload_sites
from luthier.passes.preamble.scratch import (
    PayloadStack,
    StackError,
    kernel_stack_tops,
    payload_stack,
)


@dataclass(frozen=True, slots=True)
class PointReport:
    """One payload at its point."""

    hook: str
    function: str
    index: int
    instruction: str
    #: Instructions in the payload region (branches included).
    instructions: int
    registers: tuple[str, ...]
    spilled: tuple[str, ...]
    spill_registers: tuple[str, ...]
    budget_growth: tuple[str, ...]
    #: The instrumentation stack slots the payload uses (None: none).
    stack: PayloadStack | None = None


@dataclass(frozen=True, slots=True)
class Allocation:
    """A kernel's registers: usable generic SGPRs, VGPRs and AGPRs, what the hardware
    allocates (SGPRs with the special ones, vector registers per lane), waves per SIMD."""

    sgprs: int
    vgprs: int
    agprs: int
    sgprs_allocated: int
    vector_allocated: int
    waves: int


@dataclass(frozen=True, slots=True)
class KernelReport:
    kernel: str
    payloads: int
    instructions: int
    before: Allocation
    after: Allocation
    #: Private (scratch) bytes per lane, before and after the instrumentation stack.
    scratch_before: int = 0
    scratch_after: int = 0

    @property
    def budget_changed(self) -> bool:
        """Whether the hardware allocation grows (usable counts may move inside it: the
        AGPR split of a unified file follows the VGPRs)."""
        return (self.before.sgprs_allocated, self.before.vector_allocated) != \
            (self.after.sgprs_allocated, self.after.vector_allocated)

    @property
    def occupancy_changed(self) -> bool:
        return self.before.waves != self.after.waves


def _count_instructions(payload: PayloadOp) -> int:
    return sum(1 for block in payload.body.blocks for op in block.ops
               if isinstance(op, InstructionOpBase))


def _highest(names: list[str], prefix: str) -> int:
    """One past the highest register of file ``prefix`` among ``names`` (0 if none)."""
    highest = 0
    for name in names:
        if not name.startswith(prefix) or name.startswith("ttmp"):
            continue
        body = name[1:]
        last = int(body[1:-1].split(":")[1]) if body.startswith("[") else int(body)
        highest = max(highest, last + 1)
    return highest


def _before(budget: RegisterBudget) -> Allocation:
    return Allocation(budget.sgprs, budget.vgprs, budget.agprs, budget.sgprs_allocated,
                      budget.vgprs_allocated, budget.waves_per_simd)


def instrumentation_report(code_object: CodeObjectOp) -> tuple[list[PointReport],
                                                                list[KernelReport]]:
    """Per point and per kernel facts of ``code_object``'s allocated payloads."""
    points: list[PointReport] = []
    per_function: dict[str, list[PointReport]] = {}
    for function in code_object.body.ops:
        if not isinstance(function, FunctionLikeOp):
            continue
        for payload, site in payload_sites(function):
            allocation = allocation_of(payload)
            report = PointReport(
                payload.hook.string_value(), function.sym_name.data, site.index,
                instruction_text(site.point), _count_instructions(payload),
                tuple(allocation.get("registers", [])), tuple(allocation.get("spilled", [])),
                tuple(allocation.get("spill_registers", [])),
                tuple(allocation.get("budget_growth", [])), payload_stack(payload))
            points.append(report)
            per_function.setdefault(report.function, []).append(report)
    kernels: list[KernelReport] = []
    stack_tops = kernel_stack_tops(code_object)
    with payloads_set_aside(code_object):  # what the application itself may call
        usage = RegisterUsage(code_object)
    for name, kernel_usage in usage.kernels.items():
        budget = kernel_usage.budget
        kernel = next(op for op in code_object.body.ops
                      if isinstance(op, KernelOp) and op.sym_name.data == name)
        if budget is None:
            continue
        reports = [report for function in kernel_usage.functions or (name,)
                   for report in per_function.get(function, [])]
        names = [register for report in reports
                 for register in (*report.registers, *report.spill_registers)]
        needs = {prefix: max(kernel_usage.highest(prefix) + 1, _highest(names, prefix))
                 for prefix in ("s", "v", "a")}
        private = kernel.descriptor.data.private_segment_fixed_size
        kernels.append(KernelReport(name, len(reports),
                                    sum(report.instructions for report in reports),
                                    _before(budget), _before(budget.grown(needs)),
                                    private, max(private, stack_tops.get(name, 0))))
    return points, kernels


def format_table(rows: list[list[str]]) -> list[str]:
    """Rows of cells as aligned text lines (the first row is the header)."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths,
                                                                        strict=True)).rstrip()
            for row in rows]


def _names(names: tuple[str, ...]) -> str:
    return " ".join(names) if names else "-"


def format_report(points: list[PointReport], kernels: list[KernelReport]) -> list[str]:
    """The two tables (see the module documentation)."""
    stacked = any(p.stack is not None for p in points)
    lines = ["instrumentation points:"]
    rows = [["hook", "function", "#", "instruction", "added", "registers", "spilled",
             "spill registers", "past budget", *(["stack"] if stacked else [])]]
    rows.extend([f"@{p.hook}", f"@{p.function}", str(p.index), p.instruction,
                 str(p.instructions), _names(p.registers), _names(p.spilled),
                 _names(p.spill_registers), _names(p.budget_growth),
                 *([_stack(p.stack)] if stacked else [])] for p in points)
    lines.extend(format_table(rows))
    lines.append("kernels: registers each kernel's allocation makes usable (sgprs, vgprs, agprs) "
                 "and vector registers it allocates per lane, before -> after the payloads")
    rows = [["kernel", "payloads", "added", "sgprs", "vgprs", "agprs", "vector alloc",
             "waves/SIMD", *(["scratch"] if stacked else []), "changed"]]
    for k in kernels:
        changed = [what for what, flag in (("budget", k.budget_changed),
                                           ("occupancy", k.occupancy_changed),
                                           ("scratch", k.scratch_after != k.scratch_before))
                   if flag]
        rows.append([f"@{k.kernel}", str(k.payloads), str(k.instructions),
                     f"{k.before.sgprs} -> {k.after.sgprs}",
                     f"{k.before.vgprs} -> {k.after.vgprs}",
                     f"{k.before.agprs} -> {k.after.agprs}",
                     f"{k.before.vector_allocated} -> {k.after.vector_allocated}",
                     f"{k.before.waves} -> {k.after.waves}",
                     *([f"{k.scratch_before} -> {k.scratch_after}"] if stacked else []),
                     ", ".join(changed) or "no"])
    lines.extend(format_table(rows))
    return lines


def report_data(points: list[PointReport], kernels: list[KernelReport]) -> dict[str, object]:
    """The report as plain data (``luthier-opt --report --json``): the tables' rows, each a
    dictionary named by the tables' columns."""
    def allocation(found: Allocation) -> dict[str, int]:
        return {"sgprs": found.sgprs, "vgprs": found.vgprs, "agprs": found.agprs,
                "sgprs_allocated": found.sgprs_allocated,
                "vector_allocated": found.vector_allocated, "waves_per_simd": found.waves}

    return {
        "points": [{"hook": p.hook, "function": p.function, "index": p.index,
                    "instruction": p.instruction, "added": p.instructions,
                    "registers": list(p.registers), "spilled": list(p.spilled),
                    "spill_registers": list(p.spill_registers),
                    "past_budget": list(p.budget_growth),
                    "stack": None if p.stack is None else {"offset": p.stack.offset,
                                                           "size": p.stack.size}}
                   for p in points],
        "kernels": [{"kernel": k.kernel, "payloads": k.payloads, "added": k.instructions,
                     "before": allocation(k.before), "after": allocation(k.after),
                     "scratch_before": k.scratch_before, "scratch_after": k.scratch_after,
                     "budget_changed": k.budget_changed,
                     "occupancy_changed": k.occupancy_changed}
                    for k in kernels],
    }


def _stack(stack: PayloadStack | None) -> str:
    return "-" if stack is None else f"[{stack.offset}:{stack.top}]"


@dataclass(frozen=True)
class PrintInstrumentationReportPass(ModulePass):
    """Print the instrumentation report of every code object to stderr; the IR is
    unchanged."""

    name = "print-instrumentation-report"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for _, points, kernels in module_reports(op):
            sys.stderr.write("".join(line + "\n" for line in format_report(points, kernels)))
            sys.stderr.flush()


def module_reports(module: ModuleOp) -> list[tuple[CodeObjectOp, list[PointReport],
                                                   list[KernelReport]]]:
    """The report of every code object of ``module`` on a supported target (the pass's
    tables, ``luthier-opt --report --json``'s data); what cannot be reported is a
    ``PassFailedException`` naming the pass."""
    found: list[tuple[CodeObjectOp, list[PointReport], list[KernelReport]]] = []
    for code_object in module.ops:
        if not isinstance(code_object, CodeObjectOp) \
                or code_object.processor not in SUPPORTED_TARGETS:
            continue
        try:
            points, kernels = instrumentation_report(code_object)
        except (EffectError, StackError) as error:
            raise PassFailedException(
                f"{PrintInstrumentationReportPass.name}: {error}") from None
        found.append((code_object, points, kernels))
    return found
