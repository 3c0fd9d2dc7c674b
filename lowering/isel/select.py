"""``select-instructions``: each inlined payload's ``arith``/``scf``/``instr`` code becomes
``amdgpu_mc`` machine code over virtual registers.

Uniform values go to SGPRs and SALU instructions, per-lane values to VGPRs and VALU
instructions (see :mod:`.values`); ``scf.if`` becomes SCC branches or EXEC masking
(:mod:`.control`); memory operations become scalar or global instructions
(:mod:`.memory`); intrinsics become ``instr.mc_intrinsic`` ops for the passes after this
one (:mod:`.intrinsics`). The payload's region is replaced by blocks of machine code that
end in ``instr.return``; branches stay inside the payload.

A hook using an op the selector does not know fails with one line naming the hook, the
function and the instrumented instruction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import MCBuildError
from luthier.amdgpu_dialects.instr.divergence import divergent_values
from luthier.amdgpu_dialects.instr.ops import AtomicOp, LoadOp, PayloadOp, ReturnOp, StoreOp
from luthier.amdgpu_dialects.instr.points import describe_point, enclosing_code_object, payloads
from luthier.amdgpu_dialects.isa.target import LIFT_TARGETS
from luthier.lowering.isel.arith import lower_arith
from luthier.lowering.isel.control import lower_if
from luthier.lowering.isel.floats import lower_float
from luthier.lowering.isel.intrinsics import lower_intrinsic
from luthier.lowering.isel.memory import lower_atomic, lower_load, lower_store
from luthier.lowering.isel.selector import SelectionError, Selector
from luthier.lowering.isel.values import width_of
from luthier.lowering.progress import over

_WIDTHS = (1, 32, 64)


def _is_machine_code(payload: PayloadOp) -> bool:
    """Whether the payload was selected already (nothing but machine code in it)."""
    return all(op.name.startswith("amdgpu_mc.") or op.name in ("instr.return",
                                                              "instr.mc_intrinsic")
               for op in payload.body.walk())


def select_payload(payload: PayloadOp, processor: str,
                   wavefront_size: int | None = None) -> None:
    """Replace ``payload``'s SSA code by machine code for ``processor`` (in
    ``wavefront_size`` lanes, None: its default)."""
    entry = payload.body.blocks.first
    assert entry is not None
    ops = list(entry.ops)
    if len(payload.body.blocks) != 1:
        raise SelectionError("the payload's body must be one block (scf.if for branches)")
    divergent = divergent_values(ops)
    sel = Selector(processor, wavefront_size)

    def lower_ops(selector: Selector, body: list[Operation]) -> None:
        for op in body:
            for result in op.results:
                if width_of(result) not in _WIDTHS:
                    raise SelectionError(f"{op.name} gives {result.type}; hook values are "
                                         "i1, i32, i64, f32 or f64")
            if isinstance(op, ReturnOp):
                continue
            if isinstance(op, scf.IfOp):
                lower_if(selector, op, lower_ops, divergent)
            elif isinstance(op, LoadOp):
                lower_load(selector, op)
            elif isinstance(op, StoreOp):
                lower_store(selector, op)
            elif isinstance(op, AtomicOp):
                lower_atomic(selector, op)
            elif not lower_float(selector, op) and not lower_arith(selector, op) \
                    and not lower_intrinsic(selector, op):
                raise SelectionError(f"{op.name} is not supported in hooks")

    lower_ops(sel, ops)
    sel.add(ReturnOp())
    for block in list(payload.body.blocks):
        payload.body.detach_block(block)
        block.erase(safe_erase=False)
    for block in sel.blocks:
        payload.body.add_block(block)


@dataclass(frozen=True)
class SelectInstructionsPass(ModulePass):
    """Lower every inlined payload to ``amdgpu_mc`` with virtual registers."""

    name = "select-instructions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        select_payloads(list(payloads(op)))


def select_payloads(targets: Sequence[PayloadOp]) -> None:
    """Select machine code for the inlined payloads among ``targets``."""
    for payload in over("select-instructions", targets, "payload"):
        if not payload.body.blocks:
            raise PassFailedException(f"select-instructions: {describe_point(payload)}: "
                                      "the payload is empty; run inline-hooks first")
        if _is_machine_code(payload):
            continue
        code_object = enclosing_code_object(payload)
        assert code_object is not None
        processor = code_object.processor
        if processor not in LIFT_TARGETS:
            raise PassFailedException(f"select-instructions: {describe_point(payload)}: "
                                      f"unsupported target {processor}")
        try:
            select_payload(payload, *code_object.target_key)
        except (SelectionError, MCBuildError) as error:
            raise PassFailedException(f"select-instructions: {describe_point(payload)}: "
                                      f"{error}") from None
