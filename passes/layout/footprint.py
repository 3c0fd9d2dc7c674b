"""What instrumentation did to each kernel, as the loader sees it: before and after
``finalize-instrumentation``.

``print-instrumentation-report`` (after allocation) says what the payloads take; this is
the result once the layout is final: the kernel's code size (its own function: payload
code, preamble and branch islands included), the register counts the metadata note
declares (``.sgpr_count``, ``.vgpr_count``, ``.agpr_count``), the private segment (scratch)
bytes per work-item, and the waves per SIMD the descriptor's register allocation allows.
``luthier-opt --emit-preamble --report`` prints it to stderr, like the other reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from luthier.amdgpu_dialects.amdgpu_mc.layout import function_layout
from luthier.amdgpu_dialects.amdgpu_mc.metadata import attr_to_metadata
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, KernelOp
from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS, load_target
from luthier.lowering.figure import Panel
from luthier.passes.analysis.register_budget import RegisterBudget, supports_budget
from luthier.passes.instrument.report import format_table


@dataclass(frozen=True, slots=True)
class KernelFootprint:
    """One kernel's cost to the machine."""

    kernel: str
    #: Bytes of the kernel's own code (application instructions only while payloads are
    #: still ``instr.payload`` ops: that is the application's size).
    code_bytes: int
    sgprs: int
    vgprs: int
    agprs: int
    #: ``private_segment_fixed_size``: scratch bytes per work-item.
    scratch: int
    #: Waves per SIMD the register allocation allows (0 where not modelled).
    waves_per_simd: int


def footprints(module: ModuleOp) -> list[KernelFootprint]:
    """The footprint of every kernel of every code object of ``module``."""
    found: list[KernelFootprint] = []
    for code_object in module.ops:
        if isinstance(code_object, CodeObjectOp) and \
                code_object.processor in SUPPORTED_TARGETS:
            found.extend(_code_object_footprints(code_object))
    return found


def _code_object_footprints(code_object: CodeObjectOp) -> list[KernelFootprint]:
    isa = load_target(*code_object.target_key)
    metadata: dict[str, Any] = attr_to_metadata(code_object.metadata) \
        if code_object.metadata is not None else {}
    entries = {entry.get(".name"): entry for entry in metadata.get("amdhsa.kernels", [])}
    found: list[KernelFootprint] = []
    for kernel in code_object.body.ops:
        if not isinstance(kernel, KernelOp):
            continue
        name = kernel.sym_name.data
        code = function_layout(kernel, isa, payloads_take_no_room=True).size
        descriptor = kernel.descriptor.data
        entry = entries.get(name, {})
        waves = RegisterBudget.from_descriptor(isa.name, descriptor).waves_per_simd \
            if supports_budget(isa.name) else 0
        found.append(KernelFootprint(
            name, code, int(entry.get(".sgpr_count", 0)), int(entry.get(".vgpr_count", 0)),
            int(entry.get(".agpr_count", 0)), descriptor.private_segment_fixed_size, waves))
    return found


def footprint_data(before: list[KernelFootprint],
                   after: list[KernelFootprint]) -> list[dict[str, object]]:
    """The table as plain data (``luthier-opt --report --json``): per kernel, each column
    as ``[before, after]``."""
    old = {footprint.kernel: footprint for footprint in before}
    rows: list[dict[str, object]] = []
    for new in after:
        was = old.get(new.kernel, new)
        rows.append({"kernel": new.kernel, "code_bytes": [was.code_bytes, new.code_bytes],
                     "sgprs": [was.sgprs, new.sgprs], "vgprs": [was.vgprs, new.vgprs],
                     "agprs": [was.agprs, new.agprs], "scratch": [was.scratch, new.scratch],
                     "waves_per_simd": [was.waves_per_simd, new.waves_per_simd]})
    return rows


#: The most kernels a figure shows (the largest, by code bytes after).
MOST_KERNELS = 40


def footprint_panels(before: list[KernelFootprint],
                     after: list[KernelFootprint]) -> list[Panel]:
    """The table as a figure (``luthier-opt --report --plot``): per kernel, code bytes,
    SGPRs and VGPRs (as the metadata declares them) and waves per SIMD, after beside
    before."""
    old = {footprint.kernel: footprint for footprint in before}
    pairs = [(old.get(new.kernel, new), new) for new in after]
    shown = ""
    if len(pairs) > MOST_KERNELS:  # a library: the largest kernels, in layout order
        largest = sorted(range(len(pairs)), key=lambda i: -pairs[i][1].code_bytes)
        pairs = [pairs[i] for i in sorted(largest[:MOST_KERNELS])]
        shown = f" ({MOST_KERNELS} largest of {len(after)})"
    labels = [f"@{new.kernel}" for _, new in pairs]
    horizontal = len(pairs) > 8

    def panel(title: str, field: str) -> Panel:
        return Panel(title, labels, [float(getattr(new, field)) for _, new in pairs],
                     horizontal, [float(getattr(was, field)) for was, _ in pairs])

    return [panel(f"code bytes per kernel{shown}", "code_bytes"),
            panel("SGPRs per kernel (.sgpr_count)", "sgprs"),
            panel("VGPRs per kernel (.vgpr_count)", "vgprs"),
            panel("waves per SIMD", "waves_per_simd")]


def format_footprints(before: list[KernelFootprint], after: list[KernelFootprint]) -> list[str]:
    """The table: one row per kernel, each column ``before -> after``."""
    old = {footprint.kernel: footprint for footprint in before}
    rows = [["kernel", "code bytes", "growth", "sgprs", "vgprs", "agprs", "scratch",
             "waves/SIMD"]]
    for new in after:
        was = old.get(new.kernel, new)
        growth = f"{new.code_bytes / was.code_bytes:.1f}x" if was.code_bytes else "-"
        rows.append([f"@{new.kernel}", f"{was.code_bytes} -> {new.code_bytes}", growth,
                     f"{was.sgprs} -> {new.sgprs}", f"{was.vgprs} -> {new.vgprs}",
                     f"{was.agprs} -> {new.agprs}", f"{was.scratch} -> {new.scratch}",
                     f"{was.waves_per_simd} -> {new.waves_per_simd}"])
    return ["kernels after layout: registers used as the metadata declares them (.sgpr_count "
            "includes the special SGPRs such as VCC), code bytes, scratch bytes per lane",
            *format_table(rows)]
