"""Record what ``luthier-opt`` writes for every corpus input, and check it stays the same.

A refactoring or an optimisation must not change output bytes unless it says so. This script
runs the user's commands over the corpus (every code object, relocatable, fat binary and
assembly file we ship) in every output format, and every example hook through the whole
instrumentation pipeline, and records for each case the SHA-256 and size of the output, or
the one-line error and the exit status when the command refuses the input:

    python scripts/record_outputs.py --record     # rewrite test/corpus/recorded_outputs.json
    python scripts/record_outputs.py --check      # compare; exit 1 on any difference
    python scripts/record_outputs.py --check --keep build/outputs   # keep the files to diff

Cases run in worker processes (``--jobs``, default: every core), each calling
``luthier-opt``'s ``main`` in-process, so the interpreter starts once per worker, not once
per case. ``--jobs 1 --opt-jobs 2`` runs them here, instrumenting with
``luthier-opt --jobs 2``: every code object's functions split between two workers, which
must give the recorded bytes too. ``test/unit/test_recorded_outputs.py`` runs the check.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import multiprocessing
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RECORD = REPO / "test" / "corpus" / "recorded_outputs.json"

#: Code objects and the other binary inputs, relative to the repository.
BINARY_GLOBS = (
    "examples/sample/*.co",
    "test/corpus/kernels/*.co",
    "test/corpus/kernels/*.o",
    "test/corpus/kernels/*.hipfb",
    "test/corpus/bench/kernels.*.co",
)
# The branchy kernels of test/corpus/bench/ are relaxation benchmarks made after the record
# (instrumenting them takes minutes); bench_relaxation.py and the relaxation tests use them.
ASSEMBLY_GLOBS = ("test/corpus/kernels/*.s",)
HOOK_GLOBS = ("examples/hooks/*.mlir", "examples/hooks/*.py", "examples/hooks/*.hip")
#: Output formats of an unchanged input (the -o extension picks the format).
PLAIN_FORMATS = ("co", "s", "o", "mlir")
INSTRUMENT_FLAGS = ("--lift", "--inline-hooks", "--emit-preamble")


@dataclass(frozen=True)
class Case:
    """One command: its key in the record and luthier-opt's arguments (the output path is
    added when it runs)."""

    key: str
    args: tuple[str, ...]
    extension: str


#: The targets selected from a bundle (test/corpus/kernels/build.sh's TARGETS), each where the
#: bundle holds it (elementwise.features.hipfb has no gfx908 entry).
BUNDLE_TARGETS = ("gfx908", "gfx90a", "gfx942")


def _bundle_targets(source: str) -> tuple[str, ...]:
    from luthier.frontend.codeobj.reader import read_bundle

    held = {entry.target_id.split(":")[0] for entry in read_bundle(REPO / source).device_entries}
    return tuple(target for target in BUNDLE_TARGETS if target in held)


def _inputs(globs: tuple[str, ...]) -> list[str]:
    return sorted({path.relative_to(REPO).as_posix()
                   for pattern in globs for path in REPO.glob(pattern)})


def cases(opt_jobs: int | None = None) -> list[Case]:
    """Every case, in a stable order; with ``opt_jobs``, instrumentation runs with
    ``luthier-opt --jobs opt_jobs`` (the same key: the bytes must not depend on it)."""
    jobs = ("--jobs", str(opt_jobs)) if opt_jobs is not None else ()
    found: list[Case] = []
    hooks = [path for path in _inputs(HOOK_GLOBS) if not Path(path).name.startswith("_")]
    for source in _inputs(BINARY_GLOBS) + _inputs(ASSEMBLY_GLOBS):
        bundle = source.endswith(".hipfb")
        arches = _bundle_targets(source) if bundle else ("",)
        for arch in arches:
            select = (f"--offload-arch={arch}",) if arch else ()
            name = f"{source}@{arch}" if arch else source
            for extension in PLAIN_FORMATS:
                found.append(Case(f"{name} -> .{extension}",
                                  ("--lift", source, *select, "--no-progress"), extension))
            if source.endswith((".co", ".s")) or bundle:
                for hook in hooks:
                    found.append(Case(f"{name} + {hook}",
                                      (*INSTRUMENT_FLAGS, source, *select, "--hooks", hook,
                                       "--no-progress", *jobs), "co"))
    return found


def run_case(case: Case, keep: str | None = None) -> dict[str, object]:
    """Run one case in this process; what it wrote, or how it refused."""
    from luthier.drivers.luthier_opt import main

    with tempfile.TemporaryDirectory() as scratch:
        output = os.path.join(scratch, f"out.{case.extension}")
        stderr = io.StringIO()
        cwd = os.getcwd()
        os.chdir(REPO)
        try:
            with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
                status = main([*case.args, "-o", output])
        finally:
            os.chdir(cwd)
        errors = [line for line in stderr.getvalue().splitlines() if "error" in line]
        if status != 0 or not os.path.exists(output):
            return {"status": status, "error": errors[0] if errors else ""}
        data = Path(output).read_bytes()
        if keep is not None:
            target = Path(keep) / (_file_name(case.key) + f".{case.extension}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return {"status": 0, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _file_name(key: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in key)


def _run(item: tuple[Case, str | None]) -> tuple[str, dict[str, object]]:
    case, keep = item
    return case.key, run_case(case, keep)


def run_all(jobs: int, keep: str | None, opt_jobs: int | None = None,
            only: Callable[[str], bool] | None = None) -> dict[str, dict[str, object]]:
    """Every case's result (those whose key ``only`` accepts), keyed as in the record
    (``opt_jobs``: see :func:`cases`)."""
    todo = [(case, keep) for case in cases(opt_jobs) if only is None or only(case.key)]
    if jobs == 1:  # here: luthier-opt may then start workers of its own (--opt-jobs)
        return _collect(map(_run, todo), len(todo))
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs, maxtasksperchild=40) as pool:
        return _collect(pool.imap_unordered(_run, todo), len(todo))


def _collect(outcomes: Iterable[tuple[str, dict[str, object]]],
             total: int) -> dict[str, dict[str, object]]:
    """The results as they come, counted on a terminal, sorted by key."""
    results: dict[str, dict[str, object]] = {}
    for done, (key, result) in enumerate(outcomes, 1):
        results[key] = result
        if sys.stderr.isatty():
            print(f"\r{done}/{total}", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return dict(sorted(results.items()))


def differences(recorded: dict[str, dict[str, object]],
                now: dict[str, dict[str, object]]) -> list[str]:
    """One line per case that differs, is new, or is gone."""
    lines: list[str] = []
    for key in sorted(recorded.keys() | now.keys()):
        before, after = recorded.get(key), now.get(key)
        if before != after:
            lines.append(f"{key}: recorded {before}, now {after}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", action="store_true", help=f"rewrite {RECORD.name}")
    mode.add_argument("--check", action="store_true", help="compare with the record")
    mode.add_argument("--list", action="store_true", help="list the cases")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", metavar="DIR", help="also write every output into DIR")
    parser.add_argument("--only", choices=("recorded", "new"),
                        help="only the cases the record has (recorded: --check them before "
                             "adding inputs) or lacks (new: --record adds them, keeping the "
                             "rest)")
    parser.add_argument("--opt-jobs", type=int, metavar="N",
                        help="instrument with luthier-opt --jobs N (workers that split each "
                             "code object's functions); needs --jobs 1, since pool workers "
                             "may not start processes")
    args = parser.parse_args(argv)
    if args.list:
        for case in cases():
            print(case.key)
        return 0
    if args.opt_jobs is not None and args.jobs != 1:
        parser.error("--opt-jobs needs --jobs 1")
    recorded: dict[str, dict[str, object]] = json.loads(RECORD.read_text())

    def selected(key: str) -> bool:
        return (key in recorded) == (args.only == "recorded")

    now = run_all(args.jobs, args.keep, args.opt_jobs, selected if args.only else None)
    if args.record:
        written = {**recorded, **now} if args.only == "new" else now
        RECORD.write_text(json.dumps(written, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(now)} cases in {RECORD.relative_to(REPO)} "
              f"({len(written)} in all)")
        return 0
    if args.only == "new":
        recorded = {}  # every new case is a difference: there is nothing to compare with
    lines = differences(recorded, now)
    for line in lines:
        print(line)
    print(f"{len(now)} cases, {len(lines)} differ from {RECORD.relative_to(REPO)}")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
