"""Mutation fuzzing: damaged real code objects parse or raise CodeObjectError, nothing else.

Real inputs (the committed code objects, and a bundle holding two of them) are damaged with
seeded random byte flips, truncations, and overwrites of the fields a parser trusts most
(header offsets and counts, section and program headers, symbol entries, note sizes, kernel
descriptors), with boundary values as well as random ones. The budget is a fixed number of
mutations per input, a few seconds in all; ``LUTHIER_FUZZ_MUTATIONS`` raises it for a longer
local run, and ``LUTHIER_FUZZ_SEED`` reproduces a CI failure.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from luthier.frontend.codeobj import CodeObjectError, read_code_object

from .conftest import COMMITTED, Compiled
from .test_bundle import make_bundle

MUTATIONS = int(os.environ.get("LUTHIER_FUZZ_MUTATIONS", "200"))
SEED = int(os.environ.get("LUTHIER_FUZZ_SEED", "20261122"))

#: Values that tend to break bounds arithmetic.
BOUNDARY = [0, 1, 2, 7, 8, 63, 64, 0x7F, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32,
            (1 << 63) - 1, (1 << 64) - 1]  # fmt: skip


def _u(data: bytearray, offset: int, size: int) -> int:
    if offset + size > len(data):
        return 0
    return int.from_bytes(data[offset : offset + size], "little")


def _overwrite(rng: random.Random, data: bytearray, offset: int, size: int) -> None:
    if offset < 0 or offset + size > len(data):
        return
    value = rng.choice(BOUNDARY) if rng.random() < 0.6 else rng.getrandbits(size * 8)
    value &= (1 << (size * 8)) - 1
    if rng.random() < 0.3:  # nudge the real value instead, to land just out of range
        value = (_u(data, offset, size) + rng.choice([-1, 1, 4, 64, 4096])) % (1 << (size * 8))
    data[offset : offset + size] = value.to_bytes(size, "little")


def _header_field(rng: random.Random, data: bytearray) -> None:
    offset, size = rng.choice(
        [(4, 1), (5, 1), (7, 1), (8, 1), (16, 2), (18, 2), (32, 8), (40, 8), (48, 4), (52, 2),
         (54, 2), (56, 2), (58, 2), (60, 2), (62, 2)]
    )  # fmt: skip
    _overwrite(rng, data, offset, size)


def _section_field(rng: random.Random, data: bytearray) -> None:
    shoff, shnum = _u(data, 40, 8), _u(data, 60, 2)
    if not shnum:
        return
    base = shoff + 64 * rng.randrange(shnum)
    offset, size = rng.choice([(0, 4), (4, 4), (24, 8), (32, 8), (40, 4), (44, 4), (48, 8),
                               (56, 8), (16, 8)])  # fmt: skip
    _overwrite(rng, data, base + offset, size)


def _segment_field(rng: random.Random, data: bytearray) -> None:
    phoff, phnum = _u(data, 32, 8), _u(data, 56, 2)
    if not phnum:
        return
    base = phoff + 56 * rng.randrange(phnum)
    _overwrite(rng, data, base + rng.choice([0, 8, 16, 32, 40]), rng.choice([4, 8]))


def _section_body(rng: random.Random, data: bytearray, wanted: set[int]) -> None:
    """Overwrite a field inside a symbol table (2, 11), note (7) or rela (4) section."""
    shoff, shnum = _u(data, 40, 8), _u(data, 60, 2)
    bodies = [
        (_u(data, shoff + 64 * i + 24, 8), _u(data, shoff + 64 * i + 32, 8))
        for i in range(shnum)
        if _u(data, shoff + 64 * i + 4, 4) in wanted
    ]
    if not bodies:
        return
    start, size = rng.choice(bodies)
    if size < 8:
        return
    _overwrite(rng, data, start + rng.randrange(0, size - 4) // 4 * 4, rng.choice([1, 2, 4, 8]))


def _flip(rng: random.Random, data: bytearray) -> None:
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)


def _truncate(rng: random.Random, data: bytearray) -> None:
    del data[rng.randrange(len(data) + 1) :]


def _descriptor(rng: random.Random, data: bytearray) -> None:
    """Anywhere in the first .rodata-sized window after the notes: kernel descriptors."""
    if len(data) > 0x900:
        _overwrite(rng, data, rng.randrange(0x800, 0x900), rng.choice([1, 4, 8]))


MUTATORS: list[Callable[[random.Random, bytearray], None]] = [
    _flip,
    _truncate,
    _header_field,
    _section_field,
    _section_field,
    _segment_field,
    lambda rng, data: _section_body(rng, data, {2, 11}),
    lambda rng, data: _section_body(rng, data, {7}),
    lambda rng, data: _section_body(rng, data, {4, 9}),
    _descriptor,
]


def _inputs() -> list[tuple[str, bytes]]:
    inputs = [(path.name, path.read_bytes()) for path in COMMITTED]
    by_name = dict(inputs)
    bundle = make_bundle(
        [
            ("host-x86_64-unknown-linux--", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a", by_name["vector_add.gfx90a.co"]),
            ("hipv4-amdgcn-amd-amdhsa--gfx942", by_name["vector_add.gfx942.co"]),
        ]
    )
    return [*inputs, ("two-target.bundle", bundle)]


def _exercise(data: bytes, name: str) -> str:
    """Parse and touch what a user would; 'ok' or 'error'. Any other exception escapes."""
    try:
        code_object = read_code_object(data, name=name, offload_arch="gfx90a")
    except CodeObjectError as error:
        assert "\n" not in str(error) and str(error).startswith(name)
        return "error"
    for kernel in code_object.kernels:
        assert kernel.descriptor.to_bytes()
        code_object.kernel(kernel.name)
    if code_object.metadata is not None:
        code_object.metadata.to_msgpack()
    return "ok"


INPUTS = _inputs()


@pytest.mark.parametrize(("name", "original"), INPUTS, ids=[name for name, _ in INPUTS])
def test_mutations_never_escape(name: str, original: bytes) -> None:
    _fuzz(name, original, MUTATIONS)


def test_compiled_mutations_never_escape(compiled: Compiled) -> None:
    """The same on an ET_REL with relocations and on a host object's .hip_fatbin."""
    for path in (compiled.relocatable, compiled.host):
        _fuzz(path.name, path.read_bytes(), MUTATIONS // 2)


def _fuzz(name: str, original: bytes, mutations: int) -> None:
    rng = random.Random(f"{SEED}:{name}")
    outcomes = {"ok": 0, "error": 0}
    started = time.perf_counter()
    for round_index in range(mutations):
        data = bytearray(original)
        for _ in range(rng.randint(1, 3)):
            rng.choice(MUTATORS)(rng, data)
        try:
            outcomes[_exercise(bytes(data), name)] += 1
        except Exception as error:  # the failure this test exists to find
            dump = Path(os.environ.get("LUTHIER_FUZZ_DUMP", "/tmp")) / f"fuzz-{name}-{round_index}"
            dump.write_bytes(bytes(data))
            raise AssertionError(
                f"{name} mutation {round_index} (seed {SEED}) raised {type(error).__name__}: "
                f"{error}; input saved to {dump}"
            ) from error
    assert outcomes["error"] > 0, "the mutations never broke anything: the fuzzer is too weak"
    assert time.perf_counter() - started < 30
