"""XXH3-64 (seed 0, default secret): the hash lld uses to place merged strings.

lld lays out a mergeable string section (``SHF_MERGE | SHF_STRINGS``, such as ``.comment`` or
``.rodata.str1.1``) in 32 shards chosen by each string's XXH3 hash; reproducing its bytes needs
the same hash. Written from the published algorithm (xxHash by Yann Collet, BSD-2-Clause); the
192-byte secret is the algorithm's constant.
"""

from __future__ import annotations

_M64 = (1 << 64) - 1
P32_1 = 0x9E3779B1
P32_2 = 0x85EBCA77
P32_3 = 0xC2B2AE3D
P64_1 = 0x9E3779B185EBCA87
P64_2 = 0xC2B2AE3D27D4EB4F
P64_3 = 0x165667B19E3779F9
P64_4 = 0x85EBCA77C2B2AE63
P64_5 = 0x27D4EB2F165667C5
_MX1 = 0x165667919E3779F9
_MX2 = 0x9FB21C651E98DF25

SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
)
_SECRET_SIZE_MIN = 136


def _r32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 4], "little")


def _r64(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 8], "little")


def _swap64(value: int) -> int:
    return int.from_bytes(value.to_bytes(8, "little"), "big")


def _rotl64(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _M64


def _fold(a: int, b: int) -> int:
    """The 128-bit product of two 64-bit values, high half xor low half."""
    product = a * b
    return (product ^ (product >> 64)) & _M64


def _xxh64_avalanche(h: int) -> int:
    h ^= h >> 33
    h = (h * P64_2) & _M64
    h ^= h >> 29
    h = (h * P64_3) & _M64
    return h ^ (h >> 32)


def _avalanche(h: int) -> int:
    h ^= h >> 37
    h = (h * _MX1) & _M64
    return h ^ (h >> 32)


def _rrmxmx(h: int, length: int) -> int:
    h ^= _rotl64(h, 49) ^ _rotl64(h, 24)
    h = (h * _MX2) & _M64
    h ^= (h >> 35) + length
    h = (h * _MX2) & _M64
    return h ^ (h >> 28)


def _mix16(data: bytes, at: int, secret_at: int) -> int:
    return _fold(
        _r64(data, at) ^ _r64(SECRET, secret_at), _r64(data, at + 8) ^ _r64(SECRET, secret_at + 8)
    )


def _short(data: bytes) -> int:
    n = len(data)
    if n == 0:
        return _xxh64_avalanche(_r64(SECRET, 56) ^ _r64(SECRET, 64))
    if n <= 3:
        combined = (data[0] << 16) | (data[n >> 1] << 24) | data[n - 1] | (n << 8)
        return _xxh64_avalanche(combined ^ (_r32(SECRET, 0) ^ _r32(SECRET, 4)))
    if n <= 8:
        value = (_r32(data, n - 4) + (_r32(data, 0) << 32)) & _M64
        return _rrmxmx(value ^ (_r64(SECRET, 8) ^ _r64(SECRET, 16)), n)
    low = _r64(data, 0) ^ (_r64(SECRET, 24) ^ _r64(SECRET, 32))
    high = _r64(data, n - 8) ^ (_r64(SECRET, 40) ^ _r64(SECRET, 48))
    return _avalanche((n + _swap64(low) + high + _fold(low, high)) & _M64)


def _medium(data: bytes) -> int:
    n = len(data)
    acc = n * P64_1
    if n <= 128:
        pairs = [(0, 0), (n - 16, 16)]
        if n > 32:
            pairs += [(16, 32), (n - 32, 48)]
        if n > 64:
            pairs += [(32, 64), (n - 48, 80)]
        if n > 96:
            pairs += [(48, 96), (n - 64, 112)]
        return _avalanche((acc + sum(_mix16(data, at, s) for at, s in pairs)) & _M64)
    for i in range(8):
        acc += _mix16(data, 16 * i, 16 * i)
    acc = _avalanche(acc & _M64)
    for i in range(8, n // 16):
        acc += _mix16(data, 16 * i, 16 * (i - 8) + 3)
    acc += _mix16(data, n - 16, _SECRET_SIZE_MIN - 17)
    return _avalanche(acc & _M64)


def _accumulate(acc: list[int], data: bytes, at: int, secret_at: int) -> None:
    for i in range(8):
        value = _r64(data, at + 8 * i)
        key = value ^ _r64(SECRET, secret_at + 8 * i)
        acc[i ^ 1] = (acc[i ^ 1] + value) & _M64
        acc[i] = (acc[i] + (key & 0xFFFFFFFF) * (key >> 32)) & _M64


def _long(data: bytes) -> int:
    n = len(data)
    acc = [P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1]
    stripes_per_block = (len(SECRET) - 64) // 8
    block = 64 * stripes_per_block
    blocks = (n - 1) // block
    for b in range(blocks):
        for s in range(stripes_per_block):
            _accumulate(acc, data, b * block + 64 * s, 8 * s)
        for i in range(8):
            value = acc[i] ^ (acc[i] >> 47) ^ _r64(SECRET, len(SECRET) - 64 + 8 * i)
            acc[i] = (value * P32_1) & _M64
    for s in range(((n - 1) - block * blocks) // 64):
        _accumulate(acc, data, blocks * block + 64 * s, 8 * s)
    _accumulate(acc, data, n - 64, len(SECRET) - 64 - 7)
    result = n * P64_1
    for i in range(4):
        result += _fold(
            acc[2 * i] ^ _r64(SECRET, 11 + 16 * i), acc[2 * i + 1] ^ _r64(SECRET, 19 + 16 * i)
        )
    return _avalanche(result & _M64)


def xxh3_64(data: bytes) -> int:
    """XXH3-64 of ``data`` with seed 0 and the default secret."""
    if len(data) <= 16:
        return _short(data)
    if len(data) <= 240:
        return _medium(data)
    return _long(data)
