"""``luthier-batch``: instrument (or round-trip) every device code object of many inputs,
on every core or on a Dask cluster.

    luthier-batch librocblas.so app.hipfb kernels.co --hooks instr_count.mlir -o out/
    luthier-batch app.hipfb -o out/ --jobs 8                      # identity round trip
    luthier-batch lib.so --hooks h.mlir -o out/ --scheduler tcp://head:8786

Each device entry of each bundle (a host binary's fat binary holds one bundle per
translation unit) becomes ``OUTDIR/<input>.<index>.<target-id>.co``; a plain code object
keeps its file name. The outputs are those ``luthier-opt --lift --inline-hooks
--emit-preamble`` writes for each entry alone, whatever ``--jobs`` or ``--scheduler`` say.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from io import StringIO

from luthier.amdgpu_dialects.errors import report_internal_error
from luthier.drivers.batch import (
    BatchError,
    Engine,
    dask_engine,
    local_engine,
    run_batch,
    tasks_of,
)
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
    return parser


def _hooks_text(path: str) -> str:
    """The hooks file as MLIR text (a Python file runs here, once)."""
    from xdsl.printer import Printer

    from luthier.drivers.opt_main import load_hooks
    from luthier.drivers.pipeline import pipeline_context

    stream = StringIO()
    Printer(stream=stream).print_op(load_hooks(pipeline_context(), path))
    return stream.getvalue()


def _write(directory: str, outputs: dict[str, bytes]) -> None:
    """Every output, each through a temporary file renamed into place."""
    os.makedirs(directory, exist_ok=True)
    for name, data in outputs.items():
        write_atomically(os.path.join(directory, name), data)


def run(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    jobs: int = args.jobs
    if jobs < 1:
        raise BatchError(f"--jobs {jobs}: give at least 1")
    hooks = _hooks_text(args.hooks) if args.hooks is not None else None
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
        warnings: list[tuple[str, str]] = []
        try:
            outputs = run_batch(tasks, engine, lambda _: running.advance(), warnings)
        finally:
            running.close()
    _write(args.output_dir, outputs)
    for where, line in warnings:
        print(f"luthier-batch: warning: {where}: {line}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from luthier.drivers.opt_main import UserError, printable
    from luthier.frontend.codeobj.errors import CodeObjectError

    try:
        run(argv)
    except (BatchError, UserError, CodeObjectError) as error:
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
