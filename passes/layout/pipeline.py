"""``finalize-instrumentation``: from lowered payloads to code that can be emitted.

After ``lower-hooks`` the payloads hold allocated machine code but still sit in
``instr.payload`` ops, kernels that need instrumentation state have no preamble yet, the
tool's globals are ``instr.global`` ops and the descriptors count the old registers. This
pass runs, in order: ``emit-preamble`` (state set up at kernel entry, where a payload needs
it), ``update-descriptors`` (register counts: it compares the payloads' registers with the
application's, so it runs while they are still apart), ``splice-payloads`` (payload code
into the functions, PC-relative operands kept exact), ``export-tool-globals`` (the tool's
variables as exported ``.bss`` symbols) and ``relax-branches`` (branches that moved out of
reach go through islands). ``luthier-opt --emit-preamble`` runs it after the passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.collector import collector_paused
from luthier.lowering.progress import over
from luthier.lowering.timing import timed
from luthier.passes.layout.descriptors import update_descriptors
from luthier.passes.layout.relax_branches import relax_branches
from luthier.passes.layout.splice_payloads import splice_payloads
from luthier.passes.layout.tool_globals import export_tool_globals
from luthier.passes.preamble.emit import emit_preambles


@dataclass(frozen=True)
class FinalizeInstrumentationPass(ModulePass):
    """Preamble, splicing, tool globals, descriptors and branch relaxation, in order."""

    name = "finalize-instrumentation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        code_objects = [child for child in op.ops if isinstance(child, CodeObjectOp)]
        # Tens of thousands of payloads moved: no cycles to find.
        with collector_paused(), timed("finalize-instrumentation"):
            for code_object in over("finalize-instrumentation", code_objects, "code object"):
                with timed("emit-preamble"):
                    emit_preambles(code_object)
                with timed("update-descriptors"):
                    update_descriptors(code_object)
                with timed("splice-payloads"):
                    splice_payloads(code_object)
            with timed("export-tool-globals"):
                export_tool_globals(op)
            with timed("relax-branches"):
                for code_object in code_objects:
                    relax_branches(code_object)
