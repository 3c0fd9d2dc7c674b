"""Shared helpers of the emulator tests: compiled corpus programs (cached per file) and
exact references for fused multiply-adds."""

from __future__ import annotations

import functools
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from luthier.emulator.api import KernelArgument, RunResult, load_program, run_kernel
from luthier.emulator.program import Program

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "test" / "corpus" / "kernels"
#: The RDNA corpus (test/corpus/rdna): the same themes for gfx1030, gfx1100 and gfx1201.
RDNA_CORPUS = ROOT / "test" / "corpus" / "rdna"
CDNA_TARGETS = ("gfx908", "gfx90a", "gfx942")
#: RDNA2, 3 and 4 as HIP compiles them by default (wave32) and with -mwavefrontsize64.
RDNA_TARGETS = ("gfx1030", "gfx1030.w64", "gfx1100", "gfx1100.w64", "gfx1201", "gfx1201.w64")
TARGETS = (*CDNA_TARGETS, *RDNA_TARGETS)
#: The targets whose waves have 64 lanes (for kernels written for 64-lane waves).
WAVE32_TARGETS = tuple(target for target in RDNA_TARGETS if not target.endswith(".w64"))
WAVE64_TARGETS = tuple(target for target in TARGETS if target not in WAVE32_TARGETS)


def corpus_file(name: str, target: str, suffix: str = "co") -> Path:
    """``<name>.<target>.<suffix>`` of the corpus that holds that target."""
    folder = CORPUS if target.split(".")[0] in CDNA_TARGETS else RDNA_CORPUS
    return folder / f"{name}.{target}.{suffix}"


@functools.cache
def program(name: str, target: str) -> Program:
    return load_program(corpus_file(name, target))


def run(name: str, target: str, kernel: str, grid: int | tuple[int, ...],
        block: int | tuple[int, ...], args: list[KernelArgument], **options: Any) -> RunResult:
    return run_kernel(program(name, target), kernel, grid, block, args, **options)


def out(result: RunResult, position: int) -> npt.NDArray[Any]:
    buffer = result.buffers[position]
    assert buffer is not None
    return buffer


def fma64_exact(a: float, b: float, c: float) -> float:
    """a * b + c rounded once to float64 (Fraction -> float rounds correctly)."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _round_to_f32(exact: Fraction) -> np.float32:
    """``exact`` rounded to the nearest float32, ties to even: the float32 near the float64
    rounding, or one of its neighbours, whichever is closest to the exact value."""
    guess = np.float32(float(exact))
    if not np.isfinite(guess):
        return guess
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess,
                  np.nextafter(guess, np.float32(np.inf))]

    def key(value: np.float32) -> tuple[Fraction, int]:
        odd = int(np.asarray(value).view(np.uint32)) & 1
        return abs(Fraction(float(value)) - exact), odd

    return min((c for c in candidates if np.isfinite(c)), key=key)


def fma32_reference(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32],
                    c: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """a * b + c for float32, rounded once (exact rational arithmetic per element)."""
    return np.array([_round_to_f32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True)],
                    np.float32)
