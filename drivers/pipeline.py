"""The whole of ``luthier-opt --lift --inline-hooks --emit-preamble X.co --hooks H -o Y.co``
as one function on bytes: what batch workers run (:mod:`.batch`).

The hooks come as MLIR text (a Python hooks file is run once by the caller and printed), so
a task is plain data that any worker process, on this machine or on a cluster, can take.
"""

from __future__ import annotations

import functools

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from luthier.amdgpu_dialects.collector import collector_paused
from luthier.amdgpu_dialects.errors import LuthierError
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.frontend.lift import LiftError, LiftOptions, lift_code_object
from luthier.lowering.emit.errors import EmitError
from luthier.lowering.emit.object_spec import emit_code_object
from luthier.lowering.emit.text import kept_functions


class PipelineError(LuthierError):
    """Why a code object could not be processed, in one line."""


@functools.cache
def pipeline_context() -> Context:
    """xDSL's dialects and luthier's, loaded on first use (one per process)."""
    from xdsl.dialects import get_all_dialects

    from luthier.amdgpu_dialects.dialects import LUTHIER_DIALECTS

    ctx = Context()
    for name, factory in {**get_all_dialects(), **LUTHIER_DIALECTS}.items():
        ctx.register_dialect(name, factory)
    return ctx


def instrument_bytes(data: bytes, name: str, hooks: str | None, jobs: int = 1,
                     warnings: list[str] | None = None) -> bytes:
    """Lift the code object ``data``; with ``hooks`` (MLIR text), insert, lower and finalize
    them; emit the result. With ``jobs`` above 1, groups of functions that share no call are
    instrumented by as many forked workers (:mod:`.function_workers`; the same bytes).
    Every failure is a :class:`PipelineError` of one line; what ``luthier-opt`` would warn
    about (what the lift or the output leaves out, what insertions skip) is appended to
    ``warnings``, one line each."""
    from luthier.drivers.function_workers import SplitError
    from luthier.drivers.opt_main import UserError, one_line

    ctx = pipeline_context()
    try:
        with collector_paused():  # once for the whole object, not once per stage
            return _instrument(ctx, data, name, hooks, jobs, warnings)
    except (CodeObjectError, LiftError, EmitError, UserError, SplitError) as error:
        raise PipelineError(str(error).splitlines()[0] if str(error) else type(error).__name__) \
            from None
    except (ParseError, DiagnosticException, VerifyException) as error:
        raise PipelineError(one_line(error)) from None


def _instrument(ctx: Context, data: bytes, name: str, hooks: str | None, jobs: int,
                warnings: list[str] | None) -> bytes:
    # Without hooks the object is written back as it is: no body needs its ops.
    lifted = lift_code_object(read_code_object(data, name=name),
                              LiftOptions(keep_bytes=hooks is None))
    if warnings is not None:
        warnings += lifted.warnings
    if hooks is None:
        return emit_code_object(lifted.module, kept_functions(lifted.kept), warnings=warnings)
    module = ModuleOp([lifted.module])
    hook_module = Parser(ctx, hooks, "<hooks>").parse_module()
    return lower_and_emit(ctx, module, name, hook_module, "<hooks>", jobs, warnings)


def lower_and_emit(ctx: Context, module: ModuleOp, name: str, hooks: ModuleOp | None,
                   hooks_name: str, jobs: int = 1, warnings: list[str] | None = None) -> bytes:
    """``module`` (one lifted code object, named ``name`` in messages) with ``hooks`` (an
    ``instr`` module, named ``hooks_name``) merged, inserted, lowered and finalized, as the
    bytes of a code object; without hooks, the lifted object emitted again. What the
    insertions skip and what the output leaves out are appended to ``warnings``."""
    from luthier.drivers.function_workers import instrument_in_workers, plan_split
    from luthier.drivers.opt_main import merge_hooks
    from luthier.passes.instrument.insert_hooks import insertion_remarks
    from luthier.passes.instrument.pipeline import lower_hooks
    from luthier.passes.layout.pipeline import FinalizeInstrumentationPass

    if hooks is not None:
        merge_hooks(module, hooks, name, hooks_name)
        if warnings is not None:
            warnings += insertion_remarks(module)
        plan = plan_split(module, jobs, 0)
        if plan is not None:
            return emit_code_object(module, instrument_in_workers(ctx, module, plan, name),
                                    warnings=warnings)
        # Emitted right after finalizing: shared payload code can stay packed.
        lower_hooks(ctx, module, packed=True)
        FinalizeInstrumentationPass().apply(ctx, module)
    return emit_code_object(module, warnings=warnings)
