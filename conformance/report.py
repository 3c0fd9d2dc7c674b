"""Turn check results into what people and CI read: a summary table, JSON, mismatch lists,
and the verdict of the floors (minimum percentages that must not regress)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, cast

from luthier.conformance.batching import Outcome
from luthier.conformance.harness import AGREEMENT, NOT_SCORED, CaseResult, CheckResult

#: Verdicts that are listed in the mismatch file: everything except agreement.
_LISTED_SEPARATELY = frozenset({"llvm-crash"})


def _format_percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}%"


def summary_text(results: Sequence[CheckResult]) -> str:
    """A human-readable summary: per target and check, the metrics and verdict counts, then
    per encoding class the share of inputs on which the tools agree."""
    out: list[str] = []
    for result in results:
        counts = result.verdict_counts()
        metrics = ", ".join(
            f"{name} {_format_percent(value)}" for name, value in result.metrics().items()
        )
        origin = "cached" if result.expected_cached else "ran"
        out.append(
            f"== {result.mcpu} {result.check}: {len(result.results)} inputs "
            f"(llvm-mc {origin}; {result.seconds:.1f}s) -- {metrics}"
        )
        unusable = next(
            (
                r.ours.failure
                for r in result.results
                if r.ours is not None and r.ours.failure and r.ours.failure.kind == "unusable"
            ),
            None,
        )
        if unusable is not None:
            out.append(f"   TOOL UNUSABLE: {unusable.detail}")
        if result.skipped_inputs:
            out.append(f"   not run: {result.skipped_inputs} lines llvm-mc rejects")
        out.append("   " + ", ".join(f"{verdict} {n}" for verdict, n in counts.most_common()))
        stats = result.tool_statistics
        if stats.crashed_processes or stats.split_batches:
            out.append(
                f"   tool runs: {stats.processes} processes, {stats.crashed_processes} crashed, "
                f"{stats.split_batches} batches re-split, {stats.recovery_runs} recovery runs"
                + (
                    f", {stats.unisolated_inputs} inputs not isolated (budget spent)"
                    if stats.unisolated_inputs
                    else ""
                )
            )
        for name, class_counts in sorted(result.class_verdict_counts().items()):
            scored = sum(n for verdict, n in class_counts.items() if verdict not in NOT_SCORED)
            agree = sum(n for verdict, n in class_counts.items() if verdict in AGREEMENT)
            share = _format_percent(None if scored == 0 else 100 * agree / scored)
            detail = ", ".join(f"{v} {n}" for v, n in class_counts.most_common())
            out.append(f"   {name:<14} {agree:>6}/{scored:<6} agree {share:>8}  {detail}")
    return "\n".join(out) + "\n"


def _statistics_json(result: CheckResult) -> dict[str, Any]:
    oracle, tool = result.oracle_statistics, result.tool_statistics
    return {
        "seconds": round(result.seconds, 3),
        "oracle_cached": result.expected_cached,
        "oracle_seconds": round(oracle.seconds, 3),
        "oracle_processes": oracle.processes,
        "tool_seconds": round(tool.seconds, 3),
        "tool_processes": tool.processes,
        "tool_crashed_processes": tool.crashed_processes,
        "tool_split_batches": tool.split_batches,
        "tool_recovery_runs": tool.recovery_runs,
        "tool_unisolated_inputs": tool.unisolated_inputs,
    }


def summary_json(results: Sequence[CheckResult], context: dict[str, Any]) -> dict[str, Any]:
    """The machine-readable summary: metrics per target, and per check the verdict counts
    overall and per encoding class."""
    targets: dict[str, dict[str, Any]] = {}
    metrics: dict[str, dict[str, float | None]] = {}
    for result in results:
        target = targets.setdefault(result.mcpu, {})
        target[str(result.check)] = {
            "inputs": len(result.results),
            "not_run_llvm_rejected": result.skipped_inputs,
            "metrics": result.metrics(),
            "verdicts": dict(result.verdict_counts()),
            "classes": {
                name: dict(counts) for name, counts in sorted(result.class_verdict_counts().items())
            },
            "timing": _statistics_json(result),
        }
        metrics.setdefault(result.mcpu, {}).update(result.metrics())
    return {**context, "metrics": metrics, "targets": targets}


def _render_outcome(outcome: Outcome | None) -> list[str]:
    if outcome is None:
        return ["(not kept)"]
    if outcome.failure is not None:
        return [f"{outcome.failure.kind}: {outcome.failure.detail}"]
    lines = [instruction.render() for instruction in outcome.instructions]
    lines += [
        f"{d.severity} at {'?' if d.position is None else d.position}: {d.message}"
        for d in outcome.diagnostics
    ]
    return lines or ["(nothing)"]


def _render_case(result: CaseResult) -> list[str]:
    lines = [f"{result.case.line}    # {result.case.origin}  [{result.verdict}]"]
    lines += [f"    llvm: {line}" for line in _render_outcome(result.expected)]
    lines += [f"    ours: {line}" for line in _render_outcome(result.ours)]
    return lines


def mismatch_text(results: Sequence[CheckResult], limit_per_class: int) -> str:
    """Every input the tools disagree on, grouped by target, check and encoding class.

    ``limit_per_class`` (0 = no limit) keeps the file readable when a tool is far from done.
    Inputs llvm-mc itself crashed on are listed apart: they are LLVM bugs, not ours.
    """
    out: list[str] = []
    for result in results:
        by_class: dict[str, list[CaseResult]] = {}
        for case in result.results:
            if case.verdict not in AGREEMENT:
                by_class.setdefault(case.case.encoding_class, []).append(case)
        for name, cases in sorted(by_class.items()):
            ours = [case for case in cases if case.verdict not in _LISTED_SEPARATELY]
            oracle = [case for case in cases if case.verdict in _LISTED_SEPARATELY]
            for title, listed in (("mismatches", ours), ("llvm-mc crashed, not scored", oracle)):
                if not listed:
                    continue
                out.append(f"=== {result.mcpu} {result.check} {name}: {len(listed)} {title}")
                shown = listed if limit_per_class <= 0 else listed[:limit_per_class]
                for case in shown:
                    out.extend(_render_case(case))
                if len(shown) < len(listed):
                    out.append(f"... and {len(listed) - len(shown)} more")
                out.append("")
    return "\n".join(out) + ("\n" if out else "")


def load_floors(path: Path) -> dict[str, dict[str, float]]:
    """Read a floors file: ``{"<mcpu>": {"<metric>": <minimum percent>, ...}, ...}``."""
    raw = cast(dict[str, Any], json.loads(path.read_text(encoding="utf-8")))
    floors: dict[str, dict[str, float]] = {}
    for mcpu, per_metric in raw.items():
        if mcpu.startswith("_"):  # "_comment" and the like
            continue
        floors[mcpu] = {
            name: float(value) for name, value in cast(dict[str, Any], per_metric).items()
        }
    return floors


def check_floors(
    floors: dict[str, dict[str, float]], results: Iterable[CheckResult]
) -> tuple[list[str], list[str]]:
    """Compare measured metrics with the floors: (failures, notes).

    A floor for a target or metric that this run did not measure is a note, not a failure, so
    that a partial run (one ``--mode``, one ``--mcpu``) can still use the full floors file. A
    metric with nothing to measure (no inputs) passes.
    """
    measured: dict[str, dict[str, float | None]] = {}
    for result in results:
        measured.setdefault(result.mcpu, {}).update(result.metrics())
    failures: list[str] = []
    notes: list[str] = []
    for mcpu, per_metric in sorted(floors.items()):
        for name, minimum in sorted(per_metric.items()):
            if mcpu not in measured or name not in measured[mcpu]:
                notes.append(f"floor {mcpu} {name} not measured in this run")
                continue
            value = measured[mcpu][name]
            if value is not None and value < minimum:
                failures.append(f"{mcpu} {name}: {value:.3f}% is below the floor {minimum}%")
    return failures, notes
