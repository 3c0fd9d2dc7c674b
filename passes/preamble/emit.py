"""``emit-preamble``: set up, at kernel entry, the state payloads need.

A kernel none of whose payloads needs instrumentation state (kernel arguments, workgroup
and workitem ids, launch sizes, the instrumentation stack) gets no preamble and stays
byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionOp, KernelOp
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.passes.instrument.points import describe_point


def emit_preambles(code_object: CodeObjectOp) -> int:
    """Emit the preamble of every kernel that needs one; returns how many."""
    for function in (op for op in code_object.body.ops if isinstance(op, KernelOp | FunctionOp)):
        for op in function.walk():
            if isinstance(op, MCIntrinsicOp):
                payload = op.parent_op()
                while payload is not None and not isinstance(payload, PayloadOp):
                    payload = payload.parent_op()
                where = describe_point(payload) if isinstance(payload, PayloadOp) else \
                    f"@{function.sym_name.data}"
                raise PassFailedException(
                    f"emit-preamble: {where}: the state intrinsic \"{op.intrinsic.data}\" "
                    "has no home: the State Value Array is not implemented yet")
    return 0


@dataclass(frozen=True)
class EmitPreamblePass(ModulePass):
    """Set up the instrumentation state at the entry of the kernels that need it."""

    name = "emit-preamble"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in op.walk():
            if isinstance(code_object, CodeObjectOp):
                emit_preambles(code_object)
