"""Random C expressions over integers and floats, as one HIP kernel and one host function.

The differential test (``test_random_expressions.py``) compiles the same expressions with
clang-19 for every GPU target and for the host, runs the kernel in the emulator and the
host function natively, and compares the results bit for bit. The expressions are written
so that C defines every result the same way on both: signed arithmetic goes through the
unsigned type (no overflow), shift amounts are masked, divisors are made non-zero (and
positive for signed division), the bit-counting builtins get operands they are defined
for, a float is clamped into range before it becomes an integer,
floating-point contraction is off, and nothing calls a library function (whose GPU and
host versions may round differently).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

#: C type -> (bits, signed, float)
TYPES: dict[str, tuple[int, bool, bool]] = {
    "uint8_t": (8, False, False), "int8_t": (8, True, False),
    "uint16_t": (16, False, False), "int16_t": (16, True, False),
    "uint32_t": (32, False, False), "int32_t": (32, True, False),
    "uint64_t": (64, False, False), "int64_t": (64, True, False),
    "_Float16": (16, True, True), "float": (32, True, True), "double": (64, True, True),
}
#: The largest finite value of each float type, and its significand's bits.
_FLOAT_LIMITS = {"_Float16": (65504, 11), "float": (1 << 62, 24), "double": (1 << 62, 53)}
INPUTS = 4
_UNSIGNED = {8: "uint32_t", 16: "uint32_t", 32: "uint32_t", 64: "uint64_t"}


@dataclass(frozen=True)
class Expression:
    type: str
    text: str


class Generator:
    """Expressions of a given depth over the lane's inputs ``x0..x3`` (``uint64_t``)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def leaf(self, kind: str) -> str:
        source = f"x{self.rng.randrange(INPUTS)}"
        if kind == "_Float16":
            return f"__builtin_bit_cast(_Float16, (uint16_t){source})"
        if kind == "float":
            return f"__builtin_bit_cast(float, (uint32_t){source})"
        if kind == "double":
            return f"__builtin_bit_cast(double, {source})"
        if self.rng.random() < 0.2:
            return f"(({kind}){self.rng.choice([0, 1, 3, 7, 255, 65535, 0x7fffffff])}u)"
        return f"(({kind}){source})"

    def expression(self, kind: str, depth: int) -> str:
        if depth == 0 or self.rng.random() < 0.15:
            return self.leaf(kind)
        bits, signed, is_float = TYPES[kind]
        choice = self.rng.random()
        if choice < 0.15:  # a conversion from another type
            other = self.rng.choice(list(TYPES))
            return self.convert(kind, other, self.expression(other, depth - 1))
        if choice < 0.3:  # a selection by a comparison
            other = self.rng.choice(list(TYPES))
            relation = self.rng.choice(["<", "<=", "==", "!=", ">", ">="])
            a, b = self.expression(other, depth - 1), self.expression(other, depth - 1)
            return (f"(({a}) {relation} ({b}) ? ({self.expression(kind, depth - 1)}) : "
                    f"({self.expression(kind, depth - 1)}))")
        a, b = self.expression(kind, depth - 1), self.expression(kind, depth - 1)
        if is_float:
            operator = self.rng.choice(["+", "-", "*", "/"])
            return f"(({kind})(({a}) {operator} ({b})))"
        return self.integer(kind, bits, signed, a, b)

    def integer(self, kind: str, bits: int, signed: bool, a: str, b: str) -> str:
        unsigned = _UNSIGNED[bits]
        operator = self.rng.choice(["+", "-", "*", "&", "|", "^", "<<", ">>", "/", "%", "~",
                                    "bits", "high"])
        if operator == "bits":  # a bit-counting or -moving builtin, on the unsigned value
            return f"(({kind}){self.bits(bits, a)})"
        if operator == "high":  # the high half of a full product (v_mul_hi, v_mad_u64_u32)
            wide = "uint64_t" if bits <= 32 else "unsigned __int128"
            if bits == 64:
                return f"(({kind})((({wide})({unsigned})({a}) * ({unsigned})({b})) >> 64))"
            return (f"(({kind})((({wide})({unsigned})({a}) * ({wide})({unsigned})({b})) >> "
                    f"{bits}))")
        if operator == "~":
            return f"(({kind})~({unsigned})({a}))"
        if operator in ("<<", ">>"):
            amount = f"((uint32_t)({b}) & {bits - 1}u)"
            if operator == ">>":  # arithmetic for signed types, as C defines it
                return f"(({kind})(({a}) >> {amount}))"
            return f"(({kind})(({unsigned})({a}) << {amount}))"
        if operator in ("/", "%"):
            if signed:
                top = (1 << (bits - 1)) - 1
                divisor = f"(({kind})((({unsigned})({b}) & {top}u) | 1u))"
                return f"(({kind})(({a}) {operator} {divisor}))"
            return f"(({kind})(({a}) {operator} (({kind})(({b}) | 1u))))"
        return f"(({kind})(({unsigned})({a}) {operator} ({unsigned})({b})))"

    def bits(self, bits: int, value: str) -> str:
        """A builtin that counts or moves bits (every one defined for its operand: the
        leading/trailing zero counts take an odd or top-set value)."""
        width = 64 if bits == 64 else 32
        unsigned = "uint64_t" if width == 64 else "uint32_t"
        suffix = "ll" if width == 64 else ""
        operand = f"(({unsigned})({value}))"
        choice = self.rng.choice(["popcount", "clz", "ctz", "bitreverse", "bswap", "rotate"])
        if choice == "popcount":
            return f"__builtin_popcount{suffix}({operand})"
        if choice == "clz":
            return f"__builtin_clz{suffix}({operand} | 1u)"
        if choice == "ctz":
            return f"__builtin_ctz{suffix}({operand} | ((({unsigned})1) << {width - 1}))"
        if choice == "bitreverse":
            return f"__builtin_bitreverse{width}({operand})"
        if choice == "bswap":
            return f"__builtin_bswap{width}({operand})"
        amount = self.rng.randrange(1, width)
        return f"(({operand} << {amount}) | ({operand} >> {width - amount}))"

    def convert(self, kind: str, other: str, value: str) -> str:
        bits, signed, is_float = TYPES[kind]
        _, _, other_float = TYPES[other]
        if other_float and not is_float:
            # Clamped into the target's range first (NaN clamps to the low end): the
            # conversion of a value out of range is undefined. The bounds are values the
            # float type holds exactly (2**32 - 1 is not a float: it rounds up, out of
            # range).
            largest, significand = _FLOAT_LIMITS[other]
            low = max(-(1 << (bits - 1)) if signed else 0, -largest)
            high = _exact_below(min((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1,
                                    largest), significand)
            clamp = (f"(({value}) >= ({other}){low}.0 ? (({value}) <= ({other}){high}.0 ? "
                     f"({value}) : ({other}){high}.0) : ({other}){low}.0)")
            return f"(({kind})({clamp}))"
        return f"(({kind})({value}))"


def _exact_below(value: int, significand: int) -> int:
    """The largest integer of at most ``value`` that a float of ``significand`` bits holds."""
    drop = max(value.bit_length() - significand, 0)
    return value >> drop << drop


def expressions(seed: int, count: int, depth: int) -> list[Expression]:
    rng = random.Random(seed)
    generator = Generator(rng)
    found: list[Expression] = []
    for _ in range(count):
        kind = rng.choice(list(TYPES))
        found.append(Expression(kind, generator.expression(kind, depth)))
    return found


def _body(found: list[Expression]) -> str:
    lines = [f"  const uint64_t x{k} = in[{INPUTS} * lane + {k}];" for k in range(INPUTS)]
    for index, expression in enumerate(found):
        kind = expression.type
        bits, _, is_float = TYPES[kind]
        unsigned = {16: "uint16_t", 32: "uint32_t", 64: "uint64_t"}.get(bits, "uint32_t") \
            if is_float else ("uint32_t" if bits <= 32 else "uint64_t")
        value = f"(({kind})({expression.text}))"
        stored = f"__builtin_bit_cast({unsigned}, {value})" if is_float \
            else f"({unsigned})({value})"
        lines.append(f"  out[{len(found)} * lane + {index}] = (uint64_t){stored};")
    return "\n".join(lines)


_PRELUDE = """typedef unsigned char uint8_t;
typedef signed char int8_t;
typedef unsigned short uint16_t;
typedef short int16_t;
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;
"""


def hip_source(found: list[Expression]) -> str:
    """The kernel ``expressions(const uint64_t *in, uint64_t *out)``: one lane per work-item."""
    return (_PRELUDE + '#define __global__ __attribute__((global))\n'
            'extern "C" __global__ void expressions(const uint64_t *in, uint64_t *out) {\n'
            "#pragma clang fp contract(off)\n"
            "  const unsigned lane = __builtin_amdgcn_workitem_id_x();\n"
            + _body(found) + "\n}\n")


def host_source(found: list[Expression], lanes: int) -> str:
    """A host program that reads ``lanes`` lanes of inputs (raw uint64 from standard input)
    and writes the results (raw uint64) to standard output."""
    return (_PRELUDE + "#include <stdio.h>\n"
            "static void compute(const uint64_t *in, uint64_t *out, unsigned lane) {\n"
            "#pragma clang fp contract(off)\n" + _body(found) + "\n}\n"
            f"int main(void) {{\n  static uint64_t in[{INPUTS * lanes}], "
            f"out[{len(found) * lanes}];\n"
            f"  if (fread(in, 8, {INPUTS * lanes}, stdin) != {INPUTS * lanes}) return 1;\n"
            f"  for (unsigned lane = 0; lane < {lanes}; ++lane) compute(in, out, lane);\n"
            f"  fwrite(out, 8, {len(found) * lanes}, stdout);\n  return 0;\n}}\n")
