"""Run one conformance check: one target, one mode, the oracle and the tool under test.

Three checks share the machinery: ``disasm`` (the byte sequences of LLVM's disassembler tests),
``asm`` (the statements of LLVM's assembler tests; scored only on lines llvm-mc accepts) and
``random`` (seeded random words per encoding class, compared on the first instruction). Each
produces a :class:`CheckResult` with one :class:`CaseResult` per input, from which the reports
and the floor metrics are derived.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from luthier.conformance.batching import Mode, Outcome, disassembler_line, group_size
from luthier.conformance.encoding_classes import (
    GFX9_CLASSES,
    classes_for,
    classify_bytes,
    random_words,
)
from luthier.conformance.expectation_cache import ExpectationCache, cache_key
from luthier.conformance.runner import BatchRunner, RunStatistics, TimeoutPolicy, ToolCommand
from luthier.conformance.verdicts import (
    AssembleVerdict,
    DecodeVerdict,
    accepted,
    judge_assembly,
    judge_decoding,
)


class Check(StrEnum):
    """The kinds of comparison the harness runs (``--mode``)."""

    DISASM = "disasm"
    ASM = "asm"
    RANDOM = "random"

    @property
    def mode(self) -> Mode:
        """What the tools are asked to do for this check."""
        return Mode.ASSEMBLE if self is Check.ASM else Mode.DISASSEMBLE


@dataclass(frozen=True, slots=True)
class CheckInput:
    """One input of a check: its input line, where it comes from, and its encoding class."""

    line: str
    origin: str
    encoding_class: str


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The verdict on one input. Both outcomes are kept only where the tools disagree (for the
    mismatch report): a full run judges some 400k inputs, most of them in agreement."""

    case: CheckInput
    verdict: str
    llvm_valid: bool  # llvm-mc decoded the input / accepted the line
    expected: Outcome | None = None
    ours: Outcome | None = None


def case_result(check: Check, case: CheckInput, expected: Outcome, ours: Outcome) -> CaseResult:
    """Judge one input."""
    if check is Check.ASM:
        verdict: str = judge_assembly(expected, ours)
        llvm_valid = accepted(expected)
    else:
        verdict = judge_decoding(
            expected, ours, input_size=group_size(case.line), first_only=check is Check.RANDOM
        )
        llvm_valid = bool(expected.instructions)
    if verdict in AGREEMENT:
        return CaseResult(case, verdict, llvm_valid)
    return CaseResult(case, verdict, llvm_valid, expected, ours)


#: Encoding class of an assembly line llvm-mc rejects (it has no encoding to classify).
LLVM_REJECTED = "llvm-rejected"
#: Verdicts that count as agreement in every check.
AGREEMENT = frozenset(
    {
        DecodeVerdict.AGREE,
        DecodeVerdict.BOTH_INVALID,
        AssembleVerdict.IDENTICAL,
        AssembleVerdict.BOTH_REJECT,
    }
)
#: Verdicts where llvm-mc gave no usable expectation; they are listed but not scored.
NOT_SCORED = frozenset({DecodeVerdict.ORACLE_FAILED, AssembleVerdict.ORACLE_FAILED})


@dataclass(slots=True)
class CheckResult:
    """Everything one check of one target found."""

    check: Check
    mcpu: str
    results: list[CaseResult]
    skipped_inputs: int = 0  # asm lines llvm-mc rejects, when they are not run through the tool
    expected_cached: bool = False
    oracle_statistics: RunStatistics = field(default_factory=RunStatistics)
    tool_statistics: RunStatistics = field(default_factory=RunStatistics)
    seconds: float = 0.0

    def verdict_counts(self) -> Counter[str]:
        """How many inputs got each verdict."""
        return Counter(result.verdict for result in self.results)

    def class_verdict_counts(self) -> dict[str, Counter[str]]:
        """Verdict counts per encoding class."""
        per_class: dict[str, Counter[str]] = {}
        for result in self.results:
            per_class.setdefault(result.case.encoding_class, Counter())[result.verdict] += 1
        return per_class

    def metrics(self) -> dict[str, float | None]:
        """The percentages floors are set on (None when nothing was there to measure)."""
        return metrics_of(self.check, self.results)


def _percent(part: int, whole: int) -> float | None:
    return None if whole == 0 else round(100.0 * part / whole, 3)


def metrics_of(check: Check, results: Sequence[CaseResult]) -> dict[str, float | None]:
    """Named agreement percentages of a check.

    ``disasm``: of the corpus words llvm-mc decodes, how many we decode identically;
    ``disasm-invalid``: of those it rejects, how many we reject too. ``asm``: of the lines
    llvm-mc accepts, how many we assemble to identical bytes and text. ``random``: of all random
    words, on how many we agree (same decoding, or both invalid); ``random-valid``: of those
    llvm-mc decodes, how many we decode identically; ``random-invalid``: of those it rejects,
    how many we reject too (the rest are the bad case: we decode garbage).
    """
    scored = [result for result in results if result.verdict not in NOT_SCORED]
    llvm_valid = [r for r in scored if r.llvm_valid]
    llvm_invalid = [r for r in scored if not r.llvm_valid]
    agree_valid = sum(r.verdict == DecodeVerdict.AGREE for r in llvm_valid)
    if check is Check.DISASM:
        return {
            "disasm": _percent(agree_valid, len(llvm_valid)),
            "disasm-invalid": _percent(
                sum(r.verdict == DecodeVerdict.BOTH_INVALID for r in llvm_invalid),
                len(llvm_invalid),
            ),
        }
    if check is Check.RANDOM:
        return {
            "random": _percent(sum(r.verdict in AGREEMENT for r in scored), len(scored)),
            "random-valid": _percent(agree_valid, len(llvm_valid)),
            "random-invalid": _percent(
                sum(r.verdict == DecodeVerdict.BOTH_INVALID for r in llvm_invalid),
                len(llvm_invalid),
            ),
        }
    return {
        "asm": _percent(
            sum(r.verdict == AssembleVerdict.IDENTICAL for r in llvm_valid), len(llvm_valid)
        )
    }


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How to run the tools (shared by all checks of a harness run)."""

    tool: ToolCommand
    oracle: ToolCommand
    oracle_version: str
    cache: ExpectationCache | None
    jobs: int = 2
    batch_size: int = 2000
    timeouts: TimeoutPolicy = field(default_factory=TimeoutPolicy)
    include_rejected_asm: bool = False
    crash_budget: int | None = 200  # recovery processes per check for the tool under test
    log: Callable[[str], None] = lambda _message: None


def _runner(
    settings: RunSettings, tool: ToolCommand, mode: Mode, mcpu: str, *, oracle: bool
) -> BatchRunner:
    return BatchRunner(
        tool,
        mode,
        mcpu,
        jobs=settings.jobs,
        batch_size=settings.batch_size,
        timeouts=settings.timeouts,
        # llvm-mc crashes rarely and starts fast: isolate every one of its crashes.
        recovery_budget=None if oracle else settings.crash_budget,
    )


def _expectations(
    settings: RunSettings, mode: Mode, mcpu: str, lines: Sequence[str]
) -> tuple[list[Outcome], bool, RunStatistics]:
    key = cache_key(mode, mcpu, settings.oracle_version, lines)
    if settings.cache is not None:
        cached = settings.cache.load(mode, mcpu, key, len(lines))
        if cached is not None:
            return cached, True, RunStatistics()
    runner = _runner(settings, settings.oracle, mode, mcpu, oracle=True)
    outcomes = runner.run(lines)
    unusable = [o for o in outcomes if o.failure is not None and o.failure.kind == "unusable"]
    if unusable and unusable[0].failure is not None:
        raise RuntimeError(f"the oracle cannot be used: {unusable[0].failure.detail}")
    if settings.cache is not None:
        settings.cache.store(mode, mcpu, key, outcomes)
    return outcomes, False, runner.statistics


def run_check(
    settings: RunSettings, check: Check, mcpu: str, cases: Sequence[CheckInput]
) -> CheckResult:
    """Run the oracle (or read its cache) and the tool under test on a check's inputs."""
    started = time.monotonic()
    lines = [case.line for case in cases]
    expected, cached, oracle_statistics = _expectations(settings, check.mode, mcpu, lines)
    settings.log(
        f"{mcpu} {check}: {len(cases)} inputs, llvm-mc "
        + ("from cache" if cached else f"in {oracle_statistics.seconds:.1f}s")
    )
    selected = list(range(len(cases)))
    if check is Check.ASM and not settings.include_rejected_asm:
        selected = [index for index in selected if accepted(expected[index])]
    if check is Check.ASM:
        # Classify assembled lines by the encoding llvm-mc produced for them.
        cases = [
            _with_class_of_encoding(case, outcome, mcpu)
            for case, outcome in zip(cases, expected, strict=True)
        ]
    runner = _runner(settings, settings.tool, check.mode, mcpu, oracle=False)
    ours = runner.run([lines[index] for index in selected])
    results = [
        case_result(check, cases[index], expected[index], our_outcome)
        for index, our_outcome in zip(selected, ours, strict=True)
    ]
    settings.log(f"{mcpu} {check}: tool under test in {runner.statistics.seconds:.1f}s")
    return CheckResult(
        check,
        mcpu,
        results,
        skipped_inputs=len(cases) - len(selected),
        expected_cached=cached,
        oracle_statistics=oracle_statistics,
        tool_statistics=runner.statistics,
        seconds=time.monotonic() - started,
    )


def _with_class_of_encoding(case: CheckInput, outcome: Outcome, mcpu: str) -> CheckInput:
    if not outcome.instructions:
        return case
    classes = classes_for(mcpu)
    if classes is None:
        return CheckInput(case.line, case.origin, "unclassified")
    encoding = outcome.instructions[0].encoding or ()
    data = bytes(_byte_value(token) for token in encoding[:4])
    return CheckInput(case.line, case.origin, classify_bytes(data, classes))


def _byte_value(token: str) -> int:
    """A printed encoding byte; fixup placeholders (``A``) count as zero bits."""
    try:
        return int(token, 16) & 0xFF
    except ValueError:
        return 0


def disasm_inputs(words: Sequence[tuple[bytes, str]], mcpu: str) -> list[CheckInput]:
    """Check inputs for byte sequences given as (bytes, origin)."""
    classes = classes_for(mcpu)
    return [
        CheckInput(
            disassembler_line(data),
            origin,
            classify_bytes(data, classes) if classes is not None else "unclassified",
        )
        for data, origin in words
    ]


def asm_inputs(statements: Sequence[tuple[str, str]]) -> list[CheckInput]:
    """Check inputs for statements given as (statement, origin); the class comes later, from
    the encoding llvm-mc gives each line (see :func:`run_check`)."""
    return [CheckInput(statement, origin, LLVM_REJECTED) for statement, origin in statements]


def random_inputs(count_per_class: int, seed: int, mcpu: str | None = None) -> list[CheckInput]:
    """Check inputs for the seeded random words of a target's encoding classes (GFX9's when
    no target is named)."""
    classes = (classes_for(mcpu) if mcpu is not None else None) or GFX9_CLASSES
    return [
        CheckInput(disassembler_line(data), f"random seed={seed}", class_name)
        for class_name, data in random_words(count_per_class, seed, classes)
    ]
