"""luthier's dialects and passes for xdsl-opt (the ``xdsl.universe`` entry point).

With the package installed, stock ``xdsl-opt`` parses, verifies and prints ``amdgpu_mc`` IR.
Factories import lazily, so discovering the universe costs nothing until a dialect is used.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def _amdgpu_mc() -> Dialect:
    from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect

    return make_dialect()


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


def _pass(module: str, name: str) -> Callable[[], type[ModulePass]]:
    """A factory importing ``luthier.<module>.<name>`` when the pass is first used."""

    def factory() -> type[ModulePass]:
        import importlib

        pass_class: type[ModulePass] = getattr(importlib.import_module(f"luthier.{module}"),
                                               name)
        return pass_class

    return factory


def _instr() -> Dialect:
    from luthier.amdgpu_dialects.instr.dialect import INSTR

    return INSTR


LUTHIER_DIALECTS: dict[str, Callable[[], Dialect]] = {"amdgpu_mc": _amdgpu_mc,
                                                      "instr": _instr}
LUTHIER_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "print-cfg": _print_cfg,
    "print-callgraph": _print_callgraph,
    "print-liveness": _print_liveness,
    "print-register-usage": _print_register_usage,
    "insert-hooks": _insert_hooks,
    "inline-hooks": _pass("passes.instrument.inline_hooks", "InlineHooksPass"),
    "select-instructions": _pass("lowering.isel.select", "SelectInstructionsPass"),
    "virtualize-phys-regs": _pass("passes.instrument.virtualize", "VirtualizePhysRegsPass"),
    "lower-intrinsics": _pass("passes.instrument.lower_intrinsics", "LowerIntrinsicsPass"),
    "save-payload-state": _pass("passes.instrument.payload_state", "SavePayloadStatePass"),
    "allocate-payload-registers": _pass("passes.instrument.regalloc",
                                        "AllocatePayloadRegistersPass"),
    "verify-payloads": _pass("passes.instrument.verify_payloads", "VerifyPayloadsPass"),
    "print-instrumentation-report": _pass("passes.instrument.report",
                                          "PrintInstrumentationReportPass"),
    "lower-hooks": _pass("passes.instrument.pipeline", "LowerHooksPass"),
    "place-sva": _pass("passes.preamble.sva", "PlaceSVAPass"),
    "emit-preamble": _pass("passes.preamble.emit", "EmitPreamblePass"),
    "splice-payloads": _pass("passes.layout.splice_payloads", "SplicePayloadsPass"),
    "export-tool-globals": _pass("passes.layout.tool_globals", "ExportToolGlobalsPass"),
    "update-descriptors": _pass("passes.layout.descriptors", "UpdateDescriptorsPass"),
    "relax-branches": _pass("passes.layout.relax_branches", "RelaxBranchesPass"),
    "finalize-instrumentation": _pass("passes.layout.pipeline",
                                      "FinalizeInstrumentationPass"),
}

LUTHIER_UNIVERSE = Universe(all_dialects=LUTHIER_DIALECTS, all_passes=LUTHIER_PASSES)
