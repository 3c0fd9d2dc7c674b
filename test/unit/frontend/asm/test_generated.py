"""Fresh clang-19 -S output for every corpus theme and target, assembled by us and by LLVM.

The committed corpus has assembly for three theme/target pairs; here every ``T.hip`` is compiled
to assembly for gfx90a and gfx942 at test time (the flags of test/corpus/kernels/build.sh),
then:

* our object must equal llvm-mc-19's object of the same text, byte for byte;
* assemble -> lift -> emit must equal what ld.lld-19 links from llvm-mc-19's object (without
  the empty ``.AMDGPU.csdata`` section, which the in-memory object clang links lacks), which is
  what clang would link from that assembly.

The second oracle rather than the committed ``T.G.co``: the printed assembly can lose
information the in-memory object had (``atomics.gfx90a``: ``buffer_wbl2`` prints without its
cache bits), so only a link of the assembled text is the same program.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift.lifter import LiftOptions, lift_code_object
from luthier.lowering.elf.relocatable import assemble_relocatable
from luthier.lowering.emit import emit_code_object

from .common import (
    CLANG,
    CLANG_FLAGS,
    CORPUS,
    LLD,
    OBJCOPY,
    assert_same_object,
    llvm_mc,
    require,
)

THEMES = sorted(p.stem for p in CORPUS.glob("*.hip"))
TARGETS = ("gfx90a", "gfx942")
PAIRS = [(theme, target) for theme in THEMES for target in TARGETS]
#: clang processes at a time (the test machines have few cores).
_PARALLEL = 4


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ``T.G.s`` from clang-19 and ``T.G.mc.o`` from llvm-mc-19 for every pair."""
    clang = require(CLANG)
    folder = tmp_path_factory.mktemp("clang_s")
    for source in [*CORPUS.glob("*.hip"), CORPUS / "common.h"]:
        (folder / source.name).write_bytes(source.read_bytes())
    pending = list(PAIRS)
    while pending:
        batch, pending = pending[:_PARALLEL], pending[_PARALLEL:]
        running = [
            subprocess.Popen(
                [
                    clang,
                    *CLANG_FLAGS,
                    f"--offload-arch={target}",
                    f"-cuid={theme}",
                    "-S",
                    "-o",
                    f"{theme}.{target}.s",
                    f"{theme}.hip",
                ],
                cwd=folder,
                stderr=subprocess.PIPE,
                text=True,
            )
            for theme, target in batch
        ]
        for process in running:
            _, errors = process.communicate(timeout=300)
            assert process.returncode == 0, errors
    for theme, target in PAIRS:
        result = llvm_mc(folder / f"{theme}.{target}.s", target, folder / f"{theme}.{target}.mc.o")
        assert result.returncode == 0, result.stderr
    return folder


@pytest.mark.parametrize(("theme", "target"), PAIRS, ids=[f"{t}.{g}" for t, g in PAIRS])
def test_object_equals_llvm_mc(generated: Path, theme: str, target: str) -> None:
    name = f"{theme}.{target}"
    ours = assemble_relocatable((generated / f"{name}.s").read_text(), f"{name}.s")
    assert_same_object(ours, (generated / f"{name}.mc.o").read_bytes())


@pytest.mark.parametrize(("theme", "target"), PAIRS, ids=[f"{t}.{g}" for t, g in PAIRS])
def test_lifted_and_emitted_equals_lld_link(generated: Path, theme: str, target: str) -> None:
    name = f"{theme}.{target}"
    stripped = generated / f"{name}.nocsdata.o"
    linked = generated / f"{name}.lld.co"
    subprocess.run(
        [
            require(OBJCOPY),
            "--remove-section",
            ".AMDGPU.csdata",
            str(generated / f"{name}.mc.o"),
            str(stripped),
        ],
        check=True,
        timeout=120,
    )
    subprocess.run(
        [
            require(LLD),
            "-m",
            "elf64_amdgpu",
            "--no-undefined",
            "-shared",
            "-o",
            str(linked),
            str(stripped),
        ],
        check=True,
        timeout=120,
    )
    ours = assemble_relocatable((generated / f"{name}.s").read_text(), f"{name}.s")
    lifted = lift_code_object(read_code_object(ours, name=name), LiftOptions())
    assert emit_code_object(lifted.module) == linked.read_bytes()
