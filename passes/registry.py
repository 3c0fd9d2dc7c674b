"""Every luthier pass by its name, and the ``xdsl.universe`` entry point.

A pass is registered here, beside the passes, by a factory that imports its module when the
pass is first used: ``luthier-opt --help`` and stock ``xdsl-opt`` discover the names without
importing any pass (start-up stays cheap), and pyright checks each import. Adding a pass: write
its module, add one factory and one ``PASSES`` entry here, and a lit test;
``test/unit/passes/test_registry.py`` checks that every ``ModulePass`` under ``passes/`` and
``lowering/`` is registered under its own ``name``. docs/architecture.md has the steps.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.universe import Universe

from luthier.amdgpu_dialects.dialects import LUTHIER_DIALECTS


def _print_cfg() -> type[ModulePass]:
    from luthier.passes.analysis.print_passes import PrintCFGPass

    return PrintCFGPass

def _print_callgraph() -> type[ModulePass]:
    from luthier.passes.analysis.print_passes import PrintCallGraphPass

    return PrintCallGraphPass

def _print_liveness() -> type[ModulePass]:
    from luthier.passes.analysis.print_liveness import PrintLivenessPass

    return PrintLivenessPass

def _print_register_usage() -> type[ModulePass]:
    from luthier.passes.analysis.print_liveness import PrintRegisterUsagePass

    return PrintRegisterUsagePass

def _insert_hooks() -> type[ModulePass]:
    from luthier.passes.instrument.insert_hooks import InsertHooksPass

    return InsertHooksPass

def _inline_hooks() -> type[ModulePass]:
    from luthier.passes.instrument.inline_hooks import InlineHooksPass

    return InlineHooksPass

def _select_instructions() -> type[ModulePass]:
    from luthier.lowering.isel.select import SelectInstructionsPass

    return SelectInstructionsPass

def _virtualize_phys_regs() -> type[ModulePass]:
    from luthier.passes.instrument.virtualize import VirtualizePhysRegsPass

    return VirtualizePhysRegsPass

def _lower_intrinsics() -> type[ModulePass]:
    from luthier.passes.instrument.lower_intrinsics import LowerIntrinsicsPass

    return LowerIntrinsicsPass

def _save_payload_state() -> type[ModulePass]:
    from luthier.passes.instrument.payload_state import SavePayloadStatePass

    return SavePayloadStatePass

def _allocate_payload_registers() -> type[ModulePass]:
    from luthier.passes.instrument.regalloc import AllocatePayloadRegistersPass

    return AllocatePayloadRegistersPass

def _verify_payloads() -> type[ModulePass]:
    from luthier.passes.instrument.verify_payloads import VerifyPayloadsPass

    return VerifyPayloadsPass

def _print_instrumentation_report() -> type[ModulePass]:
    from luthier.passes.instrument.report import PrintInstrumentationReportPass

    return PrintInstrumentationReportPass

def _lower_hooks() -> type[ModulePass]:
    from luthier.passes.instrument.pipeline import LowerHooksPass

    return LowerHooksPass

def _place_sva() -> type[ModulePass]:
    from luthier.passes.preamble.sva import PlaceSVAPass

    return PlaceSVAPass

def _emit_preamble() -> type[ModulePass]:
    from luthier.passes.preamble.emit import EmitPreamblePass

    return EmitPreamblePass

def _splice_payloads() -> type[ModulePass]:
    from luthier.passes.layout.splice_payloads import SplicePayloadsPass

    return SplicePayloadsPass

def _export_tool_globals() -> type[ModulePass]:
    from luthier.passes.layout.tool_globals import ExportToolGlobalsPass

    return ExportToolGlobalsPass

def _update_descriptors() -> type[ModulePass]:
    from luthier.passes.layout.descriptors import UpdateDescriptorsPass

    return UpdateDescriptorsPass

def _relax_branches() -> type[ModulePass]:
    from luthier.passes.layout.relax_branches import RelaxBranchesPass

    return RelaxBranchesPass

def _finalize_instrumentation() -> type[ModulePass]:
    from luthier.passes.layout.pipeline import FinalizeInstrumentationPass

    return FinalizeInstrumentationPass

#: Pass name (``-p NAME``) -> a factory giving its class.
LUTHIER_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "print-cfg": _print_cfg,
    "print-callgraph": _print_callgraph,
    "print-liveness": _print_liveness,
    "print-register-usage": _print_register_usage,
    "insert-hooks": _insert_hooks,
    "inline-hooks": _inline_hooks,
    "select-instructions": _select_instructions,
    "virtualize-phys-regs": _virtualize_phys_regs,
    "lower-intrinsics": _lower_intrinsics,
    "save-payload-state": _save_payload_state,
    "allocate-payload-registers": _allocate_payload_registers,
    "verify-payloads": _verify_payloads,
    "print-instrumentation-report": _print_instrumentation_report,
    "lower-hooks": _lower_hooks,
    "place-sva": _place_sva,
    "emit-preamble": _emit_preamble,
    "splice-payloads": _splice_payloads,
    "export-tool-globals": _export_tool_globals,
    "update-descriptors": _update_descriptors,
    "relax-branches": _relax_branches,
    "finalize-instrumentation": _finalize_instrumentation,
}

#: What the ``xdsl.universe`` entry point ``luthier`` gives xdsl-opt.
LUTHIER_UNIVERSE = Universe(all_dialects=LUTHIER_DIALECTS, all_passes=LUTHIER_PASSES)
