"""``run_kernel``: run one kernel of a code object (a file, a read code object, lifted IR or
a compiled :class:`~luthier.emulator.program.Program`) on arguments, get the buffers back.

Arguments are given in the kernel's order: NumPy arrays are buffers (copied into the
emulator's global memory, copied back after the run), Python ints/floats and NumPy scalars
are by-value arguments (``bytes`` for a by-value struct, as laid out in memory). The result
holds every buffer argument's final contents, the code object's global variables, and the
instructions each wave executed.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union, cast

import numpy as np
import numpy.typing as npt

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.emulator.dispatch import DispatchSetup, dispatch
from luthier.emulator.errors import EmulationError
from luthier.emulator.kernarg import LaunchShape, build_segment, explicit_specs, pack_scalar
from luthier.emulator.memory import GlobalMemory
from luthier.emulator.program import Program, compile_program
from luthier.emulator.trace import ExecutionTrace, traced_steps

if TYPE_CHECKING:
    from luthier.frontend.codeobj.model import CodeObject

#: One kernel argument: a buffer (array) or a by-value scalar.
KernelArgument = Union[npt.NDArray[Any], int, float, np.generic, bytes]  # noqa: UP007

Dim3 = tuple[int, int, int]

#: Default per-lane scratch for kernels with a dynamic stack (recursion, indirect calls).
DYNAMIC_STACK_BYTES = 16 * 1024
#: Default limit of instructions per wave (catches kernels that never end).
MAX_INSTRUCTIONS = 50_000_000
#: Default limit of instructions of a whole launch, all waves together: a billion is half
#: an hour to two hours of emulation at the 150k-600k instructions per second the emulator
#: runs (bench/bench_emulator.py), past which a run is a mistake (a grid meant for a GPU)
#: more often than a wish; the per-wave limit cannot catch it when every wave ends.
MAX_LAUNCH_INSTRUCTIONS = 1_000_000_000
#: Work-items per dimension a dispatch packet holds (a u32).
MAX_GRID_ITEMS = 0xFFFFFFFF
#: Work-items per workgroup on every supported target.
MAX_WORKGROUP_ITEMS = 1024
#: LDS bytes a workgroup can have (64 KiB on gfx9).
MAX_LDS_BYTES = 65536
#: Scratch bytes per lane the hardware can give a wave64 (its scratch wave size field
#: counts 1 KiB units in 13 bits: about 8 MiB per wave).
MAX_SCRATCH_PER_LANE = 8191 * 1024 // 64


@dataclass
class RunResult:
    """What a run produced."""

    #: Final contents of each buffer argument, by argument position (None for scalars).
    buffers: list[npt.NDArray[Any] | None]
    #: Final bytes of the code object's global variables, by symbol.
    globals: dict[str, bytes] = field(default_factory=lambda: dict[str, bytes]())
    #: Instructions executed by each wave, in dispatch order (workgroup, then wave).
    wave_instructions: list[int] = field(default_factory=lambda: list[int]())
    wave_size: int = 64
    #: What the run executed, per instruction (``run_kernel(..., trace=True)``), else None.
    trace: ExecutionTrace | None = None
    #: The run's global memory as it ended: where each buffer and variable was placed, to
    #: name an address by buffer and offset (addresses differ between the original and an
    #: instrumented code object, whose longer text moves the variables and buffers).
    memory: GlobalMemory | None = None
    #: The target the kernel ran as (``gfx90a``...).
    processor: str = ""

    @property
    def instructions(self) -> int:
        return sum(self.wave_instructions)

    def global_values(self, name: str, dtype: npt.DTypeLike | None = None,
                      count: int | None = None) -> npt.NDArray[Any]:
        """The values of global ``name`` after the run (a tool's counters), as ``dtype``
        (default: u64 when its size is a multiple of 8, else the widest unsigned type that
        divides it), the first ``count`` of them (default: all). An unknown name, or a
        count or type that does not fit the global's bytes, is an :class:`EmulationError`."""
        data = self.globals.get(name)
        if data is None:
            raise EmulationError(f"no global named '{name}' (globals: "
                                 f"{', '.join(sorted(self.globals)) or 'none'})")
        kind = np.dtype(dtype) if dtype is not None else default_global_type(len(data))
        spelled = f"{kind.kind}{8 * kind.itemsize}"  # u64, as luthier-run's types are named
        available = len(data) // kind.itemsize
        if count is None and len(data) % kind.itemsize:
            raise EmulationError(f"global '{name}' is {len(data)} bytes, not a whole number "
                                 f"of {spelled} values: give a count")
        wanted = available if count is None else count
        if not 0 <= wanted <= available:
            raise EmulationError(f"global '{name}' is {len(data)} bytes: it holds "
                                 f"{available} {spelled} value"
                                 f"{'' if available == 1 else 's'}, not {wanted}")
        return np.frombuffer(data, kind, wanted).copy()

    def opcode_counts(self, name: str) -> dict[str, int]:
        """Global ``name`` read as a per-opcode table of u64 counts (what a hook indexed by
        ``#instr.site<"opcode">`` fills, such as ``examples/hooks/opcode_histogram``): each
        opcode that counted, by mnemonic, most counted first (ties by mnemonic)."""
        from luthier.frontend.hooks.opcodes import opcode_names

        counts = self.global_values(name, np.uint64)
        names = opcode_names(self.processor, self.wave_size) if self.processor else []
        found: dict[str, int] = {}
        for index in np.flatnonzero(counts).tolist():
            label = names[index] if index < len(names) else f"opcode {index}"
            found[label] = found.get(label, 0) + int(counts[index])
        return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))

    @property
    def waves(self) -> int:
        return len(self.wave_instructions)


def default_global_type(size: int) -> np.dtype[Any]:
    """How a global of ``size`` bytes is read when no type is given: counters are u64."""
    for kind in (np.uint64, np.uint32, np.uint16):
        if size and size % np.dtype(kind).itemsize == 0:
            return np.dtype(kind)
    return np.dtype(np.uint8)


def _dim3(value: int | tuple[int, ...] | list[int], what: str) -> Dim3:
    parts: list[object] = [value] if isinstance(value, int) else list(value)
    if not 1 <= len(parts) <= 3 or any(not isinstance(p, int) or p <= 0 for p in parts):
        raise EmulationError(f"{what} must be 1 to 3 positive integers, got {value!r}")
    padded = [int(cast(int, p)) for p in parts] + [1, 1]
    return padded[0], padded[1], padded[2]


def load_program(code: str | Path | Any, *, offload_arch: str | None = None,
                 kernel: str | None = None) -> Program:
    """A compiled program from a path, a read code object, lifted IR or a program.

    A path may name a bundle or a host binary with a fat binary: ``offload_arch`` chooses
    the entry, and of a fat binary with one bundle per translation unit, the one holding
    ``kernel`` is taken."""
    if isinstance(code, Program):
        return code
    if isinstance(code, CodeObjectOp):
        return compile_program(code)
    from luthier.frontend.codeobj.reader import read_code_objects
    from luthier.frontend.lift import LiftError, lift_code_object

    code_object: CodeObject
    if isinstance(code, str | Path):
        path = Path(code)
        if not path.is_file():
            raise EmulationError(f"{path}: no such file")
        if path.suffix == ".mlir":
            return compile_program(parse_ir(path))
        try:
            found = read_code_objects(path, offload_arch=offload_arch)
        except Exception as error:  # the reader's errors are many; say which file
            raise EmulationError(f"{path}: cannot read the code object: {error}") from None
        code_object = found[0]
        if len(found) > 1 and kernel is not None:
            code_object = next((each for each in found if each.has_kernel(kernel)), code_object)
    else:
        code_object = code
    try:
        module = lift_code_object(code_object).module
    except LiftError as error:
        raise EmulationError(str(error)) from None
    return compile_program(module)


def parse_ir(path: Path) -> CodeObjectOp:
    """The ``amdgpu_mc.code_object`` of an IR file (``luthier-opt --lift ... -o x.mlir``, or
    the output of instrumentation passes)."""
    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError

    from luthier.amdgpu_dialects.dialects import LUTHIER_DIALECTS

    context = Context()
    context.load_dialect(Builtin)
    for name, factory in LUTHIER_DIALECTS.items():
        context.register_dialect(name, factory)
    try:
        module = Parser(context, path.read_text(), str(path)).parse_module()
    except ParseError as error:
        first = str(error).strip().splitlines()
        raise EmulationError(f"{path}: cannot parse the IR: {first[-1] if first else error}") \
            from None
    found = [op for op in module.walk() if isinstance(op, CodeObjectOp)]
    if len(found) != 1:
        raise EmulationError(f"{path}: expected one amdgpu_mc.code_object, found {len(found)}")
    return found[0]


def run_kernel(code: str | Path | Any, kernel: str, grid: int | tuple[int, ...],
               block: int | tuple[int, ...], args: list[KernelArgument], *,
               dynamic_lds: int = 0, scratch_per_lane: int | None = None,
               max_instructions: int = MAX_INSTRUCTIONS,
               max_launch_instructions: int = MAX_LAUNCH_INSTRUCTIONS,
               trace: bool = False) -> RunResult:
    """Run ``kernel`` over ``grid`` workgroups of ``block`` work-items (HIP's gridDim and
    blockDim) with ``args``, and return the buffers and instruction counts; with ``trace``,
    also what each instruction executed (:class:`~luthier.emulator.trace.ExecutionTrace`),
    which slows the run down, so it is off unless asked for. A wave stops after
    ``max_instructions`` and the launch after ``max_launch_instructions`` (all waves
    together), each with a one-line :class:`EmulationError` saying where. Workgroups are
    announced as a progress stage (:func:`luthier.lowering.progress.reporting` shows it)."""
    program = load_program(code)
    info = program.kernels.get(kernel)
    if info is None:
        raise EmulationError(f"no kernel named {kernel} (kernels: "
                             f"{', '.join(sorted(program.kernels)) or 'none'})")
    grid3, block3 = _dim3(grid, "grid"), _dim3(block, "block")
    _check_launch(kernel, info, grid3, block3, dynamic_lds, scratch_per_lane, max_instructions,
                  max_launch_instructions)
    memory = GlobalMemory()
    globals_ = program.map_globals(memory)
    specs = explicit_specs(info.metadata)
    if len(args) != len(specs):
        raise EmulationError(f"kernel {kernel} takes {len(specs)} arguments, got {len(args)}")
    packed: list[bytes] = []
    buffers: list[tuple[int, Any, npt.NDArray[Any]]] = []
    for position, (spec, value) in enumerate(zip(specs, args, strict=True)):
        where = f"argument {position} of {kernel}"
        if isinstance(value, np.ndarray):
            array = np.ascontiguousarray(value)
            buffer = memory.allocate(array.nbytes, f"arg{position}",
                                     array.view(np.uint8).reshape(-1))
            buffers.append((position, buffer, array))
            packed.append(struct.pack("<Q", buffer.base))
        elif isinstance(value, np.generic):
            data = np.asarray(value).tobytes()
            if len(data) != spec.size:
                raise EmulationError(f"{where}: a {value.dtype} is {len(data)} bytes, the "
                                     f"argument {spec.size}")
            packed.append(data)
        else:
            packed.append(pack_scalar(value, spec.size, where))
    queue = memory.allocate(256, "queue")
    shape = LaunchShape(grid3, block3, dynamic_lds, queue.base)
    segment = build_segment(info.metadata, packed, shape, kernel,
                            info.descriptor.kernarg_size)
    kernarg = memory.allocate(len(segment), "kernarg", segment)
    packet = memory.allocate(64, "dispatch_packet", _dispatch_packet(
        grid3, block3, info, dynamic_lds, kernarg.base))
    uses_stack = bool(info.metadata.get(".uses_dynamic_stack", False)) or \
        info.descriptor.kernel_code_properties.uses_dynamic_stack
    scratch = scratch_per_lane if scratch_per_lane is not None else (
        DYNAMIC_STACK_BYTES if uses_stack else 0)
    recorded = ExecutionTrace(program) if trace else None
    setup = DispatchSetup(grid3, block3, kernarg.base, packet.base, queue.base, dynamic_lds,
                          scratch, max_instructions,
                          None if recorded is None else traced_steps(program, recorded),
                          max_launch_instructions)
    dispatched = dispatch(program, kernel, setup, memory)
    out: list[npt.NDArray[Any] | None] = [None] * len(args)
    for position, buffer, array in buffers:
        out[position] = buffer.data[:array.nbytes].view(array.dtype).reshape(
            array.shape).copy()
    final_globals = {name: buffer.data.tobytes() for name, buffer in globals_.items()}
    return RunResult(out, final_globals, dispatched.wave_instructions.tolist(),
                     dispatched.wave_size, recorded, memory, program.processor)


def _check_launch(kernel: str, info: Any, grid: Dim3, block: Dim3, dynamic_lds: int,
                  scratch_per_lane: int | None, max_instructions: int,
                  max_launch_instructions: int) -> None:
    """What the hardware and HIP refuse to launch, refused here in one line before any
    memory is set aside: sizes the dispatch packet cannot hold, a workgroup larger than the
    kernel allows, more LDS or scratch than there is, no step limit."""
    for axis, (groups, items) in zip("xyz", zip(grid, block, strict=True), strict=True):
        if groups * items > MAX_GRID_ITEMS:
            raise EmulationError(f"grid {axis}: {groups} workgroups of {items} work-items "
                                 f"is {groups * items} work-items, more than the "
                                 f"{MAX_GRID_ITEMS} a dispatch holds")
    threads = block[0] * block[1] * block[2]
    allowed = int(info.metadata.get(".max_flat_workgroup_size", MAX_WORKGROUP_ITEMS))
    if threads > min(allowed, MAX_WORKGROUP_ITEMS):
        raise EmulationError(f"a workgroup of {threads} work-items is more than kernel "
                             f"{kernel} allows ({min(allowed, MAX_WORKGROUP_ITEMS)}, its "
                             ".max_flat_workgroup_size)")
    lds = info.descriptor.group_segment_fixed_size
    if dynamic_lds < 0 or lds + dynamic_lds > MAX_LDS_BYTES:
        raise EmulationError(f"dynamic LDS of {dynamic_lds} bytes: give 0 to "
                             f"{max(0, MAX_LDS_BYTES - lds)} (kernel {kernel} uses {lds} of "
                             f"the {MAX_LDS_BYTES} bytes a workgroup has)")
    for what, size in (("the kernel's private segment", info.descriptor.private_segment_fixed_size),
                       ("scratch per lane", scratch_per_lane or 0)):
        if not 0 <= size <= MAX_SCRATCH_PER_LANE:
            raise EmulationError(f"{what} of {size} bytes: at most {MAX_SCRATCH_PER_LANE} "
                                 "bytes per lane")
    if max_instructions < 1:
        raise EmulationError(f"a limit of {max_instructions} instructions per wave: give at "
                             "least 1")
    if max_launch_instructions < 1:
        raise EmulationError(f"a launch budget of {max_launch_instructions} instructions: "
                             "give at least 1")


def _dispatch_packet(grid: Dim3, block: Dim3, info: Any, dynamic_lds: int,
                     kernarg: int) -> bytes:
    """An ``hsa_kernel_dispatch_packet_t``: sizes in work-items, as the packet holds them."""
    dimensions = 3 if grid[2] > 1 or block[2] > 1 else 2 if grid[1] > 1 or block[1] > 1 \
        else 1
    return struct.pack(
        "<HHHHHHIIIIIQQQQ", 0, dimensions, block[0], block[1], block[2], 0,
        grid[0] * block[0], grid[1] * block[1], grid[2] * block[2],
        info.descriptor.private_segment_fixed_size,
        info.descriptor.group_segment_fixed_size + dynamic_lds, 0, kernarg, 0, 0)
