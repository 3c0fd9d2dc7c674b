"""``.amdhsa_kernel`` blocks on several processors, checked directive by directive with llvm-mc.

The directive names come from LLVM 19's AMDGPUUsage.rst ("AMDHSA Kernel Assembler
Directives"), not from our tables. For each processor:

* each directive alone (on top of the required ones) is accepted by us exactly when llvm-mc-19
  accepts it, giving the same descriptor bytes, or rejected with llvm-mc's first error line;
* a block with every directive the processor accepts, set away from its default, and a block
  with only the required directives (every other field at the target's default) give
  llvm-mc's descriptor, ``.kd`` symbol and code-entry relocation.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from luthier.frontend.asm import AsmError
from luthier.lowering.elf.relocatable import assemble_relocatable

from .common import ROOT, assert_same_object, llvm_mc, llvm_mc_object

USAGE = ROOT / "third_party" / "llvm-19" / "llvm" / "docs" / "AMDGPUUsage.rst"
PROCESSORS = ("gfx802", "gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200")
REQUIRED = ("next_free_vgpr", "next_free_sgpr", "accum_offset")
#: Values away from the defaults; every other directive gets 1.
VALUES = {
    "group_segment_fixed_size": 1024,
    "private_segment_fixed_size": 16,
    "kernarg_size": 64,
    "user_sgpr_kernarg_preload_length": 2,
    "system_vgpr_workitem_id": 2,
    "float_round_mode_32": 2,
    "float_round_mode_16_64": 3,
    "float_denorm_mode_16_64": 1,
    "float_denorm_mode_32": 2,
    "dx10_clamp": 0,
    "ieee_mode": 0,
    "reserve_vcc": 0,
    "reserve_flat_scratch": 0,
    "wavefront_size32": 0,
    "system_sgpr_workgroup_id_x": 0,
    "workgroup_processor_mode": 0,
    "memory_ordered": 0,
}


def _directives() -> list[str]:
    if not USAGE.exists():
        pytest.skip(f"{USAGE} is missing (scripts/setup.sh extracts it)")
    names = set(re.findall(r"``\.amdhsa_([a-z0-9_]+)``", USAGE.read_text()))
    return sorted(names - set(REQUIRED))


def _has_accum_offset(processor: str) -> bool:
    return processor in ("gfx90a", "gfx942")


def _text(processor: str, fields: dict[str, int], kernel: str = "\t.globl k\n") -> str:
    required = {"next_free_vgpr": 37, "next_free_sgpr": 37}
    if _has_accum_offset(processor):
        required["accum_offset"] = 8
    lines = "".join(
        f"\t\t.amdhsa_{name} {value}\n" for name, value in {**required, **fields}.items()
    )
    return (
        f'\t.amdgcn_target "amdgcn-amd-amdhsa--{processor}"\n'
        "\t.amdhsa_code_object_version 5\n\t.text\n" + kernel + "\t.p2align 8\nk:\n"
        '\t.section .rodata,"a",@progbits\n\t.p2align 6\n'
        f"\t.amdhsa_kernel k\n{lines}\t.end_amdhsa_kernel\n"
    )


def _compare(text: str, processor: str, tmp: Path, name: str) -> bool:
    """Both accept with the same object, or both reject with the same first error; gives
    whether llvm-mc accepted."""
    source = tmp / name
    source.write_text(text)
    result = llvm_mc(source, processor, tmp / (name + ".o"))
    try:
        ours = assemble_relocatable(text, name)
    except AsmError as error:
        assert result.returncode != 0, f"{name}: we reject ({error}), llvm-mc accepts"
        first = next(line for line in result.stderr.splitlines() if ": error: " in line)
        assert str(error) == first.replace(str(source), name)
        return False
    assert result.returncode == 0, f"{name}: llvm-mc rejects: {result.stderr}"
    assert_same_object(ours, (tmp / (name + ".o")).read_bytes())
    return True


def _accepted(processor: str, tmp: Path) -> dict[str, int]:
    accepted: dict[str, int] = {}
    for directive in _directives():
        value = VALUES.get(directive, 1)
        if _compare(_text(processor, {directive: value}), processor, tmp, f"{directive}.s"):
            accepted[directive] = value
    return accepted


@pytest.mark.parametrize("processor", PROCESSORS)
def test_each_directive_like_llvm_mc(processor: str, tmp_path: Path) -> None:
    accepted = _accepted(processor, tmp_path)
    assert accepted, "no directive accepted at all"
    # Everything at once, away from the defaults.
    fields = dict(accepted)
    fields.pop("user_sgpr_count", None)
    if "shared_vgpr_count" in fields and fields.get("wavefront_size32", 0):
        fields.pop("shared_vgpr_count")
    assert _compare(_text(processor, fields), processor, tmp_path, "all.s")


@pytest.mark.parametrize("processor", PROCESSORS)
def test_defaults_like_llvm_mc(processor: str, tmp_path: Path) -> None:
    text = _text(processor, {})
    assert_same_object(
        assemble_relocatable(text, "defaults.s"), llvm_mc_object(text, processor, tmp_path)
    )


@pytest.mark.parametrize("binding", ["", "\t.globl k\n\t.hidden k\n", "\t.weak k\n"])
def test_descriptor_symbol_copies_the_kernel_binding(binding: str, tmp_path: Path) -> None:
    text = _text("gfx942", {}, kernel=binding)
    assert_same_object(
        assemble_relocatable(text, "binding.s"), llvm_mc_object(text, "gfx942", tmp_path)
    )
