"""``-p print-liveness`` and ``-p print-register-usage``: liveness and usage as text.

Like ``print-cfg`` (:mod:`.print_passes`), these leave the IR unchanged and write to
stderr, so a lit test checks the report and the IR on stdout stays byte-identical. The
liveness report is the IR annotated: every instruction, at its byte offset, with the
registers live just before it (what a payload inserted there must not write); where lanes
that EXEC has switched off still need vector registers, those are listed apart, since they
are what makes a VALU write under a partial EXEC unable to end a value. With ``free=true``
each line also lists the registers an allocator may take there: dead, and inside the budget
of every kernel that may run the instruction. Formats: docs/analyses.md.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, branch_label
from luthier.amdgpu_dialects.amdgpu_mc.register_units import format_units
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.isa.target import LIFT_TARGETS
from luthier.passes.analysis.cfg import FunctionCFG, block_name
from luthier.passes.analysis.effects import EffectError
from luthier.passes.analysis.free_registers import FreeRegisters
from luthier.passes.analysis.liveness import Liveness, any_lane
from luthier.passes.analysis.register_usage import KernelRegisterUsage


def _units(mask: int) -> str:
    return format_units(mask) or "none"


def instruction_text(cfg: FunctionCFG, op: InstructionOpBase) -> str:
    """``s_add_u32 s0, s0, 1``; a branch names its target block as the IR does."""
    label = branch_label(op) if op.KIND == "branch" else None
    if label is not None:
        return f"{op.mnemonic} \"{label.data}\""
    if op.KIND == "branch" and op.successors:
        return f"{op.mnemonic} {block_name(cfg.index_of(op.successors[0]))}"
    operands = op.assembly_text()
    return op.mnemonic if not operands else f"{op.mnemonic} {operands}"


def format_liveness(free: FreeRegisters, name: str, show_free: bool = False) -> list[str]:
    """The report of one function (see docs/analyses.md)."""
    liveness = free.liveness
    cfg = liveness.cfgs[name]
    function = liveness.function(name)
    kind = "kernel" if cfg.is_kernel else "function"
    header = f"liveness @{name} ({kind}): live-in {_units(any_lane(function.live_in))}"
    if not cfg.is_kernel:
        header += f"; live at return {_units(any_lane(function.return_live))}"
    lines = [header]
    offsets = cfg.instruction_offsets
    block_offsets = cfg.block_offsets
    for index, info in enumerate(function.blocks):
        where = block_name(index)
        if block_offsets is not None:
            where += f" +{block_offsets[index]:#x}"
        note = "" if cfg.reachable[index] else " (unreachable)"
        lines.append(f"  {where}: live-in {_units(any_lane(info.live_in))}{note}")
        for op in info.instructions:
            at = f"+{offsets[op]:#x} " if offsets is not None else ""
            live = liveness.live_before(op)
            text = f"    {at}{instruction_text(cfg, op)}: live {_units(live)}"
            inactive = liveness.inactive_before(op)
            if inactive:
                text += f"; inactive {_units(inactive)}"
            if show_free:
                allocatable = 0
                for prefix in ("s", "v", "a"):
                    allocatable |= free.allocatable(op, prefix)
                text += f"; free {_units(free.dead_before(op) & allocatable)}"
            lines.append(text)
        lines.append(f"    live-out {_units(any_lane(info.live_out))}")
    lines.extend(f"  warning: {warning}" for warning in cfg.warnings)
    lines.extend(f"  warning: {warning}" for warning in liveness.warnings
                 if warning.startswith((f"@{name} ", f"@{name}:")))
    return lines


def format_usage(usage: KernelRegisterUsage) -> list[str]:
    """The register-usage report of one kernel (see docs/analyses.md)."""
    touched = (f"every register: {usage.unknown_code}" if usage.unknown_code is not None
               else _units(usage.touched))
    lines = [f"registers @{usage.kernel}: touched {touched}"]
    lines.append(f"  entry {_units(usage.entry_defined)}")
    functions = ", ".join(f"@{name}" for name in usage.functions)
    if usage.complete:
        completeness = ""
    elif usage.unknown_code is not None:
        completeness = " and code we cannot see"
    else:
        completeness = " (unknown call targets: every device function)"
    lines.append(f"  runs {functions}{completeness}")
    budget = usage.budget
    if budget is None:
        lines.append("  budget unknown for this target")
        return lines
    # With unknown code every register counts as touched: print the budget alone.
    known = usage.unknown_code is None
    highest = {prefix: usage.highest(prefix) + 1 for prefix in ("s", "v", "a")}
    used = {prefix: f"{highest[prefix]}/" if known else "" for prefix in highest}
    lines.append(
        f"  budget sgprs {used['s']}{budget.sgprs} (allocated {budget.sgprs_allocated}), "
        f"vgprs {used['v']}{budget.vgprs}, agprs {used['a']}{budget.agprs} "
        f"(allocated {budget.vgprs_allocated}{', unified' if budget.unified else ''}), "
        f"waves per SIMD {budget.waves_per_simd}")
    if not known:
        lines.append("  never used none")
        return lines
    unused = usage.unused("s") | usage.unused("v") | usage.unused("a")
    lines.append(f"  never used {_units(unused)}")
    for prefix in ("s", "v", "a"):
        limit = budget.limit(prefix)
        if highest[prefix] > limit:
            lines.append(f"  warning: @{usage.kernel} uses {prefix}{highest[prefix] - 1}, past "
                         f"the {limit} {_FILE_NAMES[prefix]} its descriptor allocates: the "
                         "descriptor is inconsistent")
    return lines


_FILE_NAMES = {"s": "SGPRs", "v": "VGPRs", "a": "AGPRs"}


def _supported(code_object: CodeObjectOp) -> bool:
    """Every processor that lifts, in either wave size (the analyses take the code object's
    ISA, :func:`~.cfg.isa_of`)."""
    return code_object.processor in LIFT_TARGETS


@contextmanager
def _reported(pass_name: str) -> Generator[None]:
    """IR the analyses cannot read (a virtual register, an opcode the target lacks) fails
    the pass with a one-line diagnostic."""
    try:
        yield
    except EffectError as error:
        raise PassFailedException(f"{pass_name}: {error}") from None


def _write(lines: list[str]) -> None:
    sys.stderr.write("".join(line + "\n" for line in lines))
    sys.stderr.flush()


@dataclass(frozen=True)
class PrintLivenessPass(ModulePass):
    """Print every instruction with the registers live before it to stderr; the IR is
    unchanged. ``free=true`` adds the registers an allocator may take there."""

    name = "print-liveness"

    free: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in op.ops:
            if not isinstance(code_object, CodeObjectOp) or not _supported(code_object):
                continue
            with _reported(self.name):
                free = FreeRegisters(code_object, Liveness(code_object))
            for function in code_object.body.ops:
                if isinstance(function, FunctionLikeOp):
                    _write(format_liveness(free, function.sym_name.data, self.free))


@dataclass(frozen=True)
class PrintRegisterUsagePass(ModulePass):
    """Print each kernel's register usage, entry registers and budget to stderr."""

    name = "print-register-usage"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in op.ops:
            if not isinstance(code_object, CodeObjectOp) or not _supported(code_object):
                continue
            with _reported(self.name):
                free = FreeRegisters(code_object)
            for usage in free.usage.kernels.values():
                _write(format_usage(usage))
