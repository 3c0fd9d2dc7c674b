"""``.amdhsa_kernel`` blocks beyond the corpus: other targets, random descriptors, refusals.

The corpus only has what clang-19 produces for gfx90a and gfx942. Here random descriptors for
one processor of each family (GFX7, GFX8 with and without the SGPR init bug, GFX9, GFX90A,
GFX940, GFX10.1, GFX10.3, GFX11, GFX12) go through llvm-mc-19: every descriptor we accept must
come back byte for byte, and one with a bit no directive can set must be refused with a one-line
DirectiveError.
"""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.processors import parse_processor
from luthier.frontend.codeobj import read_code_object
from luthier.lowering.asm import DirectiveError, kernel_descriptor_directives

LLVM_MC = "llvm-mc-19"
needs_llvm_mc = pytest.mark.skipif(
    shutil.which(LLVM_MC) is None, reason=f"{LLVM_MC} is not installed"
)

#: One processor per family whose directive rules or register formulas differ.
PROCESSORS = [
    "gfx700",
    "gfx802",
    "gfx803",
    "gfx900",
    "gfx908",
    "gfx90a",
    "gfx942",
    "gfx1010",
    "gfx1030",
    "gfx1100",
    "gfx1200",
]
_LAYOUT = struct.Struct("<III4sq20sIIIHH4s")


def _pack(
    *,
    group: int = 0,
    private: int = 0,
    kernarg: int = 0,
    rsrc1: int = 0,
    rsrc2: int = 0,
    rsrc3: int = 0,
    props: int = 0,
    preload: int = 0,
    reserved_12: bytes = bytes(4),
    reserved_24: bytes = bytes(20),
    reserved_60: bytes = bytes(4),
) -> KernelDescriptor:
    data = _LAYOUT.pack(
        group, private, kernarg, reserved_12, 0, reserved_24, rsrc3, rsrc1, rsrc2, props, preload,
        reserved_60,
    )  # fmt: skip
    return KernelDescriptor.from_bytes(data)


def random_descriptor(rng: random.Random, name: str) -> KernelDescriptor:
    """A descriptor a compiler could have written for ``name``, with random settings.

    SGPR counts range over the whole 4-bit field, so the top counts (unreachable before GFX10)
    and non-zero counts on GFX10+ exercise the refusals too.
    """
    proc = parse_processor(name)
    major = proc.major
    bit = rng.getrandbits
    vgpr_blocks = bit(6)
    if major >= 10:
        sgpr_blocks = 0 if rng.random() < 0.9 else bit(4)
    elif proc.subtarget.has_sgpr_init_bug:
        sgpr_blocks = 11 if rng.random() < 0.9 else bit(4)
    else:
        sgpr_blocks = bit(4)
    rsrc1 = vgpr_blocks | sgpr_blocks << 6 | bit(8) << 12 | bit(1) << 21 | bit(1) << 23
    if major >= 9:
        rsrc1 |= bit(1) << 26
    if major >= 10:
        rsrc1 |= bit(3) << 29
    if major >= 12:
        rsrc1 &= ~(1 << 23)  # DISABLE_PERF has no directive
    afs = proc.subtarget.has_architected_flat_scratch
    props = bit(7) & (0b1111110 if afs else 0b1111111) & ~(0b100000 if afs else 0)
    props |= bit(1) << 11
    wave32 = False
    if major >= 10:
        wave32 = bool(bit(1))
        props |= wave32 << 10
    preload = 0
    kernarg = rng.choice([0, 8, 16, 256, 288, 4096])
    if proc.subtarget.has_kernarg_preload and rng.random() < 0.5:
        length = rng.randint(0, 16)
        offset = rng.randint(0, 8)
        if kernarg and (length + offset) * 4 > kernarg:
            length = offset = 0
        preload = length | offset << 7
    descriptor = _pack(props=props, preload=preload)
    implied = descriptor.kernel_code_properties.user_sgpr_count + (preload & 0x7F)
    user_sgprs = rng.randint(implied, 31)
    rsrc2 = bit(1) | user_sgprs << 1 | bit(6) << 7 | bit(7) << 24
    rsrc3 = 0
    if proc.subtarget.has_gfx90a_insts:
        most = min(63, (vgpr_blocks + 1) * 2 - 1)
        rsrc3 = rng.randint(0, most) | bit(1) << 16
    elif 10 <= major <= 11 and not wave32:
        shared = rng.randint(0, 15)
        if shared * 2 + vgpr_blocks <= 63:
            rsrc3 = shared
    return _pack(
        group=rng.choice([0, 4, 65536]),
        private=rng.choice([0, 16, 1 << 20]),
        kernarg=kernarg,
        rsrc1=rsrc1,
        rsrc2=rsrc2,
        rsrc3=rsrc3,
        props=props,
        preload=preload,
    )


def _assemble(
    cpu: str, blocks: dict[str, list[str]], folder: Path, mattr: str = ""
) -> dict[str, bytes]:
    """Assemble kernel blocks (by kernel name) for ``cpu``; descriptor bytes by kernel name."""
    lines = ["\t.text"]
    for name in blocks:
        lines += [f"\t.globl\t{name}", "\t.p2align\t8", f"\t.type\t{name},@function"]
        lines += [f"{name}:", "\ts_endpgm"]
    lines.append('\t.section\t.rodata,"a",@progbits')
    for block in blocks.values():
        lines += ["\t.p2align\t6, 0x0", *block]
    source = folder / f"{cpu}.s"
    source.write_text("\n".join(lines) + "\n")
    obj = folder / f"{cpu}.o"
    command = [LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-filetype=obj"]
    if mattr:
        command.append(f"-mattr={mattr}")
    result = subprocess.run(
        [*command, str(source), "-o", str(obj)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[:3000]
    code_object = read_code_object(obj)
    return {kernel.name: kernel.descriptor.to_bytes() for kernel in code_object.kernels}


def _random_blocks(
    rng: random.Random, target: str, count: int
) -> tuple[dict[str, list[str]], dict[str, bytes], list[str]]:
    """Blocks and wanted bytes of the accepted random descriptors, and the refusal messages."""
    blocks: dict[str, list[str]] = {}
    wanted: dict[str, bytes] = {}
    refusals: list[str] = []
    for index in range(count):
        descriptor = random_descriptor(rng, parse_processor(target).name)
        name = f"k{index}"
        try:
            blocks[name] = kernel_descriptor_directives(name, descriptor, target)
        except DirectiveError as error:
            refusals.append(str(error))
            continue
        wanted[name] = descriptor.to_bytes()
    return blocks, wanted, refusals


@needs_llvm_mc
@pytest.mark.parametrize("name", PROCESSORS)
def test_random_descriptors_reassemble(name: str, tmp_path: Path) -> None:
    blocks, wanted, refusals = _random_blocks(random.Random(f"amdhsa-{name}"), name, 150)
    assert len(wanted) > 100
    for message in refusals:
        assert "\n" not in message
        assert "GRANULATED_WAVEFRONT_SGPR_COUNT" in message, message
    assert _assemble(name, blocks, tmp_path) == wanted
    processor = parse_processor(name)
    if processor.major < 10 and not processor.subtarget.has_sgpr_init_bug:
        assert refusals  # the top SGPR counts cannot be reached before GFX10


@needs_llvm_mc
@pytest.mark.parametrize(
    ("target", "mattr"),
    [
        ("gfx90a:xnack+", "+xnack"),
        ("gfx90a:xnack-", "-xnack"),
        ("gfx908:sramecc-:xnack-", "-sramecc,-xnack"),
        ("gfx900:xnack+", "+xnack"),
        ("gfx942:xnack-", "-xnack"),
    ],
)
def test_xnack_setting_is_followed(target: str, mattr: str, tmp_path: Path) -> None:
    """XNACK on/any adds the XNACK_MASK SGPRs, and llvm-mc insists the directive agrees."""
    blocks, wanted, _ = _random_blocks(random.Random(target), target, 60)
    processor = parse_processor(target)
    assert _assemble(processor.name, blocks, tmp_path, mattr) == wanted
    mask = [line for line in next(iter(blocks.values())) if "reserve_xnack_mask" in line]
    assert mask == [f"\t\t.amdhsa_reserve_xnack_mask {int(processor.xnack_on_or_any)}"]


# --- refusals -----------------------------------------------------------------------------


def _valid_gfx90a(
    *,
    rsrc1: int = 0x00AF0040,
    rsrc2: int = 0x0000008C,
    rsrc3: int = 1,
    props: int = 0x9,
    preload: int = 0,
    reserved_12: bytes = bytes(4),
    reserved_24: bytes = bytes(20),
    reserved_60: bytes = bytes(4),
) -> KernelDescriptor:
    """A plain gfx90a descriptor (what clang writes for a small kernel), with changes."""
    return _pack(
        kernarg=280,
        rsrc1=rsrc1,
        rsrc2=rsrc2,
        rsrc3=rsrc3,
        props=props,
        preload=preload,
        reserved_12=reserved_12,
        reserved_24=reserved_24,
        reserved_60=reserved_60,
    )


def _refusal(descriptor: KernelDescriptor, processor: str = "gfx90a") -> str:
    with pytest.raises(DirectiveError) as caught:
        kernel_descriptor_directives("k", descriptor, processor)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("kernel k: ")
    return message


def test_valid_descriptor_is_accepted() -> None:
    lines = kernel_descriptor_directives("k", _valid_gfx90a(), "gfx90a")
    assert lines[0] == "\t.amdhsa_kernel k" and lines[-1] == "\t.end_amdhsa_kernel"
    assert all(line.startswith("\t\t.amdhsa_") for line in lines[1:-1])
    names = [line.split()[0] for line in lines[1:-1]]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"reserved_12": b"\x01\0\0\0"}, "reserved bytes 12-15"),
        ({"reserved_24": bytes(19) + b"\x80"}, "reserved bytes 24-43"),
        ({"reserved_60": b"\0\0\0\x01"}, "reserved bytes 60-63"),
        ({"rsrc1": 0x00AF0040 | 1 << 27}, "COMPUTE_PGM_RSRC1"),
        ({"rsrc1": 0x00AF0040 | 1 << 20}, "PRIV"),
        ({"rsrc1": 0x00AF0040 | 1 << 22}, "DEBUG_MODE"),
        ({"rsrc1": 0x00AF0040 | 1 << 10}, "PRIORITY"),
        ({"rsrc1": 0x00AF0040 | 1 << 29}, "WGP_MODE"),
        ({"rsrc2": 0x8C | 1 << 31}, "reserved"),
        ({"rsrc2": 0x8C | 1 << 6}, "ENABLE_TRAP_HANDLER"),
        ({"rsrc2": 0x8C | 3 << 15}, "GRANULATED_LDS_SIZE"),
        ({"rsrc3": 1 | 1 << 20}, "COMPUTE_PGM_RSRC3"),
        ({"props": 0x9 | 1 << 8}, "kernel code properties"),
        ({"props": 0x9 | 1 << 10}, "ENABLE_WAVEFRONT_SIZE32"),
        ({"props": 0x9 | 1 << 15}, "kernel code properties"),
        ({"rsrc2": 0x82}, "USER_SGPR_COUNT 1"),
        ({"rsrc3": 40}, "ACCUM_OFFSET"),
        ({"rsrc1": 0x00AF0000 | 15 << 6}, "GRANULATED_WAVEFRONT_SGPR_COUNT 15"),
        ({"preload": 20, "rsrc2": 0x8C | 31 << 1}, "preload length 20"),
        ({"preload": 8 | 70 << 7, "rsrc2": 0x8C | 31 << 1}, "overruns"),
    ],
)
def test_inexpressible_descriptor_is_refused(changes: dict[str, Any], expected: str) -> None:
    assert expected in _refusal(_valid_gfx90a(**changes))


def test_target_specific_refusals() -> None:
    # Architected flat scratch: no private segment buffer or flat scratch init user SGPRs.
    assert "private segment buffer" in _refusal(_valid_gfx90a(props=0x9 | 1, rsrc2=0x8C), "gfx942")
    assert "flat scratch init" in _refusal(_valid_gfx90a(props=0x8 | 1 << 5, rsrc2=0x88), "gfx942")
    # GFX10+ always encodes a zero SGPR count.
    assert "always encodes 0" in _refusal(_pack(rsrc1=1 << 6, rsrc2=0x80), "gfx1030")
    # The SGPR init bug fixes the count at 96 SGPRs (11 granules).
    assert "always encodes 11" in _refusal(_pack(rsrc1=2 << 6, rsrc2=0x80), "gfx802")
    # Kernarg preload needs gfx90a/gfx940; RSRC3 is reserved before them.
    assert "preload" in _refusal(_pack(preload=1, rsrc2=0x82), "gfx908")
    assert "COMPUTE_PGM_RSRC3" in _refusal(_pack(rsrc3=1, rsrc2=0x80), "gfx908")
    # FP16_OVFL is a GFX9+ bit; DISABLE_PERF (bit 23 on GFX12) has no directive.
    assert "FP16_OVFL" in _refusal(_pack(rsrc1=1 << 26, rsrc2=0x80), "gfx803")
    assert "DISABLE_PERF" in _refusal(_pack(rsrc1=1 << 23, rsrc2=0x80), "gfx1200")
    # SHARED_VGPR_COUNT is meaningless in wave32.
    assert "wave32" in _refusal(_pack(rsrc3=1, props=1 << 10, rsrc2=0x80), "gfx1030")


def test_bad_processor_names() -> None:
    for text in ("gfx9000", "sm_80", "gfx1030:xnack+", "gfx90a:foo+", "gfx90a:xnack"):
        with pytest.raises(DirectiveError):
            kernel_descriptor_directives("k", _valid_gfx90a(), text)


def test_processor_feature_settings() -> None:
    assert parse_processor("gfx90a").xnack_on_or_any
    assert not parse_processor("gfx90a:xnack-").xnack_on_or_any
    assert parse_processor("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+").xnack_on_or_any
    assert not parse_processor("gfx1030").xnack_on_or_any  # unsupported there
    assert parse_processor("gfx1010").xnack_on_or_any
    assert parse_processor("gfx11-generic").major == 11
    assert parse_processor("gfx10-3-generic").major == 10
