"""``export-tool-globals``: the tool's variables become the code object's own.

A tool's ``instr.global @counter {size = 8}`` is zero at load and read by the host after the
dispatch with ``hipModuleGetGlobal(&ptr, &size, module, "counter")``, which looks the name
up among the code object's dynamic symbols. So each tool global becomes an
``amdgpu_mc.global`` in ``.bss`` of every code object of the module, bound GLOBAL with
PROTECTED visibility (what clang gives a HIP ``__device__`` variable: exported, and bound
inside the object), aligned to at least 8 bytes so 64-bit atomics on it are naturally
aligned. Payload code reaches it PC-relatively (``counter@rel32@lo+4``), which the linker
resolves against the new symbol.

Once exported, the tool's ops have served their purpose: hooks and insertions were consumed
by ``lower-hooks`` (no payload may be left to lower), so they are dropped with the globals,
and the module holds plain ``amdgpu_mc`` that any later pass or the emitter accepts.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    ExternOp,
    FunctionLikeOp,
    KernelOp,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import GlobalOp as MCGlobalOp
from luthier.amdgpu_dialects.instr.ops import GlobalOp, HookOp, InsertOp, PayloadOp
from luthier.amdgpu_dialects.instr.points import describe_point

#: Smallest alignment of a tool global: 64-bit counters are updated with 64-bit atomics.
MIN_ALIGNMENT = 8


def _mc_global(variable: GlobalOp) -> MCGlobalOp:
    alignment = max(variable.alignment.value.data if variable.alignment else 1, MIN_ALIGNMENT)
    return MCGlobalOp.create(properties={
        "sym_name": StringAttr(variable.sym_name.data),
        "section": StringAttr(".bss"),
        "size": IntegerAttr(variable.size.value.data, i64),
        "alignment": IntegerAttr(alignment, i64),
        "binding": StringAttr("GLOBAL"),
        "visibility": StringAttr("PROTECTED"),
    })


def export_tool_globals(module: ModuleOp) -> list[str]:
    """Move the tool's globals into every code object of ``module`` and drop the tool's
    ops; returns the exported names. Raises :class:`PassFailedException` when a payload is
    left or a name is already a symbol of a code object."""
    code_objects = [op for op in module.ops if isinstance(op, CodeObjectOp)]
    for code_object in code_objects:
        # Payloads sit directly in the functions' blocks (not walked into: after
        # instrumenting every instruction, their bodies are most of the IR).
        for op in (op for function in code_object.body.ops
                   if isinstance(function, FunctionLikeOp)
                   for block in function.body.blocks for op in block.ops):
            if isinstance(op, PayloadOp):
                raise PassFailedException(
                    f"export-tool-globals: {describe_point(op)}: the payload is not spliced "
                    "into the code (run splice-payloads first)")
    variables = [op for op in module.ops if isinstance(op, GlobalOp)]
    for code_object in code_objects:
        taken = {op.sym_name.data for op in code_object.body.ops
                 if isinstance(op, FunctionLikeOp | MCGlobalOp | ExternOp)}
        taken |= {f"{op.sym_name.data}.kd" for op in code_object.body.ops
                  if isinstance(op, KernelOp)}
        for variable in variables:
            name = variable.sym_name.data
            if name in taken:
                raise PassFailedException(
                    f"export-tool-globals: @{name}: the tool's global has the name of a "
                    f"symbol of the {code_object.target.data} code object; rename it")
        for variable in variables:
            code_object.body.block.add_op(_mc_global(variable))
    for op in list(module.ops):
        if isinstance(op, GlobalOp | HookOp | InsertOp):
            module.body.block.detach_op(op)
            op.erase()
    return [variable.sym_name.data for variable in variables]


@dataclass(frozen=True)
class ExportToolGlobalsPass(ModulePass):
    """Export the tool's ``instr.global`` variables from every code object (``.bss``,
    zero at load, found by name from the host) and drop the consumed hooks."""

    name = "export-tool-globals"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        export_tool_globals(op)
