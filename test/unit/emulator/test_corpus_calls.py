"""Whole kernels of test/corpus/kernels/calls.hip: device function calls through
``s_swappc_b64``/``s_setpc_b64``, recursion on the scratch stack, indirect calls through a
table of function pointers (a data relocation) and through ``s_cselect``."""

from __future__ import annotations

import numpy as np
import pytest

from luthier.emulator import run_kernel

from .common import TARGETS, corpus_file, fma32_reference, out, run

RNG = np.random.default_rng(31)
F32 = np.float32


def _poly(x: np.ndarray, a: float, b: float) -> np.ndarray:  # type: ignore[type-arg]
    inner = fma32_reference(x, np.full(x.shape, a, F32), np.full(x.shape, b, F32))
    return fma32_reference(inner, x, np.ones(x.shape, F32))


@pytest.mark.parametrize("target", TARGETS)
def test_call_device_function(target: str) -> None:
    x = RNG.standard_normal(128).astype(F32)
    result = run("calls", target, "call_device_function", 2, 64,
                 [x, np.zeros(128, F32), 0.75, -0.5])
    np.testing.assert_array_equal(out(result, 1), _poly(x, 0.75, -0.5))


def _mix_bits(v: int, k: int) -> int:
    for j in range(k):
        v = ((v << 3) ^ (v >> 5) ^ j) & 0xFFFFFFFF
        v = v - (1 << 32) if v & 0x80000000 else v
    return v


@pytest.mark.parametrize("target", TARGETS)
def test_call_two_functions(target: str) -> None:
    inputs = RNG.integers(-1000, 1000, 128).astype(np.int32)
    k = 5
    result = run("calls", target, "call_two_functions", 2, 64,
                 [inputs, np.zeros(128, np.int32), np.zeros(128, F32), k])
    mixed = np.array([_mix_bits(int(v), k) for v in inputs], np.int32)
    np.testing.assert_array_equal(out(result, 1), mixed)
    np.testing.assert_array_equal(out(result, 2), _poly(mixed.astype(F32), 0.5, -1.0))


def _fib(n: int) -> int:
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


@pytest.mark.parametrize("target", TARGETS)
def test_recursive_call(target: str) -> None:
    inputs = RNG.integers(0, 12, 64).astype(np.int32)
    result = run("calls", target, "recursive_call", 1, 64, [inputs, np.zeros(64, np.int32)])
    np.testing.assert_array_equal(out(result, 1), [_fib(int(v) & 15) for v in inputs])


@pytest.mark.parametrize("target", TARGETS)
def test_indirect_call_table(target: str) -> None:
    selectors = RNG.integers(0, 100, 128).astype(np.int32)
    a = RNG.standard_normal(128).astype(F32)
    result = run("calls", target, "indirect_call_table", 2, 64,
                 [selectors, a, np.zeros(128, F32)])
    choice = selectors.astype(np.uint32) % 3
    expected = np.select([choice == 0, choice == 1], [a + F32(2), a * F32(2)],
                         np.fmax(a, F32(2))).astype(F32)
    np.testing.assert_array_equal(out(result, 2), expected)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("which", [0, 1, 2])
def test_indirect_call_select(target: str, which: int) -> None:
    a = RNG.standard_normal(129).astype(F32)
    result = run("calls", target, "indirect_call_select", 2, 64, [which, a, np.zeros(128, F32)])
    x, y = a[:128], a[1:]
    expected = [x + y, x * y, np.fmax(x, y)][which]
    np.testing.assert_array_equal(out(result, 2), expected)


@pytest.mark.parametrize("target", TARGETS)
def test_relocatable_objects_run_too(target: str) -> None:
    """The corpus's .o files: relocations of calls and of the function table resolve
    against the emulator's own layout, as a linker would."""
    selectors = np.arange(128, dtype=np.int32)
    a = RNG.standard_normal(128).astype(F32)
    result = run_kernel(corpus_file("calls", target, "o"), "indirect_call_table", 2, 64,
                        [selectors, a, np.zeros(128, F32)])
    choice = selectors % 3
    expected = np.select([choice == 0, choice == 1], [a + F32(2), a * F32(2)],
                         np.fmax(a, F32(2))).astype(F32)
    np.testing.assert_array_equal(out(result, 2), expected)
    result = run_kernel(corpus_file("globals", target, "o"), "read_global", 2, 64,
                        [a, np.zeros(128, F32)])
    np.testing.assert_array_equal(out(result, 1), a * F32(1.5))
