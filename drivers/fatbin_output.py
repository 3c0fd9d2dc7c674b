"""Instrument the device code of a fat binary or a host binary and write the same kind of file.

A user instruments a library by swapping the file: ``luthier-opt librocrand.so --hooks
h.mlir --inline-hooks --emit-preamble -o out/librocrand.so``, then ``LD_LIBRARY_PATH=out``.
So the output is the input with only the selected device code objects replaced:

* ``--emit=fatbin`` (``-o x.hipfb``/``x.fatbin``): an offload bundle, from a bundle file or
  from a host binary whose fat binary is one bundle;
* ``--emit=host`` (``-o x.so``): the host binary, every host section byte-identical but for
  what points at the fat binary (:mod:`luthier.lowering.elf.host_binary`).

Each selected entry (every device entry, or those ``--offload-arch`` names; with ``--kernel``
those holding one of the named kernels) goes through the same lift, lowering and emission as
a code object given alone (:func:`~luthier.drivers.pipeline.instrument_bytes`), so its bytes
are those ``-o x.co`` would write for it. A bundle with no selected entry keeps its bytes;
one with a selected entry is packed again alike (entry order and alignment, compression).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from io import StringIO

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.printer import Printer

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.amdgpu_dialects.instr.ops import InsertOp
from luthier.amdgpu_dialects.isa.target import LIFT_TARGETS, SUPPORTED_TARGETS
from luthier.amdgpu_dialects.target.target_id import EM_AMDGPU, TargetRequest
from luthier.drivers.batch import Task, local_engine, run_batch
from luthier.frontend.codeobj.bundle import (
    BundleEntry,
    OffloadBundle,
    fatbin_section,
    is_bundle,
    parse_bundle,
    repack_fatbin,
    split_fatbin,
)
from luthier.frontend.codeobj.elf import elf_machine, read_elf
from luthier.lowering.elf.host_binary import replace_fatbin
from luthier.lowering.progress import stage

#: ``--emit`` formats this module writes.
CONTAINER_FORMATS = ("fatbin", "host")


class ContainerError(LuthierError):
    """An input or a selection this module cannot write back (one line, exit 1)."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")


@dataclass(frozen=True)
class _Container:
    """A fat binary to rewrite: the whole input, its fat binary and that one's bundles."""

    data: bytes
    fatbin: bytes
    bundles: tuple[OffloadBundle, ...]
    is_host: bool


@dataclass(frozen=True)
class _Selected:
    bundle: int
    entry: BundleEntry
    name: str
    #: The kernels the hooks are restricted to (function names); None: every kernel.
    kernels: tuple[str, ...] | None


def _read(data: bytes, name: str) -> _Container:
    if is_bundle(data):
        return _Container(data, data, (parse_bundle(data, name),), is_host=False)
    machine = elf_machine(data)
    if machine is None or machine == EM_AMDGPU:
        kind = "an AMDGPU code object" if machine == EM_AMDGPU else "not an ELF file or bundle"
        raise ContainerError(name, f"{kind}, not a fat binary or host binary to write back: "
                             "write it with -o X.co")
    fatbin = fatbin_section(data, name)
    if fatbin is None:
        raise ContainerError(name, "a host binary without a .hip_fatbin section: there is no "
                             "device code to instrument")
    return _Container(data, fatbin, split_fatbin(fatbin, f"{name}:.hip_fatbin"), is_host=True)


def _select(container: _Container, name: str, offload_arch: str | None,
            kernels: Sequence[str], instrumenting: bool,
            warn: Callable[[str, str], None]) -> list[_Selected]:
    """The entries to instrument, each with the kernels its hooks are restricted to. Without
    ``offload_arch``, entries of targets luthier does not instrument (or, for an identity
    round trip, lift) are left as they are, named in one warning."""
    targets = SUPPORTED_TARGETS if instrumenting else LIFT_TARGETS
    skipped: list[str] = []
    request = TargetRequest.parse(offload_arch) if offload_arch is not None else None
    if offload_arch is not None and request is None:
        raise ContainerError(name, f"malformed target {offload_arch!r} (--offload-arch)")
    several = len(container.bundles) > 1
    selected: list[_Selected] = []
    for index, bundle in enumerate(container.bundles):
        entries = bundle.device_entries if request is None else bundle.matching(request)
        if request is not None and len(entries) > 1:
            raise ContainerError(bundle.path, f"target {offload_arch!r} matches several "
                                 f"entries ({', '.join(e.id for e in entries)}); name the "
                                 "features too")
        for entry in entries:
            processor = entry.target_id.split(":", 1)[0]
            if request is None and processor not in targets:
                if processor not in skipped:
                    skipped.append(processor)
                continue
            label = f"{bundle.path}{f'#{index}' if several else ''}[{entry.id}]"
            chosen = _kernels_of(entry, label, kernels) if kernels else None
            if chosen != ():
                selected.append(_Selected(index, entry, label, chosen))
    if skipped:
        verb = "instrument" if instrumenting else "lift"
        which = "that target" if len(skipped) == 1 else "those targets"
        warn(name, f"{', '.join(skipped)} device code left as it was: luthier does not {verb} "
             f"{which} yet (only {', '.join(targets)})")
    if not selected:
        held = ", ".join(sorted({entry.id for bundle in container.bundles
                                 for entry in bundle.device_entries})) or "none"
        wanted = f"for target {offload_arch!r}" if offload_arch is not None else ""
        if kernels:
            wanted += f"{' ' if wanted else ''}holds a kernel named {' or '.join(kernels)}"
        raise ContainerError(name, f"no device code object {wanted or 'at all'}; the fat "
                             f"binary holds: {held}")
    return selected


def _kernels_of(entry: BundleEntry, label: str, names: Sequence[str]) -> tuple[str, ...]:
    """The function names of the kernels ``names`` picks in ``entry`` (by function, ``.kd``
    or metadata name); none when it holds none of them."""
    code_object = read_elf(entry.data, label)
    found: list[str] = []
    for name in names:
        if not code_object.has_kernel(name):
            continue
        function = code_object.kernel(name).name
        if function not in found:
            found.append(function)
    return tuple(found)


def _restricted(hooks: ModuleOp, kernels: Sequence[str]) -> ModuleOp:
    """``hooks`` with each insertion confined to ``kernels``: one naming another kernel is
    dropped, one naming none becomes one per kernel."""
    module = hooks.clone()
    for op in list(module.ops):
        if not isinstance(op, InsertOp):
            continue
        if op.kernel is None:
            copies: list[Operation] = []
            for kernel in kernels:
                copy = op.clone()
                copy.kernel = StringAttr(kernel)
                copies.append(copy)
            module.body.block.insert_ops_before(copies, op)
            op.detach()
            op.erase()
        elif op.kernel.data not in kernels:
            op.detach()
            op.erase()
    return module


def _text(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


@dataclass(frozen=True)
class ContainerPlan:
    """A bundle or host binary to write back: what was read, which entries are
    instrumented, and the task of each (plain data: any engine can run them)."""

    name: str
    emit: str
    container: _Container
    selected: tuple[_Selected, ...]
    tasks: tuple[Task, ...]


def plan_container(data: bytes, name: str, emit: str, *,
                   hooks: Callable[[str], ModuleOp] | None, offload_arch: str | None = None,
                   kernels: Sequence[str] = (),
                   warn: Callable[[str, str], None] = lambda where, line: None,
                   prefix: str = "") -> ContainerPlan:
    """Read ``data`` (a bundle or host binary named ``name``), choose its entries and make a
    task per entry (named ``prefix`` + its index) with ``hooks``' MLIR text for its
    processor (None: an identity round trip). What the selection leaves out goes to
    ``warn`` before any work."""
    container = _read(data, name)
    if emit == "host" and not container.is_host:
        raise ContainerError(name, "an offload bundle, not a host binary: write it back with "
                             "-o X.hipfb (or --emit=fatbin)")
    if emit == "fatbin" and len(container.bundles) > 1:
        raise ContainerError(name, f"holds {len(container.bundles)} offload bundles (one per "
                             "translation unit), which one bundle file cannot: write the host "
                             "binary back (--emit=host)")
    selected = _select(container, name, offload_arch, kernels, hooks is not None, warn)
    texts: dict[tuple[str, tuple[str, ...] | None], str] = {}
    tasks: list[Task] = []
    for index, choice in enumerate(selected):
        text: str | None = None
        if hooks is not None:
            processor = choice.entry.target_id.split(":", 1)[0]
            key = (processor, choice.kernels)
            if key not in texts:
                module = hooks(processor)
                texts[key] = _text(module if choice.kernels is None
                                   else _restricted(module, choice.kernels))
            text = texts[key]
        tasks.append(Task(choice.name, f"{prefix}{index}", choice.entry.data, text))
    return ContainerPlan(name, emit, container, tuple(selected), tuple(tasks))


def finish_container(plan: ContainerPlan, outputs: Mapping[str, bytes]) -> bytes:
    """The bundle or host binary of ``plan`` with its tasks' ``outputs`` (by task output
    name) in place of the entries they came from."""
    replaced = {(choice.bundle, choice.entry.id): outputs[task.output]
                for choice, task in zip(plan.selected, plan.tasks, strict=True)}
    container = plan.container
    fatbin, moves = repack_fatbin(container.fatbin, container.bundles, replaced)
    if plan.emit == "fatbin":
        return fatbin
    return replace_fatbin(container.data, plan.name, fatbin, moves)


def instrument_container(data: bytes, name: str, emit: str, *,
                         hooks: Callable[[str], ModuleOp] | None,
                         offload_arch: str | None = None, kernels: Sequence[str] = (),
                         jobs: int = 1,
                         warn: Callable[[str, str], None] = lambda where, line: None) -> bytes:
    """``data`` (a bundle or host binary named ``name``) with its selected device code
    objects instrumented by ``hooks`` (the hooks module for a processor; None: an identity
    round trip of each), written back as ``emit`` says (``fatbin`` or ``host``). What the
    selection leaves out (before any work) and what each code object's pipeline would warn
    about go to ``warn`` (where, what), one line each."""
    plan = plan_container(data, name, emit, hooks=hooks, offload_arch=offload_arch,
                          kernels=kernels, warn=warn)
    warnings: list[tuple[str, str]] = []
    outputs = _run(plan.tasks, jobs, warnings)
    for where, line in warnings:
        warn(where, line)
    return finish_container(plan, outputs)


def _run(tasks: Sequence[Task], jobs: int,
         warnings: list[tuple[str, str]]) -> dict[str, bytes]:
    """Each task's output: one task in this process (its functions in ``jobs`` workers),
    several in ``jobs`` worker processes, one entry each. Their warnings, with the task's
    name, are appended to ``warnings``."""
    from luthier.drivers.batch import BatchError
    from luthier.drivers.pipeline import PipelineError, instrument_bytes

    if len(tasks) == 1:
        task = tasks[0]
        found: list[str] = []
        try:
            data = instrument_bytes(task.data, task.name, task.hooks, jobs, found)
        except PipelineError as error:
            message = str(error)
            if not message.startswith(task.name):
                message = f"{task.name}: {message}"
            raise LuthierError(message) from None
        warnings += [(task.name, line) for line in found]
        return {task.output: data}
    progress = stage("instrument code objects", len(tasks), "object")
    try:
        return run_batch(tasks, local_engine(min(jobs, len(tasks), os.cpu_count() or 1)),
                         lambda _: progress.advance(), warnings)
    except BatchError as error:
        raise LuthierError(str(error)) from None
    finally:
        progress.close()
