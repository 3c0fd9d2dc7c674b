"""``luthier-opt``'s machinery: xdsl-opt with the luthier dialects, passes and frontends.

``luthier_opt.py`` is the entry point and documents the tool; it imports this module (and
with it xDSL) only when there is work to do, so ``luthier-opt --help`` starts fast.

A user's mistake (a corrupt file, an unknown kernel, IR that does not parse or verify) is
one line on stderr, ``luthier-opt: error: <input>: <reason>``, exit status 1, and no output
file: output is written to a temporary file that replaces ``-o`` only on success.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import runpy
import signal
import sys
import threading
import warnings
from collections.abc import Sequence
from io import BytesIO, StringIO
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.collector import collector_paused
from luthier.amdgpu_dialects.errors import LuthierError, report_internal_error
from luthier.drivers.progress import LiftProgress, showing_progress
from luthier.frontend.codeobj import CodeObject, ElfType, read_code_objects, read_elf
from luthier.frontend.codeobj.bundle import is_bundle
from luthier.frontend.codeobj.elf import elf_machine
from luthier.frontend.lift import LiftOptions, lift_code_object
from luthier.lowering.elf.relocatable import assemble_relocatable
from luthier.lowering.emit.errors import EmitError
from luthier.lowering.emit.object_spec import emit_code_object, emit_relocatable
from luthier.lowering.emit.text import EncodedFunction, kept_functions
from luthier.lowering.output import write_atomically
from luthier.lowering.timing import Span, Timings, recording, start_span, timed

DESCRIPTION = "luthier-opt: lift, instrument and emit AMDGPU code objects"
#: Input extensions read as binary code objects / bundles / host programs and lifted.
BINARY_EXTENSIONS = ("co", "hsaco", "o", "elf", "hipfb", "fatbin", "out", "so")
#: Input extensions read as LLVM-syntax AMDGPU assembly.
ASSEMBLY_EXTENSIONS = ("s", "S", "asm")
EMIT_FORMATS = ("mlir", "asm", "obj", "co", "fatbin", "host")
#: Output extension -> format, when --emit is not given.
EMIT_BY_EXTENSION = {"mlir": "mlir", "s": "asm", "o": "obj", "co": "co", "hsaco": "co",
                     "hipfb": "fatbin", "fatbin": "fatbin", "so": "host"}


class UserError(LuthierError):
    """A mistake in the input or the command line: reported in one line, exit status 1."""


class _Buffer(StringIO):
    """Output held until the run succeeds (xdsl-opt closes its stream when done)."""

    def close(self) -> None:
        pass


def _package_version() -> str:
    """This installation's luthier-xdsl version (``unknown`` when run from a bare tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("luthier-xdsl")
    except PackageNotFoundError:
        return "unknown"


class LuthierOptMain(xDSLOptMain):
    """xdsl-opt with the luthier dialects, passes and code-object frontends."""

    #: ``--version``: ours first, then the xDSL it runs on.
    version_format: ClassVar[str] = (f"luthier-opt from luthier-xdsl {_package_version()}, "
                                     "on xdsl {xdsl_version}")

    #: The ``--hooks`` file's module, parsed on first use.
    _hooks: ModuleOp | None = None
    #: The module the lifter made last, while nothing else has touched it.
    _lifted: ModuleOp | None = None
    #: Whether the module entering the pass pipeline was built here from verified parts
    #: (see :meth:`apply_passes`).
    _input_is_lifted: bool = False
    #: The functions that worker processes lowered, finalized and encoded (``--jobs``),
    #: to be emitted as they gave them; None when this process did it all.
    _encoded: dict[str, EncodedFunction] | None = None
    #: The code objects the input held, as read (``--report`` compares the output with them).
    _read: tuple[CodeObject, ...] = ()
    #: Warning lines, printed when the run succeeds (a failed run says one line, its error).
    _warnings: list[str] | None = None
    #: Whether the output may be run or loaded as the input could (a host binary written
    #: back from an executable one keeps its execute permission).
    _executable: bool = False

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        from luthier.amdgpu_dialects.dialects import LUTHIER_DIALECTS

        for name, factory in LUTHIER_DIALECTS.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        from luthier.passes.registry import LUTHIER_PASSES

        for name, factory in LUTHIER_PASSES.items():
            self.available_passes.setdefault(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        for extension in BINARY_EXTENSIONS:
            self.available_frontends[extension] = self._lift
        for extension in ASSEMBLY_EXTENSIONS:
            self.available_frontends[extension] = self._assemble_and_lift

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        group = arg_parser.add_argument_group("luthier")
        group.add_argument("--lift", action="store_true",
                           help="lift the input code object into amdgpu_mc IR (implied for "
                                "code object, bundle and fat binary inputs)")
        group.add_argument("--kernel", action="append", default=[], metavar="NAME",
                           help="lift only this kernel (repeatable); with --emit=host or "
                                "fatbin, instrument only this kernel")
        group.add_argument("--offload-arch", metavar="ARCH",
                           help="the bundle entry to lift (gfx90a, gfx942:xnack-, ...); with "
                                "--emit=host or fatbin, the entries to instrument (default: "
                                "every one)")
        group.add_argument("--emit", choices=EMIT_FORMATS, default=None,
                           help="output format (default: from the -o extension, else mlir); "
                                "host and fatbin write a host binary or bundle back with its "
                                "device code instrumented (.so, .hipfb; docs/host-binaries.md)")
        group.add_argument("--jobs", "-j", type=_jobs, default=None, metavar="N",
                           help="worker processes that instrument the functions of a "
                                "code object written with --emit-preamble, each taking "
                                "functions that share no call (default: every core, at most "
                                "8, for objects of 4,000 instructions or more); the output "
                                "bytes do not depend on it")
        group.add_argument("--no-progress", action="store_true",
                           help="no progress bar on stderr")
        group.add_argument("--strict", action="store_true",
                           help="make each warning about the input or what the output "
                                "leaves out of it (sections, symbols, debug information "
                                "whose addresses moved) an error: exit status 1, no output")
        group.add_argument("--list", action="store_true",
                           help="list the code objects a file holds (bundle entries with "
                                "their --offload-arch IDs, targets, kernels) and stop")
        group.add_argument("--hooks", metavar="FILE",
                           help="add a tool's globals, hooks and insertions to the input "
                                "before the passes: MLIR text (.mlir), a Python file "
                                "(.py) defining a module-level `hooks` (a HookModule or "
                                "a ModuleOp), or HIP (.hip, compiled by clang-19 for the "
                                "input's target; or its LLVM IR, .ll/.bc; see "
                                "docs/hip-hooks.md); a Python file is run, with your "
                                "privileges, as any script is: use only hooks you trust "
                                "(docs/security.md)")
        group.add_argument("--inline-hooks", action="store_true",
                           help="lower the hooks into the code before the -p passes: "
                                "insert, inline, select, allocate into dead registers and "
                                "verify (the lower-hooks pass)")
        group.add_argument("--emit-preamble", action="store_true",
                           help="after the passes, make the instrumented code emittable: "
                                "kernel preambles for the state payloads need, payloads "
                                "spliced into the code, the tool's globals exported, "
                                "descriptors and metadata updated, branches relaxed (the "
                                "finalize-instrumentation pass)")
        group.add_argument("--report", action="store_true",
                           help="after the passes, print the static cost of every "
                                "instrumentation point and kernel to stderr (registers, "
                                "spills, instructions added, budget and occupancy); with "
                                "--emit-preamble also each kernel's code bytes, register "
                                "counts, scratch and waves per SIMD before and after")
        group.add_argument("--json", action="store_true",
                           help="with --report, the report as one JSON object on stderr "
                                "instead of tables")
        group.add_argument("--plot", metavar="FILE",
                           help="with --report and --emit-preamble, also draw each "
                                "kernel's code bytes, registers and waves per SIMD before "
                                "and after into FILE (.png, .svg or .pdf; needs matplotlib: "
                                "the [plot] extra)")

    # -- frontends -----------------------------------------------------------------------

    def _assemble_and_lift(self, stream: IO[bytes]) -> ModuleOp:
        name = self.get_input_name()
        try:
            text = stream.read().decode()
        except UnicodeDecodeError as error:
            raise UserError(f"{name}: not assembly text ({error.reason} at byte "
                            f"{error.start})") from None
        return self._lift_bytes(assemble_relocatable(text, name))

    def _lift(self, stream: IO[bytes]) -> ModuleOp:
        return self._lift_bytes(stream.read())

    def _lift_bytes(self, data: bytes) -> ModuleOp:
        name = self.get_input_name()
        with timed("read"):
            code_objects = read_code_objects(data, offload_arch=self.args.offload_arch,
                                             name=name)
        self._read = tuple(code_objects)
        progress = LiftProgress(f"lift {os.path.basename(name)}")
        keep_bytes = self._writes_code_back()
        options = LiftOptions(kernels=tuple(self.args.kernel), progress=progress.update,
                              freeze_result=True, keep_bytes=keep_bytes)
        modules: list[Operation] = []
        try:
            for code_object in code_objects:
                with timed("lift"):
                    result = lift_code_object(code_object, options)
                for warning in result.warnings:
                    self._warn(code_object.name, warning)
                modules.append(result.module)
                if keep_bytes:
                    self._encoded = (self._encoded or {}) | kept_functions(result.kept)
        finally:
            progress.close()
        self._lifted = ModuleOp(modules)
        return self._lifted

    def _writes_code_back(self) -> bool:
        """Whether this run writes the lifted code back as it is: a code object or a
        relocatable out, and nothing on the way that reads a function's body (no pass, no
        hooks, no report, no IR printed). The lifter then keeps the bytes of each function
        that re-encodes to them instead of building its ops
        (:attr:`~luthier.frontend.lift.LiftOptions.keep_bytes`): the same output, without
        the ops no one reads."""
        args = self.args
        return (self.emit_format() in ("co", "obj") and not args.passes
                and args.hooks is None
                and not (args.inline_hooks or args.emit_preamble or args.report
                         or args.print_between_passes or args.verify_diagnostics))

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input and the frontend its kind names. ``-`` is standard input, as no file
        is; there a code object, bundle or host binary is told from text by its first
        bytes (a pipe has no extension to say so)."""
        if self.args.input_file == "-":
            self.args.input_file = None
        if self.args.input_file is not None:
            return super().get_input_stream()
        data = sys.stdin.buffer.read()
        return BytesIO(data), "co" if _is_binary(data) else "mlir"

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        name = self.args.input_file
        if name is not None and name != "-" and not os.path.isfile(name):
            raise UserError(f"{name}: no such file")
        try:
            return super().prepare_input()
        except ValueError as error:
            raise UserError(f"{self.get_input_name()}: {error}") from None

    def parse_chunk(self, chunk: IO[bytes], file_extension: str,
                    start_offset: int = 0) -> ModuleOp | None:
        """xdsl-opt's parsing, where text that is not UTF-8 is one line naming the input
        (xDSL decodes it without a check)."""
        try:
            if file_extension in self.available_frontends and file_extension == "mlir":
                with timed("parse"):
                    return super().parse_chunk(chunk, file_extension, start_offset)
            return super().parse_chunk(chunk, file_extension, start_offset)
        except UnicodeDecodeError as error:
            raise UserError(f"{self.get_input_name()}: not UTF-8 text ({error.reason} at "
                            f"byte {error.start}), nor a code object") from None
        except VerifyException as error:  # an op's declared format checks types as it parses
            if self.args.verify_diagnostics:  # xdsl-opt prints it as the test expects
                raise
            raise UserError(f"{self.get_input_name()}: {one_line(error)}") from None

    def setup_pipeline(self) -> None:
        """xdsl-opt's pipeline, whose callback verifies the module before the first pass
        and after each one, minus the first verification when the module is a lifter's
        output that nothing has changed (the rule is in :meth:`apply_passes`). An unknown
        pass or a bad option of one is a :class:`UserError` (xDSL raises ``ValueError``)."""
        try:
            super().setup_pipeline()
        except ValueError as error:
            raise UserError(f"-p {self.args.passes}: {one_line(error)}") from None
        except ArgSpecParseError as error:  # a BaseException: the text's last line says why
            lines = [line.strip() for line in str(error).splitlines() if line.strip()]
            column = lines[1].rsplit(":", 1)[-1] if len(lines) > 1 else "?"
            raise UserError(f"-p {self.args.passes}: column {column}: {lines[-1]}") from None
        verify_between_passes = self.pipeline.callback
        if verify_between_passes is None:
            return

        running: list[Span] = []

        def callback(previous: ModulePass | None, module: ModuleOp,
                     following: ModulePass | None) -> None:
            if running:
                running.pop().stop()
            # xDSL's own --time-passes lines go to standard output, among the IR: ours
            # are a table on standard error (see run).
            time_passes, self.args.time_passes = self.args.time_passes, False
            disable_verify = self.args.disable_verify
            if previous is None and self._input_is_lifted:
                self.args.disable_verify = True
            try:
                with timed("verify"):
                    verify_between_passes(previous, module, following)
            except VerifyException as error:
                # Before the first pass it is the input that does not verify: name it,
                # as a parse error does (--verify-diagnostics prints xDSL's own text).
                if previous is not None or self.args.verify_diagnostics:
                    raise
                raise UserError(f"{self.get_input_name()}: {one_line(error)}") from None
            finally:
                self.args.disable_verify = disable_verify
                self.args.time_passes = time_passes
            if following is not None:
                span = start_span(following.name)
                if span is not None:
                    running.append(span)

        self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def apply_passes(self, prog: ModuleOp) -> None:
        """The passes, after merging ``--hooks`` in: every input chunk (and every
        ``--emit`` format) gets the tool's ops, parsed once.

        What is verified: xdsl-opt verifies the whole module before the first pass (even
        when there is none) and after each pass. The first is skipped when the module was
        built here from verified parts: the lifter's output (every op made from a decoded
        instruction of the target's own tables, valid by construction; verifying it cost
        half of an identity round trip), a hooks file (verified when loaded) and the hook
        templates' lowering (each lowered shape verified once, each allocated body's
        operands checked; verifying the 200k ops of rocRAND instrumented at every
        instruction again took a fifth of the run). Text input (``.mlir``), lowering by
        the passes and every pass that runs are still verified as before."""
        built_here = prog is self._lifted
        self._lifted = None
        if self.args.hooks is not None:
            with timed("merge-hooks"):
                if self._hooks is None:
                    self._hooks = load_hooks(self.ctx, self.args.hooks, _processor_of(prog))
                merge_hooks(prog, self._hooks, self.get_input_name(), self.args.hooks)
        # A lifted module holds no tool ops until --hooks adds them (and then the instr
        # dialect loads: an identity round trip does without it).
        if self.args.hooks is not None or not built_here or self.args.inline_hooks:
            from luthier.amdgpu_dialects.instr.ops import InsertOp

            if any(isinstance(op, InsertOp) for block in prog.body.blocks
                   for op in block.ops) and self._inserts():
                self._warn_insertion_remarks(prog)
        in_workers = False
        if self.args.inline_hooks:
            from luthier.amdgpu_dialects.instr.ops import InsertOp, PayloadOp

            if not any(isinstance(op, InsertOp) for op in prog.ops) \
                    and not any(isinstance(op, PayloadOp) for op in prog.walk()):
                raise UserError(f"{self.get_input_name()}: --inline-hooks has nothing to "
                                "lower: no instr.insert (give the tool with --hooks FILE) "
                                "and no instr.payload")
            in_workers = self._instrument_in_workers(prog)
            if not in_workers:
                from luthier.passes.instrument.pipeline import lower_hooks

                built_here &= lower_hooks(self.ctx, prog, packed=self._packs())
        self._input_is_lifted = built_here
        super().apply_passes(prog)
        report: dict[str, object] = {}
        if self.args.report:
            with timed("report"):
                report = self._report(prog)
        if self.args.emit_preamble and not in_workers:
            from luthier.passes.layout.footprint import (
                footprint_data,
                footprints,
                format_footprints,
            )
            from luthier.passes.layout.pipeline import FinalizeInstrumentationPass

            before = footprints(prog) if self.args.report else []
            FinalizeInstrumentationPass().apply(self.ctx, prog)
            after = footprints(prog) if self.args.report else []
            if self.args.plot is not None:
                from luthier.lowering.figure import write_figure
                from luthier.passes.layout.footprint import footprint_panels

                with timed("plot"):
                    write_figure(self.args.plot, footprint_panels(before, after))
            if self.args.report and self.args.json:
                report["kernels_after_layout"] = footprint_data(before, after)
            elif self.args.report:
                sys.stderr.write("".join(line + "\n" for line in format_footprints(
                    before, after)))
        if self.args.report and self.args.json:
            sys.stderr.write(json.dumps(report) + "\n")
            sys.stderr.flush()

    def _inserts(self) -> bool:
        """Whether this run places the tool's payloads: ``--inline-hooks``, or
        ``insert-hooks`` or ``lower-hooks`` among the ``-p`` passes."""
        return self.args.inline_hooks or any(
            stage.name in ("insert-hooks", "lower-hooks") for stage in self.pipeline.passes)

    def _warn_insertion_remarks(self, prog: ModuleOp) -> None:
        """What the insertions leave out (the instructions ``skip`` insertions match, per
        function; nothing instrumented at all), counted before anything is inserted and
        warned about like everything else not carried through (after a successful run;
        errors under ``--strict``), in the lifter's style: a tool says what it did not see
        rather than refusing the kernel or keeping silent. Here, on the whole module, and
        not in ``insert-hooks``: a pass has no channel for warnings, and with ``--jobs`` each
        worker sees a share of the functions."""
        from luthier.passes.instrument.insert_hooks import insertion_remarks

        for remark in insertion_remarks(prog):
            self._warn(self.get_input_name(), remark)

    def _report(self, prog: ModuleOp) -> dict[str, object]:
        """``--report``: the tables on stderr, or (``--json``) their data, per code
        object, for one JSON object written once the run is done."""
        from luthier.passes.instrument.report import (
            PrintInstrumentationReportPass,
            module_reports,
            report_data,
        )

        if not self.args.json:
            PrintInstrumentationReportPass().apply(self.ctx, prog)
            return {}
        return {"code_objects": [{"processor": code_object.processor,
                                  **report_data(points, kernels)}
                                 for code_object, points, kernels in module_reports(prog)]}

    def _refuse_no_ops(self, emit: str) -> None:
        """Flags that would write code without doing what they ask, refused before any
        work (a ``-p`` pipeline may lower and finalize by itself: then they stand)."""
        args = self.args
        if args.json and not args.report:
            raise UserError("--json without --report: it chooses the report's form (add "
                            "--report)")
        if args.plot is not None:
            if not (args.report and args.emit_preamble):
                raise UserError("--plot draws the report of --report --emit-preamble (add "
                                "them)")
            from luthier.lowering.figure import check_path

            check_path(args.plot)
        if args.passes or emit == "mlir":
            return
        if args.hooks is not None and not args.inline_hooks:
            raise UserError("--hooks without --inline-hooks: the hooks would not be lowered "
                            f"and the --emit={emit} output would be the input's code "
                            "unchanged; add --inline-hooks --emit-preamble")
        if args.inline_hooks and not args.emit_preamble:
            raise UserError("--inline-hooks without --emit-preamble: the lowered hooks stay "
                            "beside the code (--emit-preamble splices them in and sets up "
                            f"their state), so --emit={emit} cannot write them; add "
                            "--emit-preamble")

    def _instrument_in_workers(self, prog: ModuleOp) -> bool:
        """Lower and finalize the hooks in worker processes, a share of the functions each
        (see :mod:`~luthier.drivers.function_workers`), when packed code is emitted right
        after (:meth:`_packs`), ``--jobs`` allows more than one and the code object splits;
        whether it was done."""
        jobs = self.args.jobs if self.args.jobs is not None else min(_cores(), DEFAULT_JOBS)
        if jobs < 2 or not self._packs():
            return False
        from luthier.drivers.function_workers import (
            MIN_INSTRUCTIONS,
            SplitError,
            instrument_in_workers,
            plan_split,
        )

        # Asked for, workers split any object; by default, one worth the start of workers.
        with timed("function-groups"):
            plan = plan_split(prog, jobs, 0 if self.args.jobs is not None else MIN_INSTRUCTIONS)
        if plan is None:
            return False
        try:
            with timed(f"instrument in {plan.workers} workers"):
                self._encoded = instrument_in_workers(self.ctx, prog, plan,
                                                      self.get_input_name())
        except SplitError as error:
            raise UserError(str(error)) from None
        return True

    def _packs(self) -> bool:
        """Whether payload code may stay packed (shared by the points that allocated
        alike) from lowering to emission: only the finalizing passes and the encoder see
        the module in between when it is written as an object, with no ``-p`` pass, no
        printing between passes and no report."""
        args = self.args
        return (args.emit_preamble and not args.passes and not args.report
                and not args.print_between_passes and self.emit_format() in ("co", "obj"))

    def prepare_output(self) -> IO[str]:
        self._buffer = _Buffer()
        return self._buffer

    def emit_format(self) -> str:
        """``--emit``, else what ``-o``'s extension names (IR without one); an extension
        that names nothing this tool writes (``.hipfb``, ``.bin``) is a :class:`UserError`
        rather than IR text in a file of that name (a FIFO or a device is written as asked:
        its name says nothing of its contents)."""
        if self.args.emit is not None:
            return self.args.emit
        path = self.args.output_file
        extension = os.path.splitext(path)[1].lstrip(".") if path else ""
        special = path is not None and os.path.exists(path) and not os.path.isfile(path)
        if extension and extension not in EMIT_BY_EXTENSION and not special:
            known = ", ".join(f".{name}" for name in EMIT_BY_EXTENSION)
            raise UserError(f"-o {path}: luthier-opt does not write .{extension} files; it "
                            f"writes {known} (or choose with --emit)")
        return EMIT_BY_EXTENSION.get(extension, "mlir")

    def run(self) -> None:
        timings = Timings() if self.args.time_passes else None
        with showing_progress(not self.args.no_progress, sys.stderr), recording(timings):
            self._run()
        if timings is not None:
            sys.stderr.write("".join(line + "\n" for line in timings.report()))

    def output_resulting_program(self, prog: ModuleOp) -> str:
        with timed("print"):
            return super().output_resulting_program(prog)

    def _run(self) -> None:
        if self.args.list:
            self._list()
            return
        emit = self.emit_format()
        self._refuse_no_ops(emit)
        if emit in ("fatbin", "host"):
            self._write_container(emit)
            return
        if emit == "mlir":
            super().run()
            self._commit(self._buffer.getvalue().encode())
            return
        chunks, extension = self.prepare_input()
        if len(chunks) != 1:
            raise UserError(f"--emit={emit} writes one object; --split-input-file gives "
                            f"{len(chunks)} inputs")
        stream, _ = chunks[0]
        module = self.parse_chunk(stream, extension)
        stream.close()
        if module is None:
            raise UserError(f"{self.get_input_name()}: nothing to emit")
        # One pause of the cyclic collector from the passes to the bytes (each stage pauses
        # it too; resuming between them cost a full collection each), and what is left is
        # frozen: the process ends after writing, and exit would walk it all again.
        warnings: list[str] = []
        with collector_paused(freeze=True):
            self.apply_passes(module)
            try:
                with timed("emit"):
                    if emit == "asm":
                        from luthier.lowering.emit.asm import emit_assembly

                        data = emit_assembly(module, warnings=warnings).encode()
                    elif emit == "co":
                        data = emit_code_object(module, self._encoded, warnings=warnings)
                    else:
                        data = emit_relocatable(module, self._encoded, warnings=warnings)
            except EmitError as error:
                raise UserError(f"{self.get_input_name()}: {error}") from None
        for warning in warnings:
            self._warn(self.get_input_name(), warning)
        if emit == "co" and self.args.report and not self.args.json and self.args.hooks is None:
            self._report_file_differences(data)
        if emit != "asm" and self.args.output_file in (None, "-") and sys.stdout.isatty():
            raise UserError(f"--emit={emit} output is binary: give -o FILE")
        self._commit(data)

    def _write_container(self, emit: str) -> None:
        """``--emit=fatbin``/``host``: the input bundle or host binary written back with
        its selected device code objects instrumented, each as ``-o X.co`` would write it
        (:mod:`~luthier.drivers.fatbin_output`)."""
        from luthier.drivers.fatbin_output import instrument_container

        args = self.args
        for given, flag in ((args.passes, "-p"), (args.report, "--report"),
                            (args.print_between_passes, "--print-between-passes"),
                            (args.split_input_file, "--split-input-file")):
            if given:
                raise UserError(f"--emit={emit} instruments each device code object with "
                                f"--inline-hooks --emit-preamble alone; {flag} does not "
                                "apply (write one code object with -o X.co for it)")
        name = self.get_input_name()
        if args.input_file in (None, "-"):
            data = sys.stdin.buffer.read()
        elif not os.path.isfile(args.input_file):
            raise UserError(f"{args.input_file}: no such file")
        else:
            with open(args.input_file, "rb") as stream:
                data = stream.read()
            self._executable = emit == "host" and bool(os.stat(args.input_file).st_mode & 0o111)
        hooks_by_processor: dict[str | None, ModuleOp] = {}

        def hooks(processor: str) -> ModuleOp:
            key = processor if os.path.splitext(args.hooks)[1] in HIP_EXTENSIONS else None
            if key not in hooks_by_processor:
                hooks_by_processor[key] = load_hooks(self.ctx, args.hooks, processor)
            return hooks_by_processor[key]

        jobs = args.jobs if args.jobs is not None else min(_cores(), DEFAULT_JOBS)
        try:
            with timed("instrument code objects"):
                output = instrument_container(
                    data, name, emit, hooks=hooks if args.hooks is not None else None,
                    offload_arch=args.offload_arch, kernels=tuple(args.kernel), jobs=jobs,
                    warn=self._warn)
        except LuthierError as error:
            raise UserError(str(error)) from None
        if args.output_file in (None, "-") and sys.stdout.isatty():
            raise UserError(f"--emit={emit} output is binary: give -o FILE")
        self._commit(output)

    def _report_file_differences(self, data: bytes) -> None:
        """``--report`` of an identity round trip (no ``--hooks``) of a linked code object:
        each way the written file differs from the input, one line each (sections,
        segments, symbols), so that what a relink could not give back byte for byte is
        named."""
        from luthier.frontend.codeobj.compare import file_differences

        if len(self._read) != 1 or self._read[0].elf_type is not ElfType.ET_DYN:
            return
        differences = file_differences(self._read[0], read_elf(data, "<output>"))
        lines = [f"file: {len(differences) or 'no'} differences from the input"]
        lines += [f"  {difference}" for difference in differences]
        sys.stderr.write("".join(line + "\n" for line in lines))

    def _warn(self, where: str, warning: str) -> None:
        """One warning line on stderr once the run has succeeded; with ``--strict``, the
        error that ends the run before any output is written."""
        if self.args.strict:
            raise UserError(f"{where}: {warning} (--strict)")
        if self._warnings is None:
            self._warnings = []
        self._warnings.append(f"luthier-opt: warning: {where}: {warning}")

    def _list(self) -> None:
        if self.args.input_file == "-":
            self.args.input_file = None
        name = self.get_input_name()
        if self.args.input_file is None:
            data = sys.stdin.buffer.read()
        else:
            if not os.path.isfile(self.args.input_file):
                raise UserError(f"{self.args.input_file}: no such file")
            with open(self.args.input_file, "rb") as stream:
                data = stream.read()
        from luthier.drivers.listing import list_contents

        self._commit("".join(line + "\n" for line in list_contents(data, name)).encode())

    def _commit(self, data: bytes) -> None:
        if self._warnings:
            sys.stderr.write("".join(line + "\n" for line in self._warnings))
            sys.stderr.flush()
        with timed("write"):
            self._write(data)

    def _write(self, data: bytes) -> None:
        path = self.args.output_file
        if path is None or path == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            return
        write_atomically(path, data, executable=self._executable)


#: Hook files read through clang-19's LLVM IR (:mod:`luthier.frontend.hip`).
HIP_EXTENSIONS = (".hip", ".ll", ".bc")


def _is_binary(data: bytes) -> bool:
    """A code object, a host binary or an offload bundle (compressed or not), by its first
    bytes."""
    return elf_machine(data) is not None or is_bundle(data)


#: The most workers ``--jobs`` starts by default: each is a fork of a process holding the
#: lifted object and ends up with its own copy of much of it (rocRAND: 272 MB a worker),
#: so a many-core machine would trade its memory for little more speed.
DEFAULT_JOBS = 8


def _cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


def _jobs(text: str) -> int:
    """``--jobs``: a positive count."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of jobs, got {text!r}")
    return value


def _processor_of(module: ModuleOp) -> str | None:
    """The target of the first code object in ``module`` (what HIP hooks compile for)."""
    for op in module.ops:
        if isinstance(op, CodeObjectOp):
            return op.processor
    return None


def load_hooks(ctx: Context, path: str, processor: str | None = None) -> ModuleOp:
    """The ``instr`` module of a hooks file: parsed MLIR, what a Python file leaves in its
    module-level ``hooks``, or HIP (and its LLVM IR) imported, compiled for ``processor``
    (:mod:`luthier.frontend.hip`). Every mistake is a :class:`UserError` naming
    ``path``."""
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file (--hooks)")
    extension = os.path.splitext(path)[1]
    if extension == ".mlir":
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        parser = Parser(ctx, text, path)
        try:
            module = parser.parse_module()
        except ParseError as error:
            raise UserError(one_line(error)) from None
        except VerifyException as error:  # an op's declared format checks types as it parses
            raise UserError(f"{path}:{_line_column(text, parser.pos)}: {one_line(error)}") \
                from None
    elif extension == ".py":
        module = _run_hooks_script(path)
    elif extension in HIP_EXTENSIONS:
        from luthier.frontend.hip import load_hip_hooks

        try:
            module = load_hip_hooks(ctx, path, processor)
        except LuthierError as error:
            raise UserError(str(error)) from None
    else:
        raise UserError(f"{path}: --hooks takes a .mlir, .py, .hip, .ll or .bc file")
    from luthier.amdgpu_dialects.instr.ops import HOOK_FILE_OPS, HookOp
    from luthier.amdgpu_dialects.instr.ssa import check_defined_before_use

    try:
        for op in module.ops:
            if isinstance(op, HookOp):
                check_defined_before_use(op, f"hook @{op.sym_name.data}")
        module.verify()
    except (VerifyException, DiagnosticException) as error:
        raise UserError(f"{path}: {one_line(error)}") from None
    for op in module.ops:
        if not isinstance(op, HOOK_FILE_OPS):
            raise UserError(f"{path}: a hooks file holds instr.global, instr.hook and "
                            f"instr.insert ops, not {op.name}")
    return module


#: How long a Python hooks file may run to build its hooks (seconds; the environment
#: variable ``LUTHIER_HOOKS_TIMEOUT`` changes it, 0 for no limit): one that never returns
#: would hang the tool.
HOOKS_TIMEOUT = 60.0


class _HooksTimeout(BaseException):
    """Raised into a Python hooks file that ran past :data:`HOOKS_TIMEOUT` (a
    ``BaseException``, so that the file's own ``except Exception`` does not swallow it)."""


def _hooks_timeout() -> float:
    text = os.environ.get("LUTHIER_HOOKS_TIMEOUT")
    if text is None:
        return HOOKS_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"LUTHIER_HOOKS_TIMEOUT={text}: give a number of seconds") from None
    if value < 0:
        raise UserError(f"LUTHIER_HOOKS_TIMEOUT={text}: give a number of seconds")
    return value


def _run_hooks_script(path: str) -> ModuleOp:
    """Run a Python hooks file and take its ``hooks``; what it raises is one line, and so
    is running past :data:`HOOKS_TIMEOUT` (measured on the main thread with a timer
    signal; elsewhere the file runs without a limit)."""
    from luthier.frontend.hooks import HookModule

    limit = _hooks_timeout()
    timed = limit > 0 and threading.current_thread() is threading.main_thread()

    def expire(signum: int, frame: object) -> None:
        raise _HooksTimeout

    previous = signal.signal(signal.SIGALRM, expire) if timed else None
    if timed:
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        # Python's compile-time SyntaxWarnings are kept back: a file that fails is one line
        # (its error), a file that runs gets them as warnings of ours, one line each.
        with warnings.catch_warnings(record=True) as compiled:
            warnings.simplefilter("always", SyntaxWarning)
            namespace = runpy.run_path(path, run_name="__luthier_hooks__")
        for warning in compiled:
            if issubclass(warning.category, SyntaxWarning):
                print(f"luthier-opt: warning: {path}:{warning.lineno}: {warning.message}",
                      file=sys.stderr)
            else:
                warnings.showwarning(warning.message, warning.category, warning.filename,
                                     warning.lineno)
        hooks = namespace.get("hooks")
        module = hooks.module if isinstance(hooks, HookModule) else hooks
    except _HooksTimeout:
        raise UserError(f"{path}: did not finish building its hooks in {limit:g} s "
                        "(LUTHIER_HOOKS_TIMEOUT sets the limit)") from None
    except (Exception, SystemExit, GeneratorExit) as error:  # the user's code: one line
        message = str(error).strip().splitlines()
        detail = f": {message[0]}" if message else ""
        raise UserError(f"{path}: {type(error).__name__}{detail}") from None
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if not isinstance(module, ModuleOp):
        found = "nothing" if hooks is None else type(hooks).__name__
        raise UserError(f"{path}: defines no module-level `hooks` (a HookModule or a "
                        f"ModuleOp); found {found}")
    return module


def merge_hooks(module: ModuleOp, hooks: ModuleOp, input_name: str, path: str) -> None:
    """Append copies of the hooks file's ops to ``module``; a global or hook name both
    define is an error (which one ``@name`` means would be a guess)."""
    from luthier.amdgpu_dialects.instr.ops import GlobalOp, HookOp

    taken = {op.sym_name.data for op in module.ops if isinstance(op, GlobalOp | HookOp)}
    for op in hooks.ops:
        if isinstance(op, GlobalOp | HookOp) and op.sym_name.data in taken:
            raise UserError(f"{path}: @{op.sym_name.data} is defined both here and in "
                            f"{input_name}")
    for op in hooks.ops:
        module.body.block.add_op(op.clone())


def printable(text: str) -> str:
    """Names from a corrupt file can hold control characters: show them escaped, so the
    diagnostic stays one readable line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _line_column(text: str, position: int) -> str:
    """``line:column`` (both from 1) of the last character before ``position`` that is not
    blank: where the op a parser has just read ends (it has moved on to the next token)."""
    position = max(len(text[:position].rstrip()) - 1, 0)
    line = text.count("\n", 0, position) + 1
    return f"{line}:{position - (text.rfind(chr(10), 0, position) + 1) + 1}"


def one_line(error: BaseException) -> str:
    """A parse, verification or pass error as the one line the user sees."""
    text = str(error).strip()
    if isinstance(error, ParseError):
        location = text.splitlines()[0].split(" ", 1)[0] if text else "<input>"
        return f"{location}: {error.msg}"
    if isinstance(error, DiagnosticException | VerifyException):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[0] if lines else type(error).__name__
    return text.splitlines()[0] if text else type(error).__name__


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``luthier-opt`` on ``argv``; the exit status."""
    try:
        LuthierOptMain(description=DESCRIPTION, args=argv).run()
    except LuthierError as error:  # every layer's user errors (UserError among them)
        print(f"luthier-opt: error: {printable(str(error))}", file=sys.stderr)
        return 1
    except (ParseError, DiagnosticException, VerifyException) as error:
        print(f"luthier-opt: error: {printable(one_line(error))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        sys.stderr.close()
        return 1
    except KeyboardInterrupt:  # ^C: no output file was written (it is renamed in at the end)
        print("luthier-opt: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"luthier-opt: error: {error.filename or ''}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    except Exception as error:  # a bug of ours: one line naming the input, not a traceback
        return report_internal_error("luthier-opt", argv, error)
    return 0
