"""``luthier-batch``: instrument (or round-trip) every device code object of many inputs,
on every core or on a Dask cluster.

    luthier-batch librocblas.so app.hipfb kernels.co --hooks instr_count.mlir -o out/
    luthier-batch app.hipfb -o out/ --jobs 8                      # identity round trip
    luthier-batch lib.so --hooks h.mlir -o out/ --scheduler tcp://head:8786

Each device entry of each bundle (a host binary's fat binary holds one bundle per
translation unit) becomes ``OUTDIR/<input>.<index>.<target-id>.co``; a plain code object
keeps its file name. The outputs are those ``luthier-opt --lift --inline-hooks
--emit-preamble`` writes for each entry alone, whatever ``--jobs`` or ``--scheduler`` say.

With ``--same-kind`` each input is written back as the kind of file it is, under its own
name: a library or program with its fat binary's entries instrumented, a bundle re-packed
(what ``luthier-opt LIB -o OUT/LIB`` writes, docs/host-binaries.md), so that the output
directory replaces the library directory.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from io import StringIO
from pathlib import Path

from luthier.amdgpu_dialects.errors import report_internal_error
from luthier.amdgpu_dialects.target.target_id import EM_AMDGPU
from luthier.drivers.batch import (
    BatchError,
    Engine,
    Task,
    dask_engine,
    local_engine,
    run_batch,
    tasks_of,
)
from luthier.drivers.fatbin_output import (
    ContainerError,
    ContainerPlan,
    finish_container,
    plan_container,
)
from luthier.frontend.codeobj.bundle import is_bundle
from luthier.frontend.codeobj.elf import elf_machine
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.lowering.output import write_atomically


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="luthier-batch",
        description="instrument every device code object of the inputs, in parallel")
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="code objects, offload bundles or host binaries with a fat binary")
    parser.add_argument("-o", "--output-dir", required=True, metavar="DIR",
                        help="where the instrumented code objects go (created if missing)")
    parser.add_argument("--hooks", metavar="FILE",
                        help="the tool (.mlir, .py, .hip, .ll or .bc); without it, an identity "
                             "round trip")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, metavar="N",
                       help="worker processes on this machine (default: every core)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on a Dask distributed cluster (tcp://host:8786)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar on standard error")
    parser.add_argument("--same-kind", action="store_true",
                        help="write each input back as the same kind of file under its own "
                             "name (libraries and bundles with their device code "
                             "instrumented), not one code object per entry")
    return parser


def _hooks_text(path: str) -> str:
    """The hooks file as MLIR text (a Python file runs here, once)."""
    from xdsl.printer import Printer

    from luthier.drivers.opt_main import load_hooks
    from luthier.drivers.pipeline import pipeline_context

    stream = StringIO()
    Printer(stream=stream).print_op(load_hooks(pipeline_context(), path))
    return stream.getvalue()


def _write(directory: str, outputs: dict[str, bytes],
           executable: frozenset[str] = frozenset()) -> None:
    """Every output, each through a temporary file renamed into place (those named in
    ``executable`` with a linker output's permissions)."""
    os.makedirs(directory, exist_ok=True)
    for name, data in outputs.items():
        write_atomically(os.path.join(directory, name), data, executable=name in executable)


def _same_kind_tasks(inputs: Sequence[str], hooks: str | None,
                     warnings: list[tuple[str, str]]
                     ) -> tuple[list[Task], list[tuple[str, ContainerPlan | None]]]:
    """A task per device entry of every input, and per input its output name and, for a
    bundle or host binary, the plan that puts its entries back (None: a code object, whose
    one task's output is the file)."""
    from xdsl.parser import Parser

    from luthier.drivers.pipeline import pipeline_context

    module = Parser(pipeline_context(), hooks, "<hooks>").parse_module() \
        if hooks is not None else None
    tasks: list[Task] = []
    outputs: list[tuple[str, ContainerPlan | None]] = []
    used: set[str] = set()
    for index, path in enumerate(inputs):
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise CodeObjectError(path, f"cannot read: {error.strerror or error}") from None
        output = os.path.basename(path)
        if output in used:
            raise BatchError(f"{path}: another input has the name {output}; --same-kind "
                             "writes each under its own name")
        used.add(output)
        machine = elf_machine(data)
        if not is_bundle(data) and (machine is None or machine == EM_AMDGPU):
            tasks.append(Task(path, output, data, hooks))
            outputs.append((output, None))
            continue
        plan = plan_container(data, path, "fatbin" if is_bundle(data) else "host",
                              hooks=(lambda _: module) if module is not None else None,
                              warn=lambda where, line: warnings.append((where, line)),
                              prefix=f"{index}:")
        tasks.extend(plan.tasks)
        outputs.append((output, plan))
    return tasks, outputs


def run(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    jobs: int = args.jobs
    if jobs < 1:
        raise BatchError(f"--jobs {jobs}: give at least 1")
    hooks = _hooks_text(args.hooks) if args.hooks is not None else None
    warnings: list[tuple[str, str]] = []
    plans: list[tuple[str, ContainerPlan | None]] = []
    if args.same_kind:
        tasks, plans = _same_kind_tasks(args.inputs, hooks, warnings)
    else:
        tasks = tasks_of(args.inputs, hooks)
    if not tasks:
        raise BatchError(f"{', '.join(args.inputs)}: no device code object")
    engine: Engine = dask_engine(args.scheduler) if args.scheduler is not None \
        else local_engine(jobs)
    from luthier.drivers.progress import showing_progress
    from luthier.lowering.progress import stage

    with showing_progress(not args.no_progress, sys.stderr):
        running = stage("instrument" if hooks is not None else "round-trip", len(tasks),
                        "object")
        try:
            outputs = run_batch(tasks, engine, lambda _: running.advance(), warnings)
        finally:
            running.close()
    executable: frozenset[str] = frozenset()
    if args.same_kind:
        outputs = {name: outputs[name] if plan is None else finish_container(plan, outputs)
                   for name, plan in plans}
        executable = frozenset(name for (name, plan), path in zip(plans, args.inputs,
                                                                   strict=True)
                               if plan is not None and os.stat(path).st_mode & 0o111)
    _write(args.output_dir, outputs, executable)
    for where, line in warnings:
        print(f"luthier-batch: warning: {where}: {line}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from luthier.drivers.opt_main import UserError, printable
    from luthier.frontend.codeobj.errors import CodeObjectError

    try:
        run(argv)
    except (BatchError, UserError, CodeObjectError, ContainerError) as error:
        print(f"luthier-batch: error: {printable(str(error))}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"luthier-batch: error: {error.filename or ''}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    except Exception as error:  # a bug of ours: one line naming the input, not a traceback
        return report_internal_error("luthier-batch", argv, error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
