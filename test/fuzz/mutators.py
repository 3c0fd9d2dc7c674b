"""Seeded mutations of the inputs a user hands the tools: binary (ELF code objects, offload
bundles, instruction bytes) and text (MLIR, LLVM IR, assembly, Python, command lines).

Binary mutations know the ELF64 layout: they overwrite the fields a reader trusts most
(header offsets and counts, section and program headers, bodies of symbol tables, notes and
relocations) with boundary values or values nudged just out of range, besides byte flips
and truncations. Text mutations work on lines and tokens: delete, repeat, swap, cut, and
replace a token by one that tends to break parsers (huge numbers, unbalanced brackets,
other keywords of the same language).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

#: Values that tend to break bounds arithmetic.
BOUNDARY = (0, 1, 2, 7, 8, 63, 64, 0x7F, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32,
            (1 << 63) - 1, (1 << 64) - 1)


def _u(data: bytearray, offset: int, size: int) -> int:
    if offset < 0 or offset + size > len(data):
        return 0
    return int.from_bytes(data[offset:offset + size], "little")


def overwrite(rng: random.Random, data: bytearray, offset: int, size: int) -> None:
    """Put a boundary, random or nudged value in the ``size``-byte field at ``offset``."""
    if offset < 0 or offset + size > len(data):
        return
    value = rng.choice(BOUNDARY) if rng.random() < 0.6 else rng.getrandbits(size * 8)
    if rng.random() < 0.3:  # nudge the real value instead, to land just out of range
        value = _u(data, offset, size) + rng.choice([-1, 1, 4, 64, 4096])
    value &= (1 << (size * 8)) - 1
    data[offset:offset + size] = value.to_bytes(size, "little")


def _header_field(rng: random.Random, data: bytearray) -> None:
    offset, size = rng.choice([(4, 1), (5, 1), (7, 1), (8, 1), (16, 2), (18, 2), (32, 8),
                               (40, 8), (48, 4), (52, 2), (54, 2), (56, 2), (58, 2), (60, 2),
                               (62, 2)])
    overwrite(rng, data, offset, size)


def _section_field(rng: random.Random, data: bytearray) -> None:
    shoff, shnum = _u(data, 40, 8), _u(data, 60, 2)
    if shnum:
        base = shoff + 64 * rng.randrange(shnum)
        offset, size = rng.choice([(0, 4), (4, 4), (8, 8), (16, 8), (24, 8), (32, 8), (40, 4),
                                   (44, 4), (48, 8), (56, 8)])
        overwrite(rng, data, base + offset, size)


def _segment_field(rng: random.Random, data: bytearray) -> None:
    phoff, phnum = _u(data, 32, 8), _u(data, 56, 2)
    if phnum:
        base = phoff + 56 * rng.randrange(phnum)
        overwrite(rng, data, base + rng.choice([0, 4, 8, 16, 32, 40, 48]), rng.choice([4, 8]))


def _section_body(rng: random.Random, data: bytearray, kinds: set[int]) -> None:
    """Overwrite a field inside a section of one of ``kinds`` (2/11 symbols, 7 notes,
    4/9 relocations, 6 dynamic, 1 program bits such as .rodata's kernel descriptors)."""
    shoff, shnum = _u(data, 40, 8), _u(data, 60, 2)
    bodies = [(_u(data, shoff + 64 * i + 24, 8), _u(data, shoff + 64 * i + 32, 8))
              for i in range(min(shnum, 256)) if _u(data, shoff + 64 * i + 4, 4) in kinds]
    bodies = [(start, size) for start, size in bodies if size >= 8 and start < len(data)]
    if bodies:
        start, size = rng.choice(bodies)
        overwrite(rng, data, start + rng.randrange(0, size - 4) // 4 * 4,
                  rng.choice([1, 2, 4, 8]))


def flip(rng: random.Random, data: bytearray) -> None:
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)


def truncate(rng: random.Random, data: bytearray) -> None:
    del data[rng.randrange(len(data) + 1):]


ELF_MUTATORS: tuple[Callable[[random.Random, bytearray], None], ...] = (
    flip, truncate, _header_field, _section_field, _section_field, _segment_field,
    lambda rng, data: _section_body(rng, data, {2, 11}),
    lambda rng, data: _section_body(rng, data, {7}),
    lambda rng, data: _section_body(rng, data, {4, 9}),
    lambda rng, data: _section_body(rng, data, {6}),
    lambda rng, data: _section_body(rng, data, {1}),
)


def mutate_elf(rng: random.Random, data: bytes, rounds: int = 3) -> bytes:
    mutant = bytearray(data)
    for _ in range(rng.randint(1, rounds)):
        rng.choice(ELF_MUTATORS)(rng, mutant)
    return bytes(mutant)


def _section_named(data: bytearray, name: bytes) -> tuple[int, int] | None:
    """File offset and size of the section called ``name``, read through the (possibly
    mutated) section name table; None when there is none."""
    shoff, shnum, shstrndx = _u(data, 40, 8), _u(data, 60, 2), _u(data, 62, 2)
    if shstrndx >= shnum:
        return None
    names = _u(data, shoff + 64 * shstrndx + 24, 8)
    for index in range(min(shnum, 256)):
        header = shoff + 64 * index
        start = names + _u(data, header, 4)
        if bytes(data[start:start + len(name) + 1]) == name + b"\0":
            return _u(data, header + 24, 8), _u(data, header + 32, 8)
    return None


def _host_fatbin_field(rng: random.Random, data: bytearray) -> None:
    """Overwrite a field of what a host binary's fat binary hangs on: the bundle header at
    the start of ``.hip_fatbin`` or a ``__hip_fatbin_wrapper`` record."""
    name = rng.choice([b".hip_fatbin", b".hipFatBinSegment"])
    found = _section_named(data, name)
    if found is not None and found[1] >= 8:
        start, size = found
        overwrite(rng, data, start + rng.randrange(0, min(size, 256) - 4) // 4 * 4,
                  rng.choice([1, 4, 8]))


def mutate_host(rng: random.Random, data: bytes) -> bytes:
    """A host binary with a fat binary: ELF mutations, or a field of its fat binary's
    bundle header or wrapper records."""
    mutant = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            _host_fatbin_field(rng, mutant)
        else:
            rng.choice(ELF_MUTATORS)(rng, mutant)
    return bytes(mutant)


def mutate_bundle(rng: random.Random, data: bytes) -> bytes:
    """An offload bundle: its header fields (entry count, offsets, sizes, ID lengths) or
    an entry's bytes."""
    mutant = bytearray(data)
    magic = len(b"__CLANG_OFFLOAD_BUNDLE__")
    if rng.random() < 0.5 and len(mutant) > magic + 8:
        overwrite(rng, mutant, magic + 8 * rng.randrange(0, 8), rng.choice([1, 4, 8]))
    else:
        for mutator in rng.sample(ELF_MUTATORS, 2):
            mutator(rng, mutant)
    return bytes(mutant)


#: Tokens that tend to break parsers of our text languages.
NASTY_TOKENS = ("", "0", "-1", "4294967296", "18446744073709551616", "99999999999999999999",
                "(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", '"', "'", "%", "@", "#",
                "^bb9", "!12", "\\", "\x00", "\t", "é", "1e309", "0x", "nan", "-", "...")


def mutate_text(rng: random.Random, text: str, vocabulary: Sequence[str] = (),
                rounds: int = 3) -> str:
    """Line and token mutations of ``text``; ``vocabulary`` adds words of its language."""
    lines = text.splitlines() or [""]
    tokens = (*NASTY_TOKENS, *vocabulary)
    for _ in range(rng.randint(1, rounds)):
        index = rng.randrange(len(lines))
        kind = rng.randrange(7)
        if kind == 0 and len(lines) > 1:
            del lines[index]
        elif kind == 1:
            lines.insert(index, lines[rng.randrange(len(lines))])
        elif kind == 2:
            other = rng.randrange(len(lines))
            lines[index], lines[other] = lines[other], lines[index]
        elif kind == 3:
            lines[index] = lines[index][:rng.randrange(len(lines[index]) + 1)]
        elif kind == 4:
            position = rng.randrange(len(lines[index]) + 1)
            lines[index] = lines[index][:position] + rng.choice(tokens) + \
                lines[index][position:]
        else:
            parts = lines[index].split(" ")
            parts[rng.randrange(len(parts))] = rng.choice(tokens)
            lines[index] = " ".join(parts)
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def mutate_args(rng: random.Random, args: list[str], vocabulary: Sequence[str]) -> list[str]:
    """A command line with an argument dropped, repeated, replaced or damaged."""
    mutant = list(args)
    for _ in range(1 if rng.random() < 0.7 else 2):
        kind = rng.randrange(4)
        index = rng.randrange(len(mutant)) if mutant else 0
        if kind == 0 and mutant:
            del mutant[index]
        elif kind == 1 and mutant:
            mutant.insert(index, mutant[rng.randrange(len(mutant))])
        elif kind == 2 and mutant:
            mutant[index] = rng.choice((*NASTY_TOKENS, *vocabulary))
        elif mutant:
            word = mutant[index]
            position = rng.randrange(len(word) + 1)
            mutant[index] = word[:position] + rng.choice(NASTY_TOKENS) + word[position:]
    return mutant
