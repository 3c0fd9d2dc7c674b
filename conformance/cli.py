"""``luthier-conformance``: measure how often an llvm-mc-compatible tool agrees with llvm-mc.

Typical uses::

    luthier-conformance                                  # luthier-mc vs llvm-mc-19, all checks
    luthier-conformance --tool llvm-mc-19                # self-check of the harness: 100%
    luthier-conformance --mcpu gfx90a --mode disasm --mismatches build/mismatches.txt
    luthier-conformance --floors conformance/floors.json --json build/conformance.json

Exit status: 0 on success, 1 if a floor is not met, 2 on a setup error (no LLVM test tree,
a tool that cannot be started).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from luthier.conformance.corpus import (
    ASSEMBLER_TESTS,
    DISASSEMBLER_TESTS,
    assembler_corpus,
    disassembler_corpus,
    mcpu_family,
)
from luthier.conformance.encoding_classes import has_encoding_classes, is_gfx9
from luthier.conformance.expectation_cache import ExpectationCache, tool_version
from luthier.conformance.harness import (
    Check,
    CheckInput,
    CheckResult,
    RunSettings,
    asm_inputs,
    disasm_inputs,
    random_inputs,
    run_check,
)
from luthier.conformance.report import (
    check_floors,
    load_floors,
    mismatch_text,
    summary_json,
    summary_text,
)
from luthier.conformance.runner import TimeoutPolicy, ToolCommand, ToolNotFoundError

DEFAULT_LLVM_SRC = Path("third_party/llvm-19")
DEFAULT_TARGETS = ("gfx90a", "gfx942")
#: The checkout root, when running from a source tree (editable install or PYTHONPATH).
_CHECKOUT = Path(__file__).resolve().parent.parent


def resolve_llvm_src(given: Path) -> Path:
    """The LLVM source root: as given, else (relative paths) below the checkout root, so that
    the default works from any working directory of a development checkout."""
    if given.is_absolute() or (given / ASSEMBLER_TESTS).is_dir():
        return given
    in_checkout = _CHECKOUT / given
    return in_checkout if (in_checkout / ASSEMBLER_TESTS).is_dir() else given


def build_parser() -> argparse.ArgumentParser:
    """The command line (documented by ``--help``)."""
    parser = argparse.ArgumentParser(
        prog="luthier-conformance",
        description="Compare an llvm-mc-compatible assembler/disassembler with llvm-mc on "
        "LLVM's AMDGPU MC test inputs and on random instruction words.",
    )
    parser.add_argument(
        "--llvm-src",
        type=Path,
        default=DEFAULT_LLVM_SRC,
        help="LLVM source root holding llvm/test/MC (default: %(default)s)",
    )
    parser.add_argument(
        "--mcpu",
        action="append",
        dest="targets",
        metavar="GFX",
        help="target to check; repeatable (default: gfx90a and gfx942)",
    )
    parser.add_argument(
        "--tool",
        default="luthier-mc",
        help="command under test, llvm-mc's interface (default: %(default)s)",
    )
    parser.add_argument(
        "--oracle", default="llvm-mc-19", help="reference command (default: %(default)s)"
    )
    parser.add_argument("--mode", choices=["disasm", "asm", "random", "all"], default="all")
    parser.add_argument(
        "--random",
        type=int,
        default=200,
        metavar="N",
        help="random words per encoding class (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random words")
    parser.add_argument("--jobs", type=int, default=2, help="parallel tool processes")
    parser.add_argument(
        "--batch-size",
        type=int,
        default=2000,
        help="inputs per tool process (default: %(default)s)",
    )
    parser.add_argument(
        "--timeout-base",
        type=float,
        default=60.0,
        help="seconds every tool process may take (default: %(default)s)",
    )
    parser.add_argument(
        "--timeout-per-input",
        type=float,
        default=0.05,
        help="extra seconds per input of a batch (default: %(default)s)",
    )
    parser.add_argument(
        "--crash-budget",
        type=int,
        default=200,
        metavar="N",
        help="processes per target and check spent isolating crashes of the "
        "tool; past it, unresolved inputs are 'not-isolated' (default: "
        "%(default)s; -1 = no limit)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path("build/conformance-cache"),
        help="cache of llvm-mc's answers (default: %(default)s)",
    )
    parser.add_argument("--no-cache", action="store_true", help="always rerun llvm-mc")
    parser.add_argument(
        "--asm-include-rejected",
        action="store_true",
        help="also run lines llvm-mc rejects (reports lines we accept wrongly)",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write a JSON summary")
    parser.add_argument(
        "--mismatches",
        type=Path,
        metavar="FILE",
        help="write every mismatching input, grouped by encoding class",
    )
    parser.add_argument(
        "--mismatch-limit",
        type=int,
        default=200,
        metavar="N",
        help="inputs listed per target/check/class; 0 = all (default: %(default)s)",
    )
    parser.add_argument(
        "--floors",
        type=Path,
        metavar="FILE",
        help="JSON of minimum percentages per target and metric; exit 1 if below",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    return parser


def _checks(mode: str) -> list[Check]:
    return list(Check) if mode == "all" else [Check(mode)]


def _progress(quiet: bool) -> Callable[[str], None]:
    def log(message: str) -> None:
        if not quiet:
            print(f"[conformance] {message}", file=sys.stderr, flush=True)

    return log


class Corpora:
    """The LLVM test corpora, extracted on first use and shared by all targets.

    GFX9 targets are measured on every file's inputs (as they always were); the RDNA families
    on the files whose RUN lines target their family (see :mod:`luthier.conformance.corpus`).
    """

    def __init__(self, llvm_src: Path) -> None:
        self.llvm_src = llvm_src
        self._words: dict[str | None, list[tuple[bytes, str]]] = {}
        self._statements: dict[str | None, list[tuple[str, str]]] = {}

    @staticmethod
    def _family(mcpu: str | None) -> str | None:
        return None if mcpu is None or is_gfx9(mcpu) else mcpu_family(mcpu)

    def words(self, mcpu: str | None = None) -> list[tuple[bytes, str]]:
        """(bytes, origin) of every distinct disassembler-test input for ``mcpu``."""
        family = self._family(mcpu)
        if family not in self._words:
            self._words[family] = [(c.data, c.origin)
                                   for c in disassembler_corpus(self.llvm_src, family)]
        return self._words[family]

    def statements(self, mcpu: str | None = None) -> list[tuple[str, str]]:
        """(statement, origin) of every distinct assembler-test statement for ``mcpu``."""
        family = self._family(mcpu)
        if family not in self._statements:
            self._statements[family] = [(c.statement, c.origin)
                                        for c in assembler_corpus(self.llvm_src, family)]
        return self._statements[family]


def _inputs_for(
    check: Check, mcpu: str, corpora: Corpora, arguments: argparse.Namespace
) -> list[CheckInput] | None:
    """The inputs of a check for a target, or None if the check does not apply to it."""
    if check is Check.RANDOM:
        if not has_encoding_classes(mcpu):
            return None
        return random_inputs(int(arguments.random), int(arguments.seed), mcpu)
    if check is Check.DISASM:
        return disasm_inputs(corpora.words(mcpu), mcpu)
    return asm_inputs(corpora.statements(mcpu))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the harness; see the module docstring for the exit status."""
    arguments = build_parser().parse_args(argv)
    log = _progress(arguments.quiet)
    targets: list[str] = arguments.targets or list(DEFAULT_TARGETS)
    checks = _checks(arguments.mode)
    llvm_src = resolve_llvm_src(arguments.llvm_src)
    if any(check is not Check.RANDOM for check in checks) and not (
        (llvm_src / ASSEMBLER_TESTS).is_dir() and (llvm_src / DISASSEMBLER_TESTS).is_dir()
    ):
        print(
            f"error: no LLVM MC tests under {llvm_src} (run scripts/setup.sh or pass --llvm-src)",
            file=sys.stderr,
        )
        return 2
    oracle = ToolCommand(tuple(shlex.split(arguments.oracle)))
    settings = RunSettings(
        tool=ToolCommand(tuple(shlex.split(arguments.tool))),
        oracle=oracle,
        oracle_version=tool_version(oracle.argv),
        cache=None if arguments.no_cache else ExpectationCache(arguments.cache_dir),
        jobs=arguments.jobs,
        batch_size=arguments.batch_size,
        timeouts=TimeoutPolicy(arguments.timeout_base, arguments.timeout_per_input),
        include_rejected_asm=arguments.asm_include_rejected,
        crash_budget=None if arguments.crash_budget < 0 else arguments.crash_budget,
        log=log,
    )
    started = time.monotonic()
    corpora = Corpora(llvm_src)
    results: list[CheckResult] = []
    try:
        for mcpu in targets:
            for check in checks:
                inputs = _inputs_for(check, mcpu, corpora, arguments)
                if inputs is None:
                    log(f"{mcpu} {check}: skipped (no encoding classes for its family)")
                    continue
                results.append(run_check(settings, check, mcpu, inputs))
    except (ToolNotFoundError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    elapsed = time.monotonic() - started
    sys.stdout.write(summary_text(results))
    print(f"total {elapsed:.1f}s")
    if arguments.mismatches is not None:
        arguments.mismatches.parent.mkdir(parents=True, exist_ok=True)
        arguments.mismatches.write_text(
            mismatch_text(results, arguments.mismatch_limit), encoding="utf-8"
        )
    failures: list[str] = []
    if arguments.floors is not None:
        failures, notes = check_floors(load_floors(arguments.floors), results)
        for note in notes:
            log(note)
        for failure in failures:
            print(f"FLOOR NOT MET: {failure}")
    if arguments.json is not None:
        context = {
            "tool": arguments.tool,
            "oracle": arguments.oracle,
            "oracle_version": settings.oracle_version.splitlines()[:2],
            "llvm_src": str(llvm_src),
            "mcpu": targets,
            "random": {"per_class": arguments.random, "seed": arguments.seed},
            "seconds": round(elapsed, 3),
            "floor_failures": failures,
        }
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        summary = summary_json(results, context)
        arguments.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 1 if failures else 0
