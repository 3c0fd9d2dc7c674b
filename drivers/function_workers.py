"""One code object instrumented by several worker processes, its functions split among them
(``luthier-opt --jobs N``).

The functions of a code object fall into groups that share no call (see
:mod:`~luthier.passes.analysis.function_groups`), cut into one run of neighbouring groups
per worker, the largest run as small as it can be, and each run into a few chunks. Each
worker is a process forked after the lift (it starts with the lifted module and the tool's
ops, and pays neither start-up nor a copy) that takes the functions out of its copy of the
module and then lowers chunk after chunk, as the parent hands them out: its own run in
layout order, then chunks of runs other workers have not reached
(:mod:`~luthier.drivers.work_sharing`). A chunk is lowered in a module of its own, a copy of
the rest of the module with the chunk's functions put back, through what the serial
pipeline runs on the whole: ``insert-hooks``, ``lower-hooks``, then
``finalize-instrumentation``; then its functions are encoded on their own
(:class:`~luthier.lowering.emit.text.EncodedFunction`). The hook templates' allocations,
their verification and the wait-state masks carry over from chunk to chunk within a
worker. Back here, the untouched module is finalized with what the workers send, which is
what they changed: each function's properties (the kernel descriptor among them), each
kernel's metadata entry, and the code, which the emitter writes as given. The tool's
globals are exported here as a worker exports them; what every chunk leaves in the code
object besides its functions is checked to be that, so a stage that one day changes the
code object as a whole cannot be dropped silently.

The output bytes are those of ``--jobs 1``: lowering and finalizing a group reads nothing
outside the group, and the hook templates' reuse of an allocation is exact (it never
depends on which points came before).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.queues import SimpleQueue
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.metadata import (
    KERNELS_KEY,
    kernel_entries,
    with_kernel_entries,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp
from luthier.amdgpu_dialects.errors import LuthierError
from luthier.amdgpu_dialects.instr.ops import InsertOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.drivers.opt_main import one_line
from luthier.drivers.work_sharing import ChunkSchedule
from luthier.lowering.emit.errors import EmitError
from luthier.lowering.emit.text import EncodedFunction, TextEncoder
from luthier.lowering.progress import Stage, reporting, stage, watched
from luthier.lowering.timing import (
    StageTime,
    Timings,
    adopt,
    cpu_seconds,
    is_recording,
    recording,
    timed,
)
from luthier.passes.analysis.function_groups import FunctionGroup, balanced_bins, function_groups
from luthier.passes.instrument.insert_hooks import InsertHooksPass, check_insertions
from luthier.passes.layout.tool_globals import export_tool_globals

#: Below this many instructions an object is instrumented in this process: forking and
#: merging would cost more than the work saved (a worker's lowering of even a small object
#: runs for a tenth of a second or more).
MIN_INSTRUCTIONS = 4000


class SplitError(LuthierError):
    """A worker's failure, in one line naming the code object and what failed."""


@dataclass(frozen=True)
class FunctionResult:
    """What a worker changed in one function: its properties (the kernel descriptor among
    them), its attributes, and its code."""

    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    encoded: EncodedFunction


@dataclass(frozen=True)
class ChunkResult:
    """A worker's answer for one chunk of groups: every function's result and what it left
    in the code object besides functions; or one line saying why there is none."""

    functions: dict[str, FunctionResult]
    #: The code object's properties after finalizing (its metadata among them).
    code_object: dict[str, Attribute]
    #: The other ops of the code object (variables, the tool's globals): name, properties.
    others: tuple[tuple[str, dict[str, Attribute]], ...]
    error: str | None = None


#: Seconds between a worker's progress messages for one stage.
PROGRESS_SECONDS = 0.2

#: A worker's progress message: (worker, "open" | "advance" | "close", stage, count, unit).
_Message = tuple[int, str, str, int, str]


class _ForwardedStage:
    """A worker's stage, whose progress goes to the parent in a few messages a second."""

    def __init__(self, owner: _Forwarding, name: str) -> None:
        self.owner = owner
        self.name = name
        self.pending = 0
        self.sent = time.monotonic()

    def advance(self, n: int = 1) -> None:
        self.pending += n
        now = time.monotonic()
        if now - self.sent >= PROGRESS_SECONDS:
            self.owner.send("advance", self.name, self.pending)
            self.pending = 0
            self.sent = now

    def close(self) -> None:
        if self.pending:
            self.owner.send("advance", self.name, self.pending)
        self.owner.send("close", self.name)


class _Forwarding:
    """A worker's reporter: its stages, sent to the parent, which shows them."""

    def __init__(self, queue: SimpleQueue[_Message], worker: int) -> None:
        self.queue = queue
        self.worker = worker

    def send(self, kind: str, name: str, count: int = 0, unit: str = "") -> None:
        self.queue.put((self.worker, kind, name, count, unit))

    def stage(self, name: str, total: int, unit: str) -> Stage:
        self.send("open", name, total, unit)
        return _ForwardedStage(self, name)


class _Shown:
    """The workers' stages, shown here as ``lower-hooks [worker 1/2]``."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.stages: dict[tuple[int, str], Stage] = {}

    def show(self, message: _Message) -> None:
        worker, kind, name, count, unit = message
        key = (worker, name)
        if kind == "open":
            self.stages[key] = stage(f"{name} [worker {worker + 1}/{self.workers}]", count,
                                     unit)
        elif kind == "advance" and key in self.stages:
            self.stages[key].advance(count)
        elif kind == "close" and key in self.stages:
            self.stages.pop(key).close()

    def close(self) -> None:
        for shown in self.stages.values():
            shown.close()
        self.stages.clear()


@dataclass(frozen=True)
class SplitPlan:
    """How a code object's functions go to worker processes: chunks of neighbouring
    groups in layout order, and the chunk each worker starts its run with (see
    :class:`~luthier.drivers.work_sharing.ChunkSchedule`)."""

    #: Each chunk's functions, in layout order.
    chunks: tuple[tuple[str, ...], ...]
    #: Each chunk's instructions (the measure of its work).
    weights: tuple[int, ...]
    #: The first chunk of each worker's run.
    starts: tuple[int, ...]

    @property
    def workers(self) -> int:
        return len(self.starts)


@dataclass(frozen=True)
class _Job:
    """What the forked workers read (set before the pool forks, so never pickled)."""

    ctx: Context
    module: ModuleOp
    chunks: tuple[tuple[str, ...], ...]
    workers: int
    #: Where workers send their progress; None when nobody watches it.
    progress: SimpleQueue[_Message] | None


_JOB: list[_Job] = []


@dataclass(frozen=True)
class _Finished:
    """A worker's last message: its stages, when the run records them."""

    timings: StageTime | None


def _code_object(module: ModuleOp) -> CodeObjectOp:
    found = [op for op in module.ops if isinstance(op, CodeObjectOp)]
    assert len(found) == 1
    return found[0]


def _other_ops(code_object: CodeObjectOp) -> tuple[tuple[str, dict[str, Attribute]], ...]:
    return tuple((op.name, dict(op.properties)) for op in code_object.body.ops
                 if not isinstance(op, FunctionLikeOp))


def _child(worker: int, connection: Connection) -> None:
    """A worker's life: the chunks the parent sends, each one's result sent back, then its
    stages; and an exit that skips the parent's clean-up (forked, it shares the parent's
    exit handlers and output buffers)."""
    try:
        _serve(worker, connection)
        connection.close()
    except KeyboardInterrupt:  # ^C reaches the whole process group: the parent reports it
        os._exit(130)
    except BaseException:
        traceback.print_exc()  # a bug of ours: the parent reports the worker as dead
        sys.stderr.flush()
        os._exit(1)
    os._exit(0)


def _serve(worker: int, connection: Connection) -> None:
    """In a worker: lower, finalize and encode each chunk the parent sends (an index of
    :attr:`_Job.chunks`) until it sends None."""
    job = _JOB[0]
    forwarding = _Forwarding(job.progress, worker) if job.progress is not None else None
    # The parent's reporter and recorder came along with the fork: its bars and its table
    # are the parent's to draw; this worker's stages go back in its last message.
    timings = Timings() if is_recording() else None
    wall, cpu = time.perf_counter(), cpu_seconds()
    with reporting(forwarding):
        with recording(timings, wall, cpu), timed("prepare"):
            skeleton = _Skeleton(job.module)
        while (chunk := cast(int | None, connection.recv())) is not None:
            with recording(timings, wall, cpu):
                connection.send(_lower_chunk(job, skeleton, chunk))
    if timings is not None:
        timings.root.name = f"worker {worker + 1}/{job.workers}"
    connection.send(_Finished(None if timings is None else timings.root))


class _Skeleton:
    """A worker's copy of the module, its functions taken out: each chunk is lowered in a
    module of its own, a copy of the rest with the chunk's functions put back where they
    were, so that what finalizing changes besides them (the tool's globals, the metadata)
    starts afresh for each chunk. The allocations stay, for the points of later chunks
    (:class:`~luthier.passes.instrument.templates.AllocationMemo`)."""

    def __init__(self, module: ModuleOp) -> None:
        # Imported here, by each worker: the lowering and layout modules take a tenth of a
        # second to import, which the parent, waiting for the workers, need not spend first.
        from luthier.passes.instrument.templates import AllocationMemo

        self.module = module
        self.memo = AllocationMemo()
        #: Each function, and how many other ops of the code object come before it.
        self.functions: dict[str, tuple[FunctionLikeOp, int]] = {}
        code_object = _code_object(module)
        others = 0
        for op in list(code_object.body.ops):
            if isinstance(op, FunctionLikeOp):
                code_object.body.block.detach_op(op)
                self.functions[op.sym_name.data] = (op, others)
            else:
                others += 1

    def module_of(self, names: Sequence[str]) -> ModuleOp:
        """A copy of the rest of the module with the functions ``names`` put back (each
        function is given once: its op moves into the copy)."""
        module = self.module.clone()
        block = _code_object(module).body.block
        others = list(block.ops)
        for name in names:
            function, before = self.functions.pop(name)
            if before < len(others):
                block.insert_op_before(function, others[before])
            else:
                block.add_op(function)
        return module


def _lower_chunk(job: _Job, skeleton: _Skeleton, chunk: int) -> ChunkResult:
    """Lower, finalize and encode the functions of chunk ``chunk``."""
    from luthier.passes.instrument.pipeline import lower_hooks
    from luthier.passes.layout.pipeline import FinalizeInstrumentationPass

    with timed("prepare"):
        module = skeleton.module_of(job.chunks[chunk])
    code_object = _code_object(module)
    try:
        # The parent checked each insertion against the whole object: here one may rightly
        # match none of these functions.
        with timed("insert-hooks"):
            InsertHooksPass(require_match=False).apply(job.ctx, module)
        lower_hooks(job.ctx, module, packed=True, memo=skeleton.memo)
        FinalizeInstrumentationPass().apply(job.ctx, module)
        with timed("encode"):
            encoder = TextEncoder(load_target(code_object.processor),
                                  encoder_for(code_object.processor))
            functions = {op.sym_name.data: FunctionResult(dict(op.properties),
                                                          dict(op.attributes),
                                                          encoder.encode_apart(op))
                         for op in code_object.body.ops if isinstance(op, FunctionLikeOp)}
    except EmitError as error:
        return ChunkResult({}, {}, (), str(error))
    except (DiagnosticException, VerifyException) as error:
        return ChunkResult({}, {}, (), one_line(error))
    return ChunkResult(functions, dict(code_object.properties), _other_ops(code_object))


#: Chunks each worker's run is cut into (see :mod:`~luthier.drivers.work_sharing`): more
#: lets the workers finish closer together; each costs a copy of the rest of the module,
#: the compilation of the hooks, and the allocations that a worker makes again because
#: another worker took the chunk that made them.
CHUNKS_PER_WORKER = 8


def plan_split(module: ModuleOp, jobs: int,
               min_instructions: int = MIN_INSTRUCTIONS) -> SplitPlan | None:
    """How ``jobs`` workers would share ``module``'s functions; None (nothing to split)
    when the module is not one code object, inserts nothing (the tool's ``instr.insert``
    ops sit beside the code object), has one group, has fewer than ``min_instructions``,
    or this process may not start workers (it is a daemon: a worker of a pool itself)."""
    code_objects = [op for op in module.ops if isinstance(op, CodeObjectOp)]
    if jobs < 2 or len(code_objects) != 1 or multiprocessing.current_process().daemon \
            or not any(isinstance(op, InsertOp) for op in module.ops):
        return None
    groups = function_groups(code_objects[0])
    if len(groups) < 2 or sum(group.instructions for group in groups) < min_instructions:
        return None
    chunks: list[list[FunctionGroup]] = []
    starts: list[int] = []
    for run in balanced_bins(groups, jobs):
        starts.append(len(chunks))
        chunks += balanced_bins(run, CHUNKS_PER_WORKER)
    return SplitPlan(
        tuple(tuple(function for group in chunk for function in group.functions)
              for chunk in chunks),
        tuple(sum(group.instructions for group in chunk) for chunk in chunks),
        tuple(starts))


def instrument_in_workers(ctx: Context, module: ModuleOp, plan: SplitPlan,
                          name: str) -> dict[str, EncodedFunction]:
    """Lower and finalize ``module``'s hooks (merged into it, not inserted yet) in
    ``plan.workers`` worker processes, chunk by chunk as :class:`ChunkSchedule` hands them
    out; ``module`` is then finalized (its functions' bodies are not changed: their code is
    returned, to be emitted as given). Raises :class:`SplitError`."""
    try:
        with timed("check-insertions"):
            check_insertions(module)  # what insert-hooks says of the whole object
    except (DiagnosticException, VerifyException) as error:
        raise SplitError(one_line(error)) from None
    context = multiprocessing.get_context("fork")
    progress: SimpleQueue[_Message] | None = context.SimpleQueue() if watched() else None
    _JOB.append(_Job(ctx, module, plan.chunks, plan.workers, progress))
    shown = _Shown(plan.workers)
    schedule = ChunkSchedule(plan.weights, plan.starts)
    done = stage("instrument", sum(plan.weights), "instruction")
    workers: list[BaseProcess] = []
    connections: dict[Connection, int] = {}
    working: dict[int, int] = {}  # worker -> its chunk
    results: list[ChunkResult | None] = [None] * len(plan.chunks)
    failed: int | None = None  # the first chunk whose result is an error
    timings: list[StageTime | None] = [None] * plan.workers
    try:
        # One process per worker, forked with the lifted module; a worker stops when it is
        # sent None.
        for worker in range(plan.workers):
            mine, theirs = context.Pipe()
            process = context.Process(target=_child, args=(worker, theirs), daemon=True)
            process.start()
            theirs.close()
            workers.append(process)
            connections[mine] = worker
            working[worker] = schedule.first(worker)
            mine.send(working[worker])
        while connections:
            for ready in wait(list(connections), timeout=PROGRESS_SECONDS):
                assert isinstance(ready, Connection)
                worker = connections[ready]
                try:
                    message = ready.recv()
                except EOFError:
                    chunk = working.get(worker)
                    where = f"@{plan.chunks[chunk][0]} and the functions after it" \
                        if chunk is not None else "its chunks"
                    raise SplitError(f"{name}: a worker process {_death(workers[worker])} "
                                     f"while instrumenting {where}; try --jobs 1") from None
                if isinstance(message, _Finished):
                    timings[worker] = message.timings
                    del connections[ready]
                    ready.close()
                    continue
                chunk = working.pop(worker)
                result = results[chunk] = cast(ChunkResult, message)
                done.advance(plan.weights[chunk])
                if result.error is not None and (failed is None or chunk < failed):
                    failed = chunk
                following = schedule.next(chunk)
                # After a failure only the chunks before it matter: the first failure in
                # layout order is the one a single process reports.
                while following is not None and failed is not None and following > failed:
                    following = schedule.next(following)
                if following is not None:
                    working[worker] = following
                ready.send(following)
            while progress is not None and not progress.empty():
                shown.show(progress.get())
    finally:
        _JOB.clear()
        shown.close()
        done.close()
        for process in workers:
            if process.is_alive():
                process.kill()
            process.join()
        for connection in connections:
            connection.close()
        if progress is not None:
            progress.close()
    for stages in timings:  # in worker order, whichever finished first
        if stages is not None:
            adopt(stages)
    finished = [result for result in results if result is not None]
    if failed is not None:
        raise SplitError(f"{name}: {next(result.error for result in finished if result.error)}")
    assert len(finished) == len(results)
    with timed("merge"):
        export_tool_globals(module)
        return _merge(_code_object(module), plan.chunks, finished, name)


def _death(worker: BaseProcess) -> str:
    """How a worker that sent nothing ended, for the message that reports it."""
    worker.join(timeout=5)
    code = worker.exitcode
    if code is not None and code < 0:
        try:
            signal_name = signal.Signals(-code).name
        except ValueError:
            signal_name = f"signal {-code}"
        return f"was killed by {signal_name} (out of memory?)"
    if code == 1:
        return "failed with an internal error (its traceback is above)"
    return "died" if code is None else f"exited with status {code}"


def _merge(code_object: CodeObjectOp, functions: Sequence[Sequence[str]],
           results: Sequence[ChunkResult], name: str) -> dict[str, EncodedFunction]:
    """Give ``code_object`` what the workers changed; their code, by function."""
    others = _other_ops(code_object)
    properties = dict(code_object.properties)
    properties.pop("metadata", None)
    metadata = code_object.metadata
    owner: dict[str, FunctionResult] = {}
    for names, result in zip(functions, results, strict=True):
        finalized = dict(result.code_object)
        their_metadata = finalized.pop("metadata", None)
        if result.others != others or finalized != properties \
                or (metadata is None) != (their_metadata is None):
            raise SplitError(f"{name}: the workers changed the code object beyond their "
                             "functions; try --jobs 1")
        for function in names:
            owner[function] = result.functions[function]
    for op in code_object.body.ops:
        if not isinstance(op, FunctionLikeOp):
            continue
        found = owner[op.sym_name.data]
        op.properties.clear()
        op.properties.update(found.properties)
        op.attributes.clear()
        op.attributes.update(found.attributes)
    if metadata is not None:
        code_object.metadata = _merged_metadata(metadata, functions, results, name)
    return {function: found.encoded for function, found in owner.items()}


def _merged_metadata(metadata: DictionaryAttr, functions: Sequence[Sequence[str]],
                     results: Sequence[ChunkResult], name: str) -> DictionaryAttr:
    """The metadata with each kernel's entry as its worker left it; the rest of it must be
    what every worker left."""
    entries: dict[str, Attribute] = {}
    rest = {key: value for key, value in metadata.data.items() if key != KERNELS_KEY}
    for names, result in zip(functions, results, strict=True):
        theirs = result.code_object["metadata"]
        assert isinstance(theirs, DictionaryAttr)
        if {key: value for key, value in theirs.data.items()
                if key != KERNELS_KEY} != rest:
            raise SplitError(f"{name}: the workers changed the metadata beyond their "
                             "kernels; try --jobs 1")
        found = kernel_entries(theirs)
        entries.update({kernel: found[kernel][1] for kernel in names if kernel in found})
    return with_kernel_entries(metadata, {index: entries[kernel] for kernel, (index, _)
                                          in kernel_entries(metadata).items()
                                          if kernel in entries})
