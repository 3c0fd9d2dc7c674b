"""The dynamic-linking tables of a shared code object: ``.dynsym`` order and both hash tables.

The loader (ROCr through its ELF library) looks kernels and variables up by name in
``.dynsym``; ``.hash`` (System V) and ``.gnu.hash`` make that fast. lld writes both for AMDGPU,
and orders ``.dynsym`` so that ``.gnu.hash`` can index it: symbols sorted by bucket
(``hash % nbuckets``), ties kept in ``.dynstr`` order. The sizes follow lld's choices (four
symbols per bucket, twelve Bloom-filter bits per symbol rounded to the next power of two), so
the tables come out byte-identical.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from luthier.frontend.codeobj.elf_format import (
    DT_GNU_HASH,
    DT_HASH,
    DT_NULL,
    DT_RELA,
    DT_RELACOUNT,
    DT_RELAENT,
    DT_RELASZ,
    DT_STRSZ,
    DT_STRTAB,
    DT_SYMENT,
    DT_SYMTAB,
    RELA,
    SYM,
)

GNU_HASH_SHIFT2 = 26


def gnu_hash(name: str) -> int:
    """The GNU ELF hash (Bernstein's h * 33 + c, 32-bit)."""
    value = 5381
    for byte in name.encode():
        value = (value * 33 + byte) & 0xFFFFFFFF
    return value


def sysv_hash(name: str) -> int:
    """The System V ELF hash of ``.hash``."""
    value = 0
    for byte in name.encode():
        value = ((value << 4) + byte) & 0xFFFFFFFF
        high = value & 0xF0000000
        if high:
            value ^= high >> 24
        value &= ~high & 0xFFFFFFFF
    return value


def gnu_bucket_count(symbol_count: int) -> int:
    """Buckets of ``.gnu.hash`` for that many hashed symbols (load factor 4, at least 1)."""
    return max(symbol_count // 4, 1)


def order_for_gnu_hash(names: Sequence[str]) -> list[int]:
    """Indices of ``names`` (in ``.dynstr`` order) in the order ``.dynsym`` must hold them."""
    buckets = gnu_bucket_count(len(names))
    return sorted(range(len(names)), key=lambda i: (gnu_hash(names[i]) % buckets, i))


def _next_power_of_two_above(value: int) -> int:
    """The smallest power of two strictly greater than ``value``."""
    power = 1
    while power <= value:
        power <<= 1
    return power


def gnu_hash_table(names: Sequence[str], first_index: int) -> bytes:
    """``.gnu.hash`` for ``names`` as ordered in ``.dynsym`` from index ``first_index`` on."""
    buckets = gnu_bucket_count(len(names))
    mask_words = 1 if not names else _next_power_of_two_above(len(names) * 12 // 64)
    hashes = [gnu_hash(n) for n in names]
    bloom = [0] * mask_words
    for value in hashes:
        word = (value // 64) & (mask_words - 1)
        bloom[word] |= (1 << (value % 64)) | (1 << ((value >> GNU_HASH_SHIFT2) % 64))
    bucket_heads = [0] * buckets
    chain: list[int] = []
    for position, value in enumerate(hashes):
        bucket = value % buckets
        if bucket_heads[bucket] == 0:
            bucket_heads[bucket] = first_index + position
        last = position + 1 == len(hashes) or hashes[position + 1] % buckets != bucket
        chain.append((value & ~1) | (1 if last else 0))
    return b"".join(
        [
            struct.pack("<IIII", buckets, first_index, mask_words, GNU_HASH_SHIFT2),
            struct.pack(f"<{mask_words}Q", *bloom),
            struct.pack(f"<{buckets}I", *bucket_heads),
            struct.pack(f"<{len(chain)}I", *chain),
        ]
    )


def sysv_hash_table(names: Sequence[str]) -> bytes:
    """``.hash`` for a ``.dynsym`` whose entries 1.. are ``names`` (entry 0 is the null one).

    Like lld, one bucket per symbol (null included); each chain starts at the symbol added
    last to its bucket.
    """
    count = len(names) + 1
    buckets = [0] * count
    chains = [0] * count
    for index, name in enumerate(names, start=1):
        bucket = sysv_hash(name) % count
        chains[index] = buckets[bucket]
        buckets[bucket] = index
    return struct.pack(f"<II{count}I{count}I", count, count, *buckets, *chains)


def gnu_hash_size(symbol_count: int) -> int:
    """Bytes of ``.gnu.hash`` for that many hashed symbols (known before layout)."""
    mask_words = 1 if not symbol_count else _next_power_of_two_above(symbol_count * 12 // 64)
    return 16 + 8 * mask_words + 4 * gnu_bucket_count(symbol_count) + 4 * symbol_count


def dynamic_entries(
    *,
    rela: tuple[int, int, int] | None,
    dynsym: int,
    dynstr: tuple[int, int],
    gnu_hash_addr: int,
    hash_addr: int,
) -> list[tuple[int, int]]:
    """``.dynamic`` as ``(tag, value)`` pairs in lld's order, ``DT_NULL`` included.

    ``rela`` is ``(address, size, relative count)`` of ``.rela.dyn`` or ``None`` without one.
    """
    entries: list[tuple[int, int]] = []
    if rela is not None:
        address, size, relative = rela
        entries += [(DT_RELA, address), (DT_RELASZ, size), (DT_RELAENT, RELA.size)]
        if relative:
            entries.append((DT_RELACOUNT, relative))
    entries += [
        (DT_SYMTAB, dynsym),
        (DT_SYMENT, SYM.size),
        (DT_STRTAB, dynstr[0]),
        (DT_STRSZ, dynstr[1]),
        (DT_GNU_HASH, gnu_hash_addr),
        (DT_HASH, hash_addr),
        (DT_NULL, 0),
    ]
    return entries


def dynamic_entry_count(has_rela: bool, has_relative: bool) -> int:
    """How many entries :func:`dynamic_entries` gives (so ``.dynamic`` is sized before layout)."""
    return 7 + (3 if has_rela else 0) + (1 if has_relative else 0)
