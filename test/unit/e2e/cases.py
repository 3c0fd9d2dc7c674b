"""The launch table of the end-to-end suite: every kernel of the instrumented corpus objects,
with arguments that exercise it and a grid small enough to emulate instrumented.

The setups are those of ``test/unit/emulator/test_corpus_*.py`` (same argument kinds and
meanings), shrunk to one or two workgroups: the instrumented kernel runs a payload before
every instruction, so it executes ten to twenty times what the original does. Arguments
are built by a function seeded per kernel, so the original and the instrumented run get
the same bytes, and a failure reproduces.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from luthier.emulator import KernelArgument

F32 = np.float32
Rng = np.random.Generator
ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Launch:
    """One kernel launch: which kernel, its grid and block, and how to make its arguments."""

    obj: str
    kernel: str
    grid: int
    block: int
    build: Callable[[Rng], list[KernelArgument]]
    dynamic_lds: int = 0
    #: The targets whose code object has this kernel; None: every one of ``TARGETS``. The
    #: corpus source leaves a kernel out where the hardware lacks its instruction (gfx908 has
    #: no f64 MFMA), and this field says so, so no target is dropped silently.
    targets: tuple[str, ...] | None = None

    @property
    def id(self) -> str:
        return f"{self.obj}.{self.kernel}"

    def runs_on(self, target: str) -> bool:
        """Whether ``target``'s code object has this kernel."""
        return self.targets is None or target in self.targets

    def arguments(self) -> list[KernelArgument]:
        """Fresh arguments, the same for every call."""
        return self.build(np.random.default_rng(zlib.crc32(self.id.encode())))


def _f32(rng: Rng, n: int) -> npt.NDArray[Any]:
    return rng.standard_normal(n).astype(F32)


def _i32(rng: Rng, low: int, high: int, n: int) -> npt.NDArray[Any]:
    return rng.integers(low, high, n).astype(np.int32)


def _small(rng: Rng, n: int, dtype: type[np.generic]) -> npt.NDArray[Any]:
    """Small integers (exact in any float type): MFMA sums compare bit for bit."""
    return rng.integers(-4, 5, n).astype(dtype)


def _zeros(n: int, dtype: type[np.generic] = F32) -> npt.NDArray[Any]:
    return np.zeros(n, dtype)


CONTROL_FLOW = [
    Launch("control_flow", "counted_loop", 2, 64, lambda r: [_f32(r, 128), _zeros(128), 3]),
    Launch("control_flow", "data_dependent_loop", 2, 64,
           lambda r: [_i32(r, 1, 60, 128), _zeros(128, np.int32)]),
    Launch("control_flow", "unrolled_loop", 1, 64, lambda r: [_f32(r, 64 * 8), _zeros(64)]),
    Launch("control_flow", "grid_stride_loop", 2, 64,
           lambda r: [_f32(r, 300), _zeros(300), 300]),
    Launch("control_flow", "if_else_tid", 2, 64,
           lambda r: [_f32(r, 512), _f32(r, 128), _zeros(256), 128]),
    Launch("control_flow", "nested_branches", 2, 64,
           lambda r: [_i32(r, -50, 50, 128), _zeros(128, np.int32), 10]),
    Launch("control_flow", "early_return", 1, 128,
           lambda r: [_f32(r, 128), np.full(128, 9.0, F32), 100]),
    Launch("control_flow", "switch_dispatch", 2, 64,
           lambda r: [_i32(r, 0, 7, 128), np.abs(_f32(r, 128)), _zeros(128)]),
]

CALLS = [
    Launch("calls", "call_device_function", 2, 64,
           lambda r: [_f32(r, 128), _zeros(128), 0.75, -0.5]),
    Launch("calls", "call_two_functions", 2, 64,
           lambda r: [_i32(r, -1000, 1000, 128), _zeros(128, np.int32), _zeros(128), 5]),
    # fib(in & 15) recursively: small inputs keep the divergent recursion short
    Launch("calls", "recursive_call", 1, 64,
           lambda r: [_i32(r, 0, 7, 64), _zeros(64, np.int32)]),
    Launch("calls", "indirect_call_table", 2, 64,
           lambda r: [_i32(r, 0, 100, 128), _f32(r, 128), _zeros(128)]),
    Launch("calls", "indirect_call_select", 2, 64, lambda r: [1, _f32(r, 129), _zeros(128)]),
]

ATOMICS = [
    Launch("atomics", "atomic_add_int", 2, 64,
           lambda r: [_i32(r, -1000, 1000, 128), _zeros(1, np.int32)]),
    Launch("atomics", "atomic_add_u64_returning", 2, 64,
           lambda r: [r.integers(0, 2**40, 128).astype(np.uint64), np.array([5], np.uint64),
                      _zeros(128, np.uint64)]),
    Launch("atomics", "atomic_fadd_native", 2, 64,
           lambda r: [_small(r, 128, F32), _zeros(1)]),
    Launch("atomics", "atomic_cas_loop", 2, 64,
           lambda r: [_f32(r, 128), np.array([-np.inf], F32)]),
    Launch("atomics", "atomic_min_max_xchg", 2, 64,
           lambda r: [_i32(r, -10**6, 10**6, 128), np.array([2**31 - 1], np.int32),
                      np.array([-2**31], np.int32), _zeros(1, np.int32)]),
    Launch("atomics", "wave_aggregated_count", 2, 64,
           lambda r: [(r.random(128) < 0.3).astype(np.int32), _zeros(1, np.uint32)]),
]

LDS = [
    # the reductions index buf[t + s] up to 255 and 63: blocks of 256 and 64
    Launch("lds", "block_reduce_sum", 1, 256, lambda r: [_f32(r, 256), _zeros(1), 200]),
    Launch("lds", "block_reduce_max_int", 2, 64,
           lambda r: [_i32(r, -10**6, 10**6, 128), _zeros(2, np.int32)]),
    # one 16x16 tile: width 16, one workgroup of 256
    Launch("lds", "transpose_tile", 1, 256, lambda r: [_f32(r, 256), _zeros(256), 16]),
    Launch("lds", "dynamic_shared_scan", 1, 128, lambda r: [_f32(r, 128), _zeros(128), 100],
           dynamic_lds=4 * 128),
    Launch("lds", "lds_histogram", 1, 256,
           lambda r: [r.integers(0, 256, 600).astype(np.uint8), _zeros(256, np.uint32), 600]),
]

MFMA = [
    Launch("mfma", "mfma_f32_32x32x2f32", 1, 64,
           lambda r: [_small(r, 256, F32), _small(r, 256, F32), _zeros(64 * 16)]),
    Launch("mfma", "mfma_f32_16x16x4f32", 1, 64,
           lambda r: [_small(r, 64, F32), _small(r, 64, F32), _zeros(256)]),
    Launch("mfma", "mfma_f64_16x16x4f64", 1, 64,
           lambda r: [_small(r, 64, np.float64), _small(r, 64, np.float64),
                      _zeros(256, np.float64)],
           targets=("gfx90a", "gfx942")),  # gfx908 has no f64 MFMA
    Launch("mfma", "mfma_f32_32x32x8f16", 1, 64,
           lambda r: [_small(r, 256, np.float16), _small(r, 256, np.float16),
                      _zeros(64 * 16)]),
    # bf16 bits of small integers: the high halves of their float32 encodings
    Launch("mfma", "mfma_bf16_1k", 1, 64,
           lambda r: [(_small(r, 256, F32).view(np.uint32) >> 16).astype(np.uint16),
                      (_small(r, 256, F32).view(np.uint32) >> 16).astype(np.uint16),
                      _zeros(256)]),
    Launch("mfma", "mfma_i8", 1, 64,
           lambda r: [r.integers(-2**63, 2**63 - 1, 64, dtype=np.int64),
                      r.integers(-2**63, 2**63 - 1, 64, dtype=np.int64),
                      _zeros(256, np.int32)]),
    Launch("mfma", "mfma_agpr_accumulator", 1, 64,
           lambda r: [_small(r, 192, F32), _small(r, 192, F32), _zeros(256), 3]),
]

GLOBALS = [
    Launch("globals", "read_global", 2, 64, lambda r: [_f32(r, 128), _zeros(128)]),
    Launch("globals", "write_global", 2, 64, lambda r: [np.array([41], np.int32)]),
    Launch("globals", "global_table_lookup", 2, 64,
           lambda r: [_i32(r, 0, 1000, 128), _zeros(128)]),
    Launch("globals", "constant_coefficients", 2, 64,
           lambda r: [_i32(r, -1000, 1000, 136), _zeros(128, np.int32)]),
]

ELEMENTWISE = [
    Launch("elementwise", "vector_add", 2, 64,
           lambda r: [_f32(r, 128), _f32(r, 128), np.full(128, -7.0, F32), 100]),
    Launch("elementwise", "saxpy", 1, 128, lambda r: [1.7, _f32(r, 128), _f32(r, 128), 100]),
    Launch("elementwise", "daxpy", 1, 64,
           lambda r: [3.141592653589793, r.standard_normal(64), r.standard_normal(64), 64]),
    Launch("elementwise", "int_mix", 2, 64,
           lambda r: [_i32(r, -2**31, 2**31, 128),
                      r.integers(-2**63, 2**63 - 1, 128, dtype=np.int64),
                      _zeros(128, np.int64), 5]),
    Launch("elementwise", "many_args", 1, 128,
           lambda r: [_zeros(128), _f32(r, 128), 3, -4, 5, 6, 0x55, 0x0F, 100, 30,
                      1 << 40, -(1 << 39), 0.5, 1.25, -2.0, 0.75, 1.5, -2.25,
                      _i32(r, -100, 100, 16), _i32(r, -100, 100, 16), 100]),
]

def _nonzero_divisors(rng: Rng, n: int) -> npt.NDArray[Any]:
    """Divisors for signed_unsigned: never 0, never -1 (the dividends include INT_MIN)."""
    values = _i32(rng, -2**31, 2**31, n)
    values[(values == 0) | (values == -1)] = 3
    return values


EDGES = [
    # Work-items 1000..1087 read 1000 elements below and above themselves (offset:-4000).
    Launch("edges", "stencil_1d", 17, 64, lambda r: [_f32(r, 2100), _zeros(2100), 2100]),
    Launch("edges", "narrow_halo", 1, 64,
           lambda r: [r.integers(-128, 128, 64).astype(np.int8),
                      r.integers(0, 256, 64).astype(np.uint8),
                      r.integers(-32768, 32768, 64).astype(np.int16),
                      r.integers(0, 65536, 64).astype(np.uint16),
                      _zeros(256, np.int32), _zeros(64, np.int8), _zeros(64, np.int16), 64]),
    Launch("edges", "signed_unsigned", 1, 64,
           lambda r: [_i32(r, -2**31, 2**31, 64), _nonzero_divisors(r, 64),
                      _zeros(512, np.int32), 64]),
    Launch("edges", "wide_edges", 1, 64,
           lambda r: [r.integers(-2**63, 2**63 - 1, 64, dtype=np.int64),
                      r.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32),
                      _zeros(384, np.int64), 64]),
    Launch("edges", "wave_reduce", 1, 64,
           lambda r: [_i32(r, -2**24, 2**24, 64), _zeros(1, np.int32), _zeros(1, np.int32),
                      _zeros(1, np.int64)]),
]

SCRATCH = [
    # Private arrays in scratch, indexed at run time (test_corpus_memory.py's setups).
    Launch("scratch", "private_array", 2, 64,
           lambda r: [_i32(r, 0, 1000, 128), _f32(r, 128 * 32), _zeros(128)]),
    Launch("scratch", "private_sort", 1, 64,
           lambda r: [_i32(r, -100, 100, 64 * 16), _zeros(64 * 16, np.int32)]),
    # A stack object passed to a callee: the kernel sets up a stack pointer for the call.
    Launch("scratch", "private_array_via_call", 1, 64,
           lambda r: [_small(r, 128, F32), _zeros(64), 20, 3]),
]

#: Every launch of the suite, in code-object order.
LAUNCHES: list[Launch] = [*CONTROL_FLOW, *CALLS, *ATOMICS, *LDS, *MFMA, *GLOBALS, *ELEMENTWISE,
                          *EDGES, *SCRATCH]
#: The instrumented code objects (``test/corpus/kernels/<object>.<target>.co``, RDNA's in
#: ``test/corpus/rdna``: every theme but ``mfma``, which RDNA lacks).
OBJECTS = ("control_flow", "calls", "atomics", "lds", "mfma", "globals", "elementwise",
           "edges", "scratch")
TARGETS = ("gfx908", "gfx90a", "gfx942")
#: RDNA2, 3 and 4, each in wave32 (HIP's default) and wave64 (``.w64``: -mwavefrontsize64).
RDNA_TARGETS = ("gfx1030", "gfx1030.w64", "gfx1100", "gfx1100.w64", "gfx1201", "gfx1201.w64")
#: Every (launch, target) pair the suite runs: each launch on each target that has its kernel.
LAUNCH_TARGETS: list[tuple[Launch, str]] = [
    (launch, target) for launch in LAUNCHES for target in TARGETS if launch.runs_on(target)]


def corpus_file(obj: str, target: str) -> Path:
    """The corpus code object ``<obj>.<target>.co`` of a CDNA or RDNA target."""
    folder = "kernels" if target in TARGETS else "rdna"
    return ROOT / "test" / "corpus" / folder / f"{obj}.{target}.co"


def processor(target: str) -> str:
    """The processor of a corpus target name (``gfx1100.w64`` -> ``gfx1100``)."""
    return target.split(".")[0]


def objects_of(target: str) -> tuple[str, ...]:
    """The corpus objects compiled for ``target``."""
    return OBJECTS if target in TARGETS else tuple(obj for obj in OBJECTS if obj != "mfma")
#: The example hooks (``examples/hooks/<hook>.mlir``): three that need no kernel state,
#: and kernarg_reader, which reads it through the State Value Array.
HOOKS = ("instr_count", "opcode_histogram", "memory_trace", "kernarg_reader")
