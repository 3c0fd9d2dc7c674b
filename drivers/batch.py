"""Instrument (or round-trip) many code objects at once: every device entry of every input.

A library is many code objects: one per bundle entry of each fat binary, often one per
translation unit. Each is instrumented on its own (the tool's globals are per code object),
so they are the unit of work handed to workers:

* ``--jobs N``: N worker processes on this machine (the default: every core);
* ``--scheduler ADDRESS``: the workers of a running Dask distributed cluster
  (``pip install luthier-xdsl[distributed]``; see docs/distributed.md).

Whatever runs a task, it runs :func:`run_task` on the code object's bytes and the hooks'
MLIR text, so the output bytes do not depend on where or in which order tasks ran. Outputs
are written only when every task succeeded: a failure prints one line naming the code
object (and, from the pass, the function and instruction) and leaves the output directory
as it was.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.amdgpu_dialects.target.target_id import EM_AMDGPU
from luthier.frontend.codeobj.bundle import is_bundle
from luthier.frontend.codeobj.elf import elf_machine
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.frontend.codeobj.reader import read_fatbin


@dataclass(frozen=True)
class Task:
    """One code object to process: what a worker receives (plain data, picklable)."""

    #: Where it came from (``app.hipfb[hipv4-amdgcn-amd-amdhsa--gfx90a]``), for messages.
    name: str
    #: The output file name (inside the output directory).
    output: str
    data: bytes
    #: The hooks module as MLIR text (None: identity round trip).
    hooks: str | None


@dataclass(frozen=True)
class Outcome:
    """A worker's answer: the output bytes, or one line saying why there are none."""

    task: str
    output: str
    data: bytes | None
    error: str | None = None
    #: What ``luthier-opt`` would warn about for this code object, one line each.
    warnings: tuple[str, ...] = ()


def tasks_of(inputs: Sequence[str], hooks: str | None) -> list[Task]:
    """A task per device code object of ``inputs`` (plain code objects, bundles, host
    binaries with a fat binary): a plain code object keeps its file name, a bundle entry
    becomes ``<input>.<index>.<target-id>.co``."""
    found: list[Task] = []
    used: set[str] = set()
    for path in inputs:
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise CodeObjectError(path, f"cannot read: {error.strerror or error}") from None
        stem = os.path.basename(path)
        for index, (name, target_id, entry) in enumerate(_device_code_objects(data, path)):
            output = stem if target_id is None else \
                f"{stem}.{index}.{target_id.replace(':', '_')}.co"
            while output in used:
                output = f"_{output}"
            used.add(output)
            found.append(Task(name, output, entry, hooks))
    return found


def _device_code_objects(data: bytes, path: str) -> Iterator[tuple[str, str | None, bytes]]:
    """(name, target ID, bytes) of every device code object of one input; a plain code
    object (or anything neither a bundle nor a host binary: the worker's reader says what
    it is) has no target ID here."""
    machine = elf_machine(data)
    if not is_bundle(data) and (machine is None or machine == EM_AMDGPU):
        yield path, None, data
        return
    for bundle in read_fatbin(data, name=path):
        for entry in bundle.device_entries:
            yield f"{bundle.path}[{entry.id}]", entry.target_id, entry.data


def run_task(task: Task) -> Outcome:
    """Lift ``task``'s code object, instrument it with its hooks (when it has some) and
    emit it: what a worker runs. Every failure is an :class:`Outcome` with one line."""
    from luthier.drivers.pipeline import PipelineError, instrument_bytes

    warnings: list[str] = []
    try:
        data = instrument_bytes(task.data, task.name, task.hooks, warnings=warnings)
    except PipelineError as error:
        # The reader's messages name the code object already; a pass's name only the function.
        message = str(error)
        if not message.startswith(task.name):
            message = f"{task.name}: {message}"
        return Outcome(task.name, task.output, None, message)
    return Outcome(task.name, task.output, data, warnings=tuple(warnings))


#: Runs every task and yields outcomes as they complete.
Engine = Callable[[Sequence[Task]], Iterator[Outcome]]


def local_engine(jobs: int) -> Engine:
    """``jobs`` worker processes on this machine (in this process when ``jobs`` is 1)."""

    def run(tasks: Sequence[Task]) -> Iterator[Outcome]:
        if jobs <= 1 or len(tasks) <= 1:
            yield from (run_task(task) for task in tasks)
            return
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            futures = [pool.submit(run_task, task) for task in tasks]
            for future in as_completed(futures):
                yield future.result()

    return run


def dask_engine(address: str) -> Engine:
    """The workers of the Dask distributed scheduler at ``address`` (``tcp://host:8786``)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise BatchError("--scheduler needs Dask distributed: pip install "
                         "'luthier-xdsl[distributed]'") from None

    def run(tasks: Sequence[Task]) -> Iterator[Outcome]:
        try:
            client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as error:
            raise BatchError(f"--scheduler {address}: cannot connect ({error})") from None
        try:
            futures = client.map(run_task, list(tasks), pure=False)  # pyright: ignore[reportUnknownMemberType]
            for future in as_completed(futures):  # pyright: ignore[reportUnknownVariableType]
                yield future.result()  # pyright: ignore[reportUnknownMemberType]
        finally:
            client.close()  # pyright: ignore[reportUnknownMemberType]

    return run


class BatchError(LuthierError):
    """A batch that cannot run or did not succeed: one line for the user."""


def run_batch(tasks: Sequence[Task], engine: Engine,
              progress: Callable[[Outcome], None] | None = None,
              warnings: list[tuple[str, str]] | None = None) -> dict[str, bytes]:
    """Every task's output by output name, or :class:`BatchError` with the first failure
    (in task order, so the message does not depend on which worker finished first); each
    task's warnings, with its name, are appended to ``warnings`` in task order."""
    outcomes: dict[str, Outcome] = {}
    for outcome in engine(tasks):
        outcomes[outcome.output] = outcome
        if progress is not None:
            progress(outcome)
    for task in tasks:
        outcome = outcomes.get(task.output)
        if outcome is None:
            raise BatchError(f"{task.name}: no result from the workers")
        if outcome.data is None:
            raise BatchError(outcome.error or f"{task.name}: failed")
    if warnings is not None:
        warnings += [(task.name, line) for task in tasks
                     for line in outcomes[task.output].warnings]
    return {task.output: outcomes[task.output].data or b"" for task in tasks}
