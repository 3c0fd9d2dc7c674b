"""The liveness oracle data (test/corpus/liveness) is current, complete and well placed.

A soundness check is only as good as its reference: these tests make sure that the compiler's
live-in lists exist for every kernel and device function of every corpus code object on every
target and wave size (GFX9; RDNA in wave32 and wave64), that each block's offset is the start
of an instruction in the corpus ``.co`` (so the analysis is asked about the right point), that
the data is what clang-19 prints today, and that ``compare`` flags a missing register and
counts extra ones the way the note reports them.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from functools import cache
from types import ModuleType

import pytest

from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.model import CodeObject

from .liveins_oracle import (
    KERNELS,
    LIVENESS,
    BlockLiveIns,
    compare,
    corpus_path,
    load_document,
    load_oracle,
    oracle_variants,
    register_units,
    units_of,
    variant_wave_size,
)

THEMES = sorted(path.stem for path in KERNELS.glob("*.hip"))
PAIRS = oracle_variants()
IN_CI = os.environ.get("CI") == "true"


def pair_id(pair: tuple[str, str]) -> str:
    return ".".join(pair)


@cache
def corpus(theme: str, variant: str) -> CodeObject:
    return read_code_object(corpus_path(theme, variant))


def test_corpus_has_themes() -> None:
    assert len(THEMES) >= 8, THEMES


def test_every_rdna_processor_and_wave_size_is_covered() -> None:
    """The RDNA corpus's three processors, each in wave32 and wave64, with the same themes;
    every JSON file is one of the variants (none left over from a removed object)."""
    variants = {variant for _, variant in PAIRS}
    rdna = {variant for variant in variants if variant.startswith("gfx1")}
    assert rdna == {f"{target}{suffix}" for target in ("gfx1030", "gfx1100", "gfx1201")
                    for suffix in ("", ".w64")}
    for variant in rdna:
        assert {theme for theme, v in PAIRS if v == variant} == {
            theme for theme, v in PAIRS if v == "gfx1030"}
    assert sorted(path.name for path in LIVENESS.glob("*.json")) == sorted(
        f"{theme}.{variant}.json" for theme, variant in PAIRS)


@pytest.mark.parametrize("pair", [pair for pair in PAIRS if pair[1].startswith("gfx1")],
                         ids=pair_id)
def test_rdna_files_name_their_wave_size(pair: tuple[str, str]) -> None:
    """An RDNA file says which wave size its code is, and it is the corpus object's: the
    wave64 objects' live-ins name ``vcc``, the wave32 ones' ``vcc_lo``, never the other."""
    theme, variant = pair
    document = load_document(theme, variant)
    wave = variant_wave_size(variant) or 32
    assert document["wavefront_size"] == wave
    for kernel in corpus(theme, variant).kernels:
        assert kernel.metadata is not None and kernel.metadata.wavefront_size == wave
        assert kernel.descriptor.kernel_code_properties.enable_wavefront_size32 == (wave == 32)
    names = {register for blocks in load_oracle(theme, variant).values()
             for block in blocks for register in block.liveins}
    assert not names & ({"vcc", "vcc_hi", "exec", "exec_hi"} if wave == 32 else {"vcc_lo"})


def test_json_is_current() -> None:
    """Regenerating from the HIP sources gives the committed JSON byte for byte."""
    for tool in ("clang-19", "llvm-mc-19"):
        if shutil.which(tool) is None:
            if IN_CI:
                pytest.fail(f"{tool} is missing in CI (scripts/setup.sh installs it)")
            pytest.skip(f"{tool} is not installed (scripts/setup.sh installs it)")
    done = subprocess.run(
        [sys.executable, str(LIVENESS / "make_liveins.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_covers_every_function(pair: tuple[str, str]) -> None:
    """One entry per kernel and device function of the corpus .co, none for anything else."""
    theme, variant = pair
    co = corpus(theme, variant)
    document = load_document(theme, variant)
    assert document["target"] == co.processor and document["theme"] == theme
    kernels = sorted(kernel.name for kernel in co.kernels)
    device_functions = sorted(fn.name for fn in co.device_functions)
    assert document["kernels"] == kernels
    assert document["device_functions"] == device_functions
    oracle = load_oracle(theme, variant)
    assert sorted(oracle) == sorted(kernels + device_functions)
    for name, blocks in oracle.items():
        assert blocks, f"{name}: no blocks"
        assert (blocks[0].block, blocks[0].offset) == ("bb.0", 0), f"{name}: entry block"
        assert len({b.block for b in blocks}) == len(blocks), f"{name}: a block twice"


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_offsets_are_instruction_starts(pair: tuple[str, str]) -> None:
    """Each block offset starts an instruction of its function; blocks are in layout order."""
    theme, variant = pair
    co = corpus(theme, variant)
    code = {kernel.name: kernel.code for kernel in co.kernels}
    code.update({fn.name: fn.code for fn in co.device_functions})
    decoder = decoder_for(co.processor, variant_wave_size(variant))
    for name, blocks in load_oracle(theme, variant).items():
        starts: set[int] = set()
        offset = 0
        for inst in decoder.decode_all(code[name]):
            starts.add(offset)
            offset += inst.size
        offsets = [block.offset for block in blocks]
        assert offsets == sorted(offsets), f"{name}: offsets out of layout order"
        stray = [(b.block, b.offset) for b in blocks if b.offset not in starts]
        assert not stray, f"{name}: not at an instruction start: {stray}"


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
def test_register_names_are_known(pair: tuple[str, str]) -> None:
    """Every live-in is a register name the unit expansion understands."""
    oracle = load_oracle(*pair)
    for name, blocks in oracle.items():
        for block in blocks:
            for register in block.liveins:
                assert register_units(register), f"{name} {block.block}: {register}"


def test_register_units() -> None:
    assert register_units("s[4:5]") == ("s4", "s5")
    assert register_units("v0") == ("v0",)
    assert register_units("a[0:3]") == ("a0", "a1", "a2", "a3")
    assert register_units("ttmp[4:5]") == ("ttmp4", "ttmp5")
    assert register_units("vcc") == ("vcc_lo", "vcc_hi")
    assert register_units("exec_lo") == ("exec_lo",)
    assert register_units("flat_scratch") == ("flat_scratch_lo", "flat_scratch_hi")
    assert register_units("scc") == ("scc",)
    assert register_units("m0") == ("m0",)
    assert units_of(["s[0:1]", "s1", "vcc"]) == {"s0", "s1", "vcc_lo", "vcc_hi"}
    with pytest.raises(ValueError):
        register_units("sgpr4")


def test_compare_flags_missing_and_counts_extras() -> None:
    oracle = {
        "k": [
            BlockLiveIns("bb.0", 0, frozenset({"s[4:5]", "v0"})),
            BlockLiveIns("bb.1", 28, frozenset({"s[2:3]", "vcc"})),
        ],
        "f": [BlockLiveIns("bb.0", 0, frozenset({"v[0:1]"}))],
    }
    ours = {
        # spelled differently, plus s6 and v[1:3]: sound, 4 extra units
        ("k", 0): frozenset({"s4", "s5", "s6", "v[0:2]", "v3"}),
        # misses s3 and vcc_hi: unsound; exec is 2 extra units
        ("k", 28): frozenset({"s2", "vcc_lo", "exec"}),
        ("f", 0): frozenset({"v[0:1]"}),
    }
    report = compare(oracle, lambda function, offset: ours[(function, offset)])
    assert not report.sound
    assert [(u.function, u.block, u.offset, u.missing) for u in report.unsound] == [
        ("k", "bb.1", 28, ("s3", "vcc_hi"))
    ]
    assert report.extra_per_block == {("k", "bb.0"): 4, ("k", "bb.1"): 2, ("f", "bb.0"): 0}
    assert report.extra_units == 6
    assert report.blocks == 3
    assert report.oracle_units == 3 + 4 + 2
    assert "UNSOUND in 1 blocks" in report.summary()


def test_compare_sound_when_equal() -> None:
    oracle = load_oracle("calls", "gfx942")
    # an empty block shares its offset with the next block: live there is the union
    by_offset: dict[tuple[str, int], frozenset[str]] = {}
    for name, blocks in oracle.items():
        for b in blocks:
            by_offset[(name, b.offset)] = by_offset.get((name, b.offset), frozenset()) | b.liveins
    report = compare(oracle, lambda function, offset: by_offset[(function, offset)])
    assert report.sound and report.extra_units == 0
    assert report.blocks == sum(len(bs) for bs in oracle.values())


@cache
def _make_liveins() -> ModuleType:
    """make_liveins.py is a script, not a package module: load it from its path.

    Registered in sys.modules while it runs, because its dataclasses look their module up.
    """
    name = "_liveness_make_liveins"
    spec = importlib.util.spec_from_file_location(name, LIVENESS / "make_liveins.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("mir", "names", "halves"),
    [
        (["$sgpr4_sgpr5"], ["s[4:5]"], {}),
        (["$vgpr0"], ["v0"], {}),
        (["$agpr0_agpr1_agpr2_agpr3:0x00000000000000FF"], ["a[0:3]"], {}),
        # lane bits 0x3 << 2i are the i-th 32-bit part
        (["$vgpr0_vgpr1:0x000000000000000C"], ["v1"], {}),
        (["$sgpr0_sgpr1_sgpr2_sgpr3:0x00000000000000F0"], ["s[2:3]"], {}),
        (["$sgpr0_sgpr1_sgpr2_sgpr3:0x0000000000000033"], ["s0", "s2"], {}),
        # within a part the lower bit is hi16, the upper lo16 (AMDGPU.td's lane mask table)
        (["$vgpr2_vgpr3:0x0000000000000008"], ["v3"], {"v3": "lo16"}),
        (["$vgpr2_vgpr3:0x0000000000000001"], ["v2"], {"v2": "hi16"}),
        (["$vgpr7_lo16"], ["v7"], {"v7": "lo16"}),
        (["$vgpr7_lo16", "$vgpr7_hi16"], ["v7"], {}),
        (["$vcc"], ["vcc"], {}),
        (["$vcc:0x0000000000000003"], ["vcc_lo"], {}),
        (["$exec_hi", "$scc", "$m0"], ["exec_hi", "m0", "scc"], {}),
        (["$flat_scr"], ["flat_scratch"], {}),
        (["$sgpr_null"], ["null"], {}),
        (["$ttmp4_ttmp5"], ["ttmp[4:5]"], {}),
    ],
)
def test_mir_register_conversion(mir: list[str], names: list[str], halves: dict[str, str]) -> None:
    make_liveins = _make_liveins()
    converted = make_liveins.Converted()
    for item in mir:
        make_liveins.convert_livein(item, converted)
    assert sorted(converted.names) == sorted(names)
    assert converted.halves == halves


@pytest.mark.parametrize("mir", ["$private_rsrc_reg", "$sgpr0_sgpr2", "%5", "$vgpr0_lo16:0x1"])
def test_mir_register_conversion_refuses_unknown(mir: str) -> None:
    make_liveins = _make_liveins()
    with pytest.raises(make_liveins.OracleError):
        make_liveins.convert_livein(mir, make_liveins.Converted())
