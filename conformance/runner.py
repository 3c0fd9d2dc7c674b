"""Run an llvm-mc-compatible tool over many inputs, so that every input gets a verdict.

One process per batch of inputs (tens of thousands of inputs, and the tool under test may be a
Python program with a slow start), batches in parallel. A crash or a hang must not take the
rest of its batch with it: the outputs of the inputs before the crash are kept, the input at
the crash point is rerun on its own, and whatever is left is run again, split in halves when the
culprit is unknown. Misaligned output (an input printed the marker text) is split the same way.
The oracle goes through the same code: llvm-mc-19 itself segfaults on a few corpus words.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from luthier.conformance.batching import (
    MAX_BATCH,
    Failure,
    MarkerFamily,
    Mode,
    Outcome,
    align_batch,
    align_single,
    batch_input,
)
from luthier.conformance.mc_output import PrintedInstruction, parse_diagnostics, parse_stdout

TRIPLE = "amdgcn-amd-amdhsa"


class ToolNotFoundError(RuntimeError):
    """The command under test cannot be started at all (a setup error, not a verdict)."""


@dataclass(frozen=True, slots=True)
class ProcessResult:
    """What one tool process did."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool


def run_process(argv: Sequence[str], stdin_text: str, timeout: float) -> ProcessResult:
    """Run a command on a stdin text; on timeout, kill its process group and keep its output."""
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, so a timeout kills its children
        )
    except OSError as error:
        raise ToolNotFoundError(f"cannot run {' '.join(argv)}: {error}") from error
    encoded = stdin_text.encode()
    try:
        out, err = process.communicate(encoded, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        timed_out = True
    return ProcessResult(
        process.returncode,
        out.decode(errors="replace"),
        err.decode(errors="replace"),
        timed_out,
    )


def crash_of(result: ProcessResult) -> Failure | None:
    """Tell a crash from a normal run. Exit status 1 is normal: llvm-mc uses it for
    invalid encodings and assembler errors, which are verdicts, not crashes."""
    if result.timed_out:
        return Failure("timeout", "killed after the batch timeout")
    stderr = result.stderr
    if "Traceback (most recent call last)" in stderr:
        last = next((line for line in reversed(stderr.splitlines()) if line.strip()), "")
        return Failure("crash", f"Python exception: {last.strip()}")
    if result.returncode is not None and result.returncode < 0:
        return Failure("crash", f"killed by {signal.Signals(-result.returncode).name}")
    if "PLEASE submit a bug report" in stderr or "Stack dump:" in stderr:
        return Failure("crash", "LLVM crash report on stderr")
    if result.returncode not in (0, 1):
        first = next((line for line in stderr.splitlines() if line.strip()), "")
        return Failure("crash", f"exit status {result.returncode}: {first.strip()}")
    return None


@dataclass(frozen=True, slots=True)
class TimeoutPolicy:
    """A batch may take ``base + per_input * inputs`` seconds before it is killed."""

    base_seconds: float = 60.0
    per_input_seconds: float = 0.05

    def for_batch(self, inputs: int) -> float:
        """The time limit of a process that handles this many inputs."""
        return self.base_seconds + self.per_input_seconds * inputs


@dataclass(slots=True)
class RunStatistics:
    """How much work the recovery logic cost, for the report."""

    processes: int = 0
    crashed_processes: int = 0
    split_batches: int = 0
    recovery_runs: int = 0  # processes spent isolating crashes and misalignments
    unisolated_inputs: int = 0  # inputs given up on when the recovery budget ran out
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, *, crashed: bool = False, split: bool = False, recovery: bool = False) -> None:
        """Record one process run (thread-safe: batches run in a thread pool)."""
        with self._lock:
            self.processes += 1
            self.crashed_processes += int(crashed)
            self.split_batches += int(split)
            self.recovery_runs += int(recovery)

    def take_recovery_run(self, budget: int | None) -> bool:
        """Whether one more recovery run fits in the budget (None = unlimited)."""
        with self._lock:
            return budget is None or self.recovery_runs < budget

    def give_up(self, inputs: int) -> None:
        """Record inputs that get no verdict of their own."""
        with self._lock:
            self.unisolated_inputs += inputs


@dataclass(frozen=True, slots=True)
class ToolCommand:
    """An llvm-mc-compatible command (possibly with leading arguments of its own)."""

    argv: tuple[str, ...]

    def invocation(self, mode: Mode, mcpu: str) -> list[str]:
        """The full command line, exactly as one would type it for llvm-mc."""
        return [*self.argv, *mode.flags, f"--triple={TRIPLE}", f"--mcpu={mcpu}"]


#: The verdict of inputs left without one when the crash-recovery budget is spent.
GAVE_UP = Failure("not-isolated", "in a crashing batch; crash-recovery budget exhausted")


class BatchRunner:
    """Runs one tool, for one mode and target, over a list of input lines.

    ``recovery_budget`` caps the processes spent isolating crashes (None: no cap). A tool that
    crashes on thousands of inputs would otherwise need thousands of process starts; past the
    budget, the inputs of a crashing batch that have no verdict yet are reported as
    ``not-isolated`` failures instead of being rerun one by one.
    """

    def __init__(
        self,
        tool: ToolCommand,
        mode: Mode,
        mcpu: str,
        *,
        jobs: int = 2,
        batch_size: int = 2000,
        timeouts: TimeoutPolicy | None = None,
        recovery_budget: int | None = None,
    ) -> None:
        self.argv = tool.invocation(mode, mcpu)
        self.mode = mode
        self.jobs = max(1, jobs)
        self.batch_size = min(max(1, batch_size), MAX_BATCH)
        self.timeouts = timeouts or TimeoutPolicy()
        self.recovery_budget = recovery_budget
        self.statistics = RunStatistics()

    def _run(self, stdin_text: str, inputs: int) -> ProcessResult:
        return run_process(self.argv, stdin_text, self.timeouts.for_batch(inputs))

    def probe(self, count: int) -> tuple[list[str], list[PrintedInstruction]] | Failure:
        """Learn how this tool prints ``count`` markers; they must print distinct instructions.

        This also checks that the tool starts, takes the flags and reads the input format, so
        that a tool that cannot work at all is reported once instead of once per input.
        """
        problems: list[str] = []
        count = max(count, 2)
        for family in MarkerFamily:
            markers = [family.line(self.mode, index) for index in range(count)]
            result = self._run("".join(f"{marker}\n" for marker in markers), count)
            crash = crash_of(result)
            printed = parse_stdout(result.stdout)
            diagnostics = parse_diagnostics(result.stderr)
            if (
                crash is None
                and not diagnostics
                and len(printed) == count
                and (len(set(printed)) == count)
            ):
                return markers, printed
            if crash is not None:
                why = crash.detail
            elif diagnostics:
                why = f"diagnostic: {diagnostics[0].message}"
            else:
                why = f"{len(set(printed))} distinct instructions printed for {count} inputs"
            problems.append(f"{family} markers: {why}")
        return Failure("unusable", "tool failed the sync probe: " + "; ".join(problems))

    def run(self, lines: Sequence[str]) -> list[Outcome]:
        """One outcome per input line, in order."""
        started = time.monotonic()
        outcomes: list[Outcome | None] = [None] * len(lines)
        probe = self.probe(min(self.batch_size, len(lines)))
        if isinstance(probe, Failure):
            self.statistics.seconds = time.monotonic() - started
            return [Outcome(failure=probe) for _ in lines]
        chunks = [
            list(range(start, min(start + self.batch_size, len(lines))))
            for start in range(0, len(lines), self.batch_size)
        ]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = [
                pool.submit(self._run_chunk, chunk, lines, probe, outcomes) for chunk in chunks
            ]
            for future in futures:
                future.result()
        self.statistics.seconds = time.monotonic() - started
        return [outcome if outcome is not None else Outcome() for outcome in outcomes]

    def _run_single(self, line: str, *, recovery: bool) -> Outcome:
        result = self._run(f"{line}\n", 1)
        crash = crash_of(result)
        self.statistics.count(crashed=crash is not None, recovery=recovery)
        if crash is not None:
            return Outcome(failure=crash)
        return align_single(self.mode, line, result.stdout, result.stderr)

    def _give_up(self, batch: list[int], outcomes: list[Outcome | None], why: Failure) -> None:
        self.statistics.give_up(len(batch))
        for index in batch:
            outcomes[index] = Outcome(failure=why)

    def _run_chunk(
        self,
        chunk: list[int],
        lines: Sequence[str],
        probe: tuple[list[str], list[PrintedInstruction]],
        outcomes: list[Outcome | None],
    ) -> None:
        markers, marker_outputs = probe
        pending: deque[list[int]] = deque([chunk])
        recovery = False  # the first run of a chunk is plain work, the others are recovery
        while pending:
            batch = pending.popleft()
            if recovery and not self.statistics.take_recovery_run(self.recovery_budget):
                self._give_up(batch, outcomes, GAVE_UP)
                continue
            if len(batch) == 1:
                outcomes[batch[0]] = self._run_single(lines[batch[0]], recovery=recovery)
                recovery = True
                continue
            batch_lines = [lines[index] for index in batch]
            result = self._run(batch_input(batch_lines, markers), len(batch))
            crash = crash_of(result)
            alignment = align_batch(
                self.mode, batch_lines, marker_outputs, result.stdout, result.stderr
            )
            for index, outcome in zip(batch, alignment.outcomes, strict=False):
                outcomes[index] = outcome
            self.statistics.count(
                crashed=crash is not None, split=not alignment.complete, recovery=recovery
            )
            recovery = True
            if crash is None and alignment.complete:
                continue
            rest = batch[len(alignment.outcomes) :]
            if crash is None or not alignment.outcomes or crash.kind == "timeout":
                # Culprit unknown (misaligned output, or nothing printed): find it by halving.
                pending.extendleft(reversed(_halves(rest)))
                continue
            # The output stops right before rest[0]: most likely the culprit. Confirm alone;
            # if it is innocent the crash point was lost in a buffer, so halve the remainder.
            if not self.statistics.take_recovery_run(self.recovery_budget):
                pending.appendleft(rest)
                continue
            suspect = self._run_single(lines[rest[0]], recovery=True)
            outcomes[rest[0]] = suspect
            remainder = rest[1:]
            if not remainder:
                continue
            if suspect.failure is not None:
                pending.appendleft(remainder)
            else:
                pending.extendleft(reversed(_halves(remainder)))


def _halves(batch: list[int]) -> list[list[int]]:
    middle = len(batch) // 2
    return [part for part in (batch[:middle], batch[middle:]) if part]
