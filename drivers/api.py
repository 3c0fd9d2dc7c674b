"""The Python entry point: what ``luthier-opt`` and ``luthier-run`` do, as functions.

    import luthier

    module = luthier.lift("vector_add.gfx90a.co")               # amdgpu_mc IR
    data = luthier.instrument("vector_add.gfx90a.co", "instr_count.mlir", output="out.co")
    result = luthier.run(data, "vector_add", grid=4, block=256, args=[a, b, c, 1000])
    result.global_values("instr_count_wave")                   # array([464], dtype=uint64)

Code objects come as a path, or as bytes (a ``.co``, an offload bundle or a fat binary:
``offload_arch`` picks the entry when there are several); hooks as a path to a ``.mlir`` or
``.py`` hooks file, a :class:`~luthier.frontend.hooks.HookModule` built in Python, or an
``instr`` module. Every mistake in what is given raises :class:`LuthierError`, whose message
is the one line the command-line tools would print (the errors each layer raises for such
mistakes, :meth:`RunResult.global_values`'s among them, are all :class:`LuthierError`);
other exceptions are bugs of ours.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.collector import collector_paused
from luthier.amdgpu_dialects.errors import LuthierError
from luthier.amdgpu_dialects.instr.ops import HOOK_FILE_OPS
from luthier.drivers.opt_main import UserError, one_line
from luthier.drivers.opt_main import load_hooks as load_hooks_file
from luthier.drivers.pipeline import lower_and_emit, pipeline_context
from luthier.emulator.api import KernelArgument, RunResult, run_kernel
from luthier.frontend.codeobj import CodeObject, read_code_object
from luthier.frontend.hooks import HookModule
from luthier.frontend.lift import LiftOptions, lift_code_object
from luthier.lowering.output import write_atomically

#: A code object as the functions take it: a path, or the bytes of a file.
CodeObjectSource = str | os.PathLike[str] | bytes
#: Hooks as the functions take them: a hooks file, a Python hook module, an ``instr`` module.
HooksSource = str | os.PathLike[str] | HookModule | ModuleOp

#: What the tools report in one line: the input's mistakes.
_USER_ERRORS = (LuthierError,)


def _one_line(error: BaseException) -> LuthierError:
    """``error`` as one line; a user error keeps its kind."""
    if isinstance(error, ParseError | DiagnosticException | VerifyException):
        return LuthierError(one_line(error))
    lines = str(error).strip().splitlines()
    line = lines[0] if lines else type(error).__name__
    if isinstance(error, LuthierError) and str(error) == line:
        return error
    return LuthierError(line)


def _read(code_object: CodeObjectSource, offload_arch: str | None) -> tuple[CodeObject, str]:
    """The code object and the name messages give it."""
    if isinstance(code_object, bytes):
        return read_code_object(code_object, offload_arch=offload_arch,
                                name="<bytes>"), "<bytes>"
    path = Path(code_object)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    return read_code_object(path, offload_arch=offload_arch), str(path)


def lift(code_object: CodeObjectSource, *, kernels: Sequence[str] = (),
         offload_arch: str | None = None) -> ModuleOp:
    """``code_object`` lifted into ``amdgpu_mc`` IR (``luthier-opt --lift``): a module
    holding one ``amdgpu_mc.code_object``; ``kernels`` names the kernels to lift (all by
    default)."""
    try:
        found, _ = _read(code_object, offload_arch)
        return ModuleOp([lift_code_object(found, LiftOptions(kernels=tuple(kernels))).module])
    except _USER_ERRORS as error:
        raise _one_line(error) from None


def load_hooks(source: HooksSource) -> ModuleOp:
    """The ``instr`` module of ``source``: a ``.mlir`` or ``.py`` hooks file (as
    ``luthier-opt --hooks`` reads it), a :class:`~luthier.frontend.hooks.HookModule`, or a
    module of ``instr.global``, ``instr.hook`` and ``instr.insert`` ops."""
    try:
        if isinstance(source, HookModule):
            source = source.module
        if isinstance(source, ModuleOp):
            source.verify()
            for op in source.ops:
                if not isinstance(op, HOOK_FILE_OPS):
                    raise UserError("a hooks module holds instr.global, instr.hook and "
                                    f"instr.insert ops, not {op.name}")
            return source
        return load_hooks_file(pipeline_context(), os.fspath(source))
    except (*_USER_ERRORS, ParseError, DiagnosticException, VerifyException) as error:
        raise _one_line(error) from None


def instrument(code_object: CodeObjectSource, hooks_source: HooksSource, *,
               output: str | os.PathLike[str] | None = None, kernels: Sequence[str] = (),
               offload_arch: str | None = None, jobs: int = 1) -> bytes:
    """``code_object`` with ``hooks_source``'s hooks inserted, lowered and finalized, as the
    bytes of a loadable code object (``luthier-opt --lift --inline-hooks --emit-preamble
    IN --hooks H -o OUT``), also written to ``output`` when given (whole or not at all).
    ``jobs`` above 1 lowers groups of functions in as many worker processes (the same
    bytes)."""
    if jobs < 1:
        raise LuthierError(f"jobs={jobs}: give at least 1")
    hook_module = load_hooks(hooks_source)
    name = "<hooks>" if isinstance(hooks_source, HookModule | ModuleOp) \
        else os.fspath(hooks_source)
    try:
        found, label = _read(code_object, offload_arch)
        with collector_paused():
            module = ModuleOp([lift_code_object(found,
                                                LiftOptions(kernels=tuple(kernels))).module])
            data = lower_and_emit(pipeline_context(), module, label, hook_module.clone(), name,
                                  jobs)
    except (*_USER_ERRORS, ParseError, DiagnosticException, VerifyException) as error:
        raise _one_line(error) from None
    if output is not None:
        try:
            write_atomically(output, data)
        except OSError as error:
            raise LuthierError(f"{os.fspath(output)}: cannot write: {error.strerror}") \
                from None
    return data


def instrument_library(library: CodeObjectSource, hooks_source: HooksSource | None, *,
                       output: str | os.PathLike[str] | None = None,
                       offload_arch: str | None = None, kernels: Sequence[str] = (),
                       emit: str | None = None, jobs: int = 1,
                       warnings: list[str] | None = None) -> bytes:
    """``library`` (a host library, program or object with a ``.hip_fatbin`` section, or an
    offload bundle) with its selected device code objects instrumented by ``hooks_source``
    (None: each round-tripped), as the same kind of file (``luthier-opt LIB --hooks H
    --inline-hooks --emit-preamble -o OUT.so``; see docs/host-binaries.md), also written
    to ``output`` when given. ``offload_arch`` and ``kernels`` select what is instrumented
    (every device entry, every kernel by default); ``emit`` is ``"host"`` or ``"fatbin"``
    (by default, what ``library`` is). What is left out (targets not instrumented yet,
    instructions a hook skips) is appended to ``warnings``, one ``where: what`` line each.
    """
    from luthier.drivers.fatbin_output import instrument_container
    from luthier.drivers.opt_main import HIP_EXTENSIONS
    from luthier.frontend.codeobj.bundle import is_bundle

    if jobs < 1:
        raise LuthierError(f"jobs={jobs}: give at least 1")
    if isinstance(library, bytes):
        data, name = library, "<bytes>"
    else:
        name = os.fspath(library)
        if not os.path.isfile(name):
            raise LuthierError(f"{name}: no such file")
        data = Path(name).read_bytes()
    if emit not in (None, "host", "fatbin"):
        raise LuthierError(f"emit={emit!r}: give 'host' or 'fatbin'")
    loaded: dict[str | None, ModuleOp] = {}

    hip_file = os.fspath(hooks_source) if isinstance(hooks_source, str | os.PathLike) \
        and os.path.splitext(hooks_source)[1] in HIP_EXTENSIONS else None

    def hooks_for(processor: str) -> ModuleOp:
        """The hooks, a HIP file's compiled for ``processor``; each loaded once."""
        key = processor if hip_file is not None else None
        if key not in loaded:
            assert hooks_source is not None
            loaded[key] = load_hooks(hooks_source) if hip_file is None else \
                load_hooks_file(pipeline_context(), hip_file, processor)
        return loaded[key]

    def warn(where: str, line: str) -> None:
        if warnings is not None:
            warnings.append(f"{where}: {line}")

    try:
        out = instrument_container(
            data, name, emit or ("fatbin" if is_bundle(data) else "host"),
            hooks=hooks_for if hooks_source is not None else None, offload_arch=offload_arch,
            kernels=tuple(kernels), jobs=jobs, warn=warn)
    except (*_USER_ERRORS, ParseError, DiagnosticException, VerifyException) as error:
        raise _one_line(error) from None
    if output is not None:
        try:
            write_atomically(output, out, executable=not isinstance(library, bytes)
                             and bool(os.stat(name).st_mode & 0o111))
        except OSError as error:
            raise LuthierError(f"{os.fspath(output)}: cannot write: {error.strerror}") \
                from None
    return out


def run(code_object: CodeObjectSource | ModuleOp | CodeObjectOp, kernel: str,
        grid: int | tuple[int, ...], block: int | tuple[int, ...],
        args: Sequence[KernelArgument], *, offload_arch: str | None = None,
        **options: Any) -> RunResult:
    """Run ``kernel`` of ``code_object`` (a path, bytes, or lifted IR) in the emulator, as
    ``luthier-run`` does: ``grid`` workgroups of ``block`` work-items, ``args`` in the
    kernel's order (NumPy arrays are buffers, numbers by-value arguments). ``options`` are
    :func:`~luthier.emulator.api.run_kernel`'s (``dynamic_lds``, ``scratch_per_lane``,
    ``max_instructions``, ``trace``). The result holds the buffers after the run, the
    instructions each wave executed, and the globals
    (:meth:`~luthier.emulator.api.RunResult.global_values`)."""
    try:
        program: Any
        if isinstance(code_object, ModuleOp):
            found = [op for op in code_object.ops if isinstance(op, CodeObjectOp)]
            if len(found) != 1:
                raise UserError(f"the module holds {len(found)} amdgpu_mc.code_object ops, "
                                "not one")
            program = found[0]
        elif isinstance(code_object, CodeObjectOp):
            program = code_object
        else:
            program, _ = _read(code_object, offload_arch)
        return run_kernel(program, kernel, grid, block, list(args), **options)
    except _USER_ERRORS as error:
        raise _one_line(error) from None
