"""Values of C expressions as clang-19 computes them on the host: the second source of the
emulator's per-instruction semantics (``test_semantics_vs_clang.py``).

An :class:`Expression` is a C expression over typed operands ``a``, ``b``, ``c`` (integers,
``_Float16``, ``float``, ``double``); :func:`evaluate` computes it on many operand tuples,
given and returned as raw bits, twice:

- **folded**: each tuple is a statement with literal operands in a constructor that
  stores into a global array, compiled at ``-O2`` to LLVM IR. GlobalOpt evaluates
  constructors at compile time, so once every statement has folded, the array's
  initializer holds the results and the constructor is gone; the values are read from
  that initializer, and a constructor left in the IR is an error naming what did not
  fold. The values are those of LLVM's constant folder (APInt/APFloat), not the host's FPU
  or libm, and nothing of ours.
- **runtime**: the same expression in a loop over ``volatile`` operands, so nothing can be
  folded: x86-64 SSE arithmetic and glibc, compiled at ``-O2`` into an executable that
  writes every value as little-endian ``uint64`` to stdout. An expression whose run-time
  lowering on x86-64 is not a reference (``runtime=False``: half-precision FMA, which
  LLVM legalises as an ``fmaf`` followed by a truncation, a double rounding) is only
  folded.

Compilation flags pin the C semantics to IEEE 754 binary arithmetic in
round-to-nearest-even with subnormals (x86-64 never flushes them unless asked):
``-ffp-contract=off`` (no fusing of ``a * b + c``), ``-fno-math-errno`` (so
``__builtin_ldexpf`` and friends become LLVM intrinsics the folder knows),
``-fexcess-precision=16`` (``_Float16`` operations are ``half`` operations in the IR, not
``float`` ones).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

#: An operand or result kind: a key of :data:`C_TYPES`.
Kind = str

#: C type and width in bits of each operand/result kind.
C_TYPES: dict[str, tuple[str, int]] = {
    "u16": ("uint16_t", 16), "i16": ("int16_t", 16),
    "u32": ("uint32_t", 32), "i32": ("int32_t", 32),
    "u64": ("uint64_t", 64), "i64": ("int64_t", 64),
    "f16": ("_Float16", 16), "f32": ("float", 32), "f64": ("double", 64),
}
_UNSIGNED = {16: "uint16_t", 32: "uint32_t", 64: "uint64_t"}

CLANG = "clang-19"
FLAGS = ("-O2", "-std=c17", "-ffp-contract=off", "-fno-math-errno",
         "-fexcess-precision=16", "-w")

_HEADER = """\
#include <stdint.h>
#include <stdio.h>
"""


@dataclass(frozen=True)
class Expression:
    """``results`` are (kind, C expression) over the parameters ``a``, ``b``, ``c`` of the
    kinds ``operands``. Each becomes a function-like macro, so the folded form has nothing
    to inline; an expression may call the helpers of :func:`evaluate`'s ``prelude``."""

    name: str
    operands: tuple[Kind, ...]
    results: tuple[tuple[Kind, str], ...]
    #: Whether the run-time evaluation on x86-64 is also a reference (see the module).
    runtime: bool = True

    def __post_init__(self) -> None:
        kinds = [*self.operands, *(kind for kind, _ in self.results)]
        if not set(kinds) <= C_TYPES.keys() or len(self.operands) > 3:
            raise ValueError(f"{self.name}: kinds are {sorted(C_TYPES)}, at most 3 operands")


@dataclass(frozen=True)
class Values:
    """Result bits per operand tuple, ``[tuple, result]`` (zero-extended to 64 bits)."""

    folded: npt.NDArray[np.uint64]
    runtime: npt.NDArray[np.uint64] | None


class ClangError(RuntimeError):
    """clang-19 failed, or did not fold what it had to."""


def available() -> bool:
    return shutil.which(CLANG) is not None


def _macros(expression: Expression) -> str:
    parameters = ", ".join("abc"[:len(expression.operands)])
    return "".join(
        f"#define E_{expression.name}_{index}({parameters}) "
        f"(({C_TYPES[kind][0]})({text}))\n"
        for index, (kind, text) in enumerate(expression.results))


def _conversions() -> str:
    """Macros between bits and values: ``L<kind>(bits)`` is the value of kind ``kind`` with
    those bits, ``B<kind>(value)`` its bits as an unsigned integer of its width (short
    names: the folded unit spells one per operand and result)."""
    lines: list[str] = []
    for kind, (ctype, width) in C_TYPES.items():
        unsigned = _UNSIGNED[width]
        if kind.startswith("f"):
            lines += [f"#define L{kind}(x) __builtin_bit_cast({ctype}, ({unsigned})(x))",
                      f"#define B{kind}(x) __builtin_bit_cast({unsigned}, ({ctype})(x))"]
        else:
            lines += [f"#define L{kind}(x) (({ctype})({unsigned})(x))",
                      f"#define B{kind}(x) (({unsigned})(x))"]
    return "\n".join(lines) + "\n"


def _value(kind: str, bits: str) -> str:
    """The C value of kind ``kind`` whose bits are the integer expression ``bits``."""
    return f"L{kind}({bits})"


def _bits(kind: str, value: str) -> str:
    """The bits of ``value`` (of kind ``kind``) as an unsigned integer of its width."""
    return f"B{kind}({value})"


def _call(expression: Expression, index: int, arguments: Sequence[str]) -> str:
    kind = expression.results[index][0]
    return _bits(kind, f"E_{expression.name}_{index}({', '.join(arguments)})")


def _folded_unit(expression: Expression, operands: npt.NDArray[np.uint64]) -> str:
    """A constructor storing every result into the global ``out_<name>``: GlobalOpt
    evaluates constructors at compile time, so once everything folds, the global has the
    results as its initializer and the constructor is gone."""
    count = len(expression.results)
    name = expression.name
    lines = [f"uint64_t out_{name}[{len(operands) * count}];",
             f"__attribute__((constructor)) static void fold_{name}(void) {{"]
    for row, values in enumerate(operands.tolist()):
        arguments = [_value(kind, f"0x{int(value):x}")
                     for kind, value in zip(expression.operands, values, strict=True)]
        lines += [f"  out_{name}[{row * count + index}] = {_call(expression, index, arguments)};"
                  for index in range(count)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _runtime_unit(expression: Expression, operands: npt.NDArray[np.uint64]) -> str:
    """A loop over ``volatile`` operand bits: every operation happens at run time."""
    rows, arity = operands.shape
    count = len(expression.results)
    name = expression.name
    values = ", ".join(f"0x{int(value):x}ull" for value in operands.reshape(-1).tolist())
    locals_ = "".join(
        f"    {C_TYPES[kind][0]} {variable} = "
        f"{_value(kind, f'operands_{name}[i * {arity} + {slot}]')};\n"
        for slot, (kind, variable) in enumerate(zip(expression.operands, "abc", strict=False)))
    arguments = list("abc"[:arity])
    body = "".join(f"    out[i * {count} + {index}] = {_call(expression, index, arguments)};\n"
                   for index in range(count))
    return (f"static volatile const uint64_t operands_{name}[] = {{{values}}};\n"
            f"static void run_{name}(uint64_t *out) {{\n"
            f"  for (int i = 0; i < {rows}; i++) {{\n{locals_}{body}  }}\n}}\n")


_GLOBAL = re.compile(r"^@out_(\w+) = [^\[]*\[(\d+) x i64\] (zeroinitializer|\[[^\]]*\])",
                     re.MULTILINE)
_LEFT = re.compile(r"^define internal void @fold_(\w+)\(", re.MULTILINE)


def _folded_values(ir: str) -> dict[str, list[int]]:
    """The initializers of the ``out_*`` globals of ``ir``; raises :class:`ClangError`
    naming the expressions whose constructor survived (something did not fold)."""
    left = _LEFT.findall(ir)
    if left:
        raise ClangError("clang-19 did not constant-fold: " + ", ".join(left))
    values: dict[str, list[int]] = {}
    for name, size, initializer in _GLOBAL.findall(ir):
        if initializer == "zeroinitializer":
            values[name] = [0] * int(size)
        else:
            values[name] = [int(item.split()[1]) % (1 << 64)
                            for item in initializer[1:-1].split(",")]
    return values


_Job = tuple[list[str], "subprocess.Popen[bytes]"]


def _start(command: list[str], directory: Path) -> _Job:
    return command, subprocess.Popen(command, cwd=directory, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)


def _finish(job: _Job) -> bytes:
    command, process = job
    output, errors = process.communicate()
    if process.returncode != 0:
        raise ClangError(f"{' '.join(command)} failed ({process.returncode}):\n"
                         + errors.decode(errors="replace")[-4000:])
    return output


def _parts(work: Sequence[tuple[Expression, npt.NDArray[np.uint64]]],
           count: int) -> list[list[tuple[Expression, npt.NDArray[np.uint64]]]]:
    """``work`` cut into ``count`` runs of about as many folded results each."""
    sizes = [len(operands) * len(expression.results) for expression, operands in work]
    total = sum(sizes)
    parts: list[list[tuple[Expression, npt.NDArray[np.uint64]]]] = [[] for _ in range(count)]
    done = 0
    for item, size in zip(work, sizes, strict=True):
        parts[min(count - 1, done * count // max(total, 1))].append(item)
        done += size
    return [part for part in parts if part]


def evaluate(work: Sequence[tuple[Expression, npt.NDArray[np.uint64]]],
             prelude: str = "") -> dict[str, Values]:
    """Each expression of ``work`` on its operand tuples (``[tuple, operand]`` bits, one
    column per operand), folded and (where it is a reference) at run time. ``prelude`` is
    C code (helper functions) placed before the expressions. Raises :class:`ClangError`
    when clang fails or leaves an expression unfolded.

    The folded units are compiled to IR only (their values are read from the IR), one
    clang per core, while the run-time unit is compiled to an executable: the front end
    and the optimizer take seconds per hundred thousand folded values, linking is cheap."""
    names = [expression.name for expression, _ in work]
    if len(set(names)) != len(names):
        raise ValueError("expression names must be unique")
    header = _HEADER + _conversions() + prelude + "\n" + "".join(_macros(e) for e, _ in work)
    folded = ["#include \"expressions.h\"\n" + "".join(
        _folded_unit(expression, operands) for expression, operands in part)
        for part in _parts(work, max(1, min(4, os.cpu_count() or 1)))]
    timed = [(expression, operands) for expression, operands in work if expression.runtime]
    offsets: dict[str, int] = {}
    total = 0
    for expression, operands in timed:
        offsets[expression.name] = total
        total += len(operands) * len(expression.results)
    main = ("#include \"expressions.h\"\n"
            + "".join(_runtime_unit(expression, operands) for expression, operands in timed)
            + f"static uint64_t buffer[{max(total, 1)}];\n"
            + "int main(void) {\n"
            + "".join(f"  run_{name}(buffer + {at});\n" for name, at in offsets.items())
            + f"  return fwrite(buffer, 8, {total}, stdout) == {total} ? 0 : 1;\n}}\n")
    with tempfile.TemporaryDirectory(prefix="clang_oracle_") as name:
        directory = Path(name)
        (directory / "expressions.h").write_text(header)
        (directory / "main.c").write_text(main)
        for index, text in enumerate(folded):
            (directory / f"folded{index}.c").write_text(text)
        to_ir = [_start([CLANG, *FLAGS, "-S", "-emit-llvm", f"folded{index}.c", "-o", "-"],
                        directory) for index in range(len(folded))]
        build = _start([CLANG, *FLAGS, "main.c", "-o", "oracle", "-lm"], directory)
        try:  # what did not fold is the first thing to say
            folded_values = _folded_values("".join(_finish(job).decode() for job in to_ir))
        except BaseException:
            for _, process in [*to_ir, build]:
                process.communicate()
            raise
        _finish(build)
        output = _finish(_start([str(directory / "oracle")], directory))
    run_values = np.frombuffer(output, dtype="<u8").astype(np.uint64)
    if len(run_values) != total:
        raise ClangError(f"the oracle wrote {len(run_values)} values, expected {total}")
    results: dict[str, Values] = {}
    for expression, operands in work:
        shape = (len(operands), len(expression.results))
        size = shape[0] * shape[1]
        constants = folded_values.get(expression.name)
        if constants is None or len(constants) != size:
            raise ClangError(f"no folded values of {expression.name} in the IR")
        at = offsets.get(expression.name)
        results[expression.name] = Values(
            np.array(constants, np.uint64).reshape(shape),
            None if at is None else run_values[at:at + size].reshape(shape))
    return results
