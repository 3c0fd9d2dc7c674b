"""Per-kernel register usage and budgets, against the compiler and llvm-objdump.

Two oracles that know nothing of our code: the compiler's own counts in the metadata note
(``.vgpr_count``, ``.agpr_count``, ``.sgpr_count``: what clang-19 computed for the kernel
and everything it calls), and the registers ``llvm-objdump-19 -d`` prints in the kernel's
and its callees' instructions.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.metadata import attr_to_metadata
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    AGPR_MASK,
    SGPR_MASK,
    VGPR_MASK,
    unit_names,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionOp, KernelOp
from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.analysis.register_budget import (
    RegisterBudget,
    sgpr_occupancy,
    vgpr_occupancy,
)
from luthier.passes.analysis.register_usage import RegisterUsage, entry_registers

from .corpus import KERNELS, corpus, lifted, parsed

CODE_OBJECTS = sorted(path.name for path in KERNELS.glob("*.co"))
RDNA = KERNELS.parent / "rdna"
RDNA_OBJECTS = sorted(path.name for path in RDNA.glob("*.co"))


def _round_up(value: int, granule: int) -> int:
    return -(-value // granule) * granule


@pytest.mark.parametrize("name", CODE_OBJECTS)
def test_usage_matches_the_compilers_register_counts(name: str) -> None:
    code_object = corpus(name)
    usage = RegisterUsage(code_object)
    assert code_object.metadata is not None
    metadata = {kernel[".name"]: kernel
                for kernel in attr_to_metadata(code_object.metadata)["amdhsa.kernels"]}
    assert set(usage.kernels) == set(metadata)
    for kernel, found in usage.kernels.items():
        counts = metadata[kernel]
        vgprs, agprs = found.highest("v") + 1, found.highest("a") + 1
        # On GFX90A/GFX942 .vgpr_count is the unified total when AGPRs are used:
        # VGPRs rounded up to 4 (accum_offset granule), then the AGPRs. On gfx908 the AGPRs
        # are a file of their own: .vgpr_count is the VGPRs alone, and the allocation
        # (in granules of 4) covers the larger of the two.
        vector_file = subtarget_for(code_object.processor).vector_register_file()
        assert vector_file is not None
        if vector_file.unified:
            allocated = unified = _round_up(vgprs, 4) + agprs if agprs else vgprs
        else:
            unified, allocated = vgprs, max(vgprs, agprs)
        assert (unified, agprs) == (counts[".vgpr_count"], counts[".agpr_count"]), kernel
        budget = found.budget
        assert budget is not None
        # The compiler's SGPR count includes VCC/FLAT_SCRATCH/XNACK_MASK; it fits the
        # allocation, and what we say is usable holds everything the code names.
        assert counts[".sgpr_count"] <= budget.sgprs_allocated, kernel
        assert found.highest("s") < budget.sgprs, kernel
        assert vgprs <= budget.vgprs and agprs <= budget.agprs, kernel
        assert _round_up(allocated, vector_file.granule) <= budget.vgprs_allocated, kernel


def _objdump_registers(path: Path) -> dict[str, set[str]]:
    """The generic registers (sN, vN, aN, one name per unit) each function's instructions
    name in ``llvm-objdump-19 -d``."""
    text = subprocess.run(["llvm-objdump-19", "-d", "--no-show-raw-insn", str(path)],
                          check=True, capture_output=True, text=True).stdout
    found: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in text.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            current = found.setdefault(header.group(1), set())
            continue
        if current is None or not line.startswith(("\t", " ")):
            continue
        code = line.split("//")[0]
        for prefix, low, high in re.findall(r"\b([sva])\[(\d+):(\d+)\]", code):
            current.update(f"{prefix}{index}" for index in range(int(low), int(high) + 1))
        current.update(f"{p}{i}" for p, i in re.findall(r"(?<![\w\[:])([sva])(\d+)\b", code))
    return found


@pytest.mark.parametrize("name", RDNA_OBJECTS)
def test_rdna_budget_is_what_the_descriptor_asks_and_holds_the_code(name: str) -> None:
    """RDNA: every wave has s0-s105 (the SGPR field is reserved), no AGPRs, and the VGPRs
    the descriptor asks for in steps of 8 (wave32) or 4 (wave64); they hold every register
    the compiler counted and the code names."""
    code_object = lifted(RDNA / name)
    usage = RegisterUsage(code_object)
    assert code_object.metadata is not None
    metadata = {kernel[".name"]: kernel
                for kernel in attr_to_metadata(code_object.metadata)["amdhsa.kernels"]}
    kernels = {op.sym_name.data: op for op in code_object.body.ops if isinstance(op, KernelOp)}
    for kernel, found in usage.kernels.items():
        descriptor = kernels[kernel].descriptor.data
        wave32 = bool(descriptor.kernel_code_properties.enable_wavefront_size32)
        assert wave32 == (metadata[kernel][".wavefront_size"] == 32)
        budget = found.budget
        assert budget is not None and budget.wave32 == wave32
        step = 8 if wave32 else 4
        assert budget.vgprs == (descriptor.compute_pgm_rsrc1.granulated_workitem_vgpr_count
                                + 1) * step
        assert found.highest("v") + 1 <= metadata[kernel][".vgpr_count"] <= budget.vgprs
        assert (budget.sgprs, budget.agprs) == (106, 0)
        assert found.highest("s") < budget.sgprs and found.highest("a") < 0


@pytest.mark.parametrize("name", [n for n in CODE_OBJECTS if n.endswith(("gfx90a.co",
                                                                        "gfx942.co"))])
def test_touched_registers_are_the_ones_objdump_prints(name: str) -> None:
    if shutil.which("llvm-objdump-19") is None:
        pytest.skip("llvm-objdump-19 is not installed")
    printed = _objdump_registers(KERNELS / name)
    usage = RegisterUsage(corpus(name))
    for kernel, found in usage.kernels.items():
        expected: set[str] = set()
        for function in found.functions:
            expected |= printed[function]
        ours = set(unit_names(found.touched & (SGPR_MASK | VGPR_MASK | AGPR_MASK)))
        assert ours == expected, (kernel, sorted(ours ^ expected))


@pytest.mark.parametrize("name", ["calls.gfx90a.co", "calls.gfx942.co"])
def test_kernels_that_call_count_their_callees(name: str) -> None:
    usage = RegisterUsage(corpus(name))
    direct = usage.kernel("call_device_function")
    assert direct.complete and len(direct.functions) > 1
    devices = {op.sym_name.data for op in corpus(name).body.ops if isinstance(op, FunctionOp)}
    for kernel in ("indirect_call_table", "indirect_call_select"):
        found = usage.kernel(kernel)
        # An unknown target may be any device function of the object.
        assert not found.complete and found.unknown_code is None
        assert devices <= set(found.functions)


def test_entry_registers_follow_the_descriptor() -> None:
    for op in corpus("control_flow.gfx90a.co").body.ops:
        if isinstance(op, KernelOp) and op.sym_name.data == "grid_stride_loop":
            descriptor = op.descriptor.data
            # Private segment buffer s[0:3], dispatch ptr s[4:5], kernarg ptr s[6:7]
            # (user_sgpr_count 8), workgroup id x in s8; packed workitem ids in v0.
            assert descriptor.compute_pgm_rsrc2.user_sgpr_count == 8
            assert unit_names(entry_registers(descriptor, "gfx90a")) == [
                *(f"s{i}" for i in range(9)), "v0"]
            # gfx908 gives each enabled workitem id its own VGPR.
            assert "v0" in unit_names(entry_registers(descriptor, "gfx908"))
            return
    raise AssertionError("grid_stride_loop not found")


def _descriptor(sgpr_blocks: int, vgpr_blocks: int, accum_offset: int) -> KernelDescriptor:
    template = next(op for op in parsed("liveness_shapes.mlir").body.ops
                    if isinstance(op, KernelOp)).descriptor.data
    rsrc1 = replace(template.compute_pgm_rsrc1, granulated_wavefront_sgpr_count=sgpr_blocks,
                    granulated_workitem_vgpr_count=vgpr_blocks)
    rsrc3 = replace(template.compute_pgm_rsrc3, accum_offset=accum_offset)
    return replace(template, compute_pgm_rsrc1=rsrc1, compute_pgm_rsrc3=rsrc3)


def test_budget_granules_and_occupancy() -> None:
    # 24 SGPRs encoded (3 blocks of 8) are allocated as 32 (blocks of 16); 4 special.
    budget = RegisterBudget.from_descriptor("gfx90a", _descriptor(2, 5, 7), False)
    assert (budget.sgprs_allocated, budget.sgprs) == (32, 28)
    # 6 blocks of 8 unified registers; AGPRs start at (7 + 1) * 4 = 32.
    assert (budget.vgprs_allocated, budget.vgprs, budget.agprs) == (48, 32, 16)
    assert budget.waves_per_simd == 8  # 512 // 48 = 10, capped at 8 on gfx90a
    with_flat_scratch = RegisterBudget.from_descriptor("gfx90a", _descriptor(2, 5, 7), True)
    assert with_flat_scratch.sgprs == 26
    # An xnack- object has no XNACK_MASK at the allocation's top: 2 special SGPRs.
    no_xnack = RegisterBudget.from_descriptor("gfx90a", _descriptor(2, 5, 7), False, False)
    assert no_xnack.sgprs == 30
    assert RegisterBudget.from_descriptor("gfx90a", _descriptor(2, 5, 7), True, False).sgprs \
        == 28
    # gfx942's flat scratch is architected: always 6 special SGPRs.
    assert RegisterBudget.from_descriptor("gfx942", _descriptor(2, 5, 7), False).sgprs == 26
    # gfx908: granule 4, separate files of the same size.
    budget = RegisterBudget.from_descriptor("gfx908", _descriptor(0, 31, 0), False)
    assert (budget.vgprs_allocated, budget.vgprs, budget.agprs, budget.unified) == \
        (128, 128, 128, False)
    assert budget.waves_per_simd == 2
    # LLVM's tables: 129 unified registers round to 136 -> 3 waves on gfx90a.
    assert vgpr_occupancy(129, "gfx90a") == 3
    assert vgpr_occupancy(64, "gfx90a") == 8
    assert vgpr_occupancy(84, "gfx908") == 3
    assert [sgpr_occupancy(n, 10) for n in (80, 88, 96, 104)] == [10, 9, 8, 7]
    # More registers than one granule: waves_with says what a bigger allocation costs.
    budget = RegisterBudget.from_descriptor("gfx90a", _descriptor(1, 15, 31), False)
    assert budget.waves_per_simd == 4
    assert budget.waves_with(16, 256) == 2


THIRDPARTY = Path(__file__).resolve().parents[4] / "build" / "thirdparty" / "codeobjects"


@pytest.mark.parametrize("name", ["librocrand.xnack-.gfx90a.co", "librocrand.xnack+.gfx90a.co",
                                  "librocrand.xnack-.gfx908.co"])
def test_compiled_kernels_fit_their_budget(name: str) -> None:
    """Every SGPR a compiled kernel's code uses is inside the budget read back from its
    descriptor: the compiler sized the allocation for them. rocRAND's xnack- kernels use
    the two SGPRs an XNACK_MASK would take (fetched by test/corpus/thirdparty/fetch.sh)."""
    path = THIRDPARTY / "librocrand1" / name
    if not path.is_file():
        pytest.skip(f"{name} is not fetched (test/corpus/thirdparty/fetch.sh)")
    usage = RegisterUsage(lift_code_object(read_code_object(path.read_bytes())).module)
    over = [(kernel, usage.highest("s") + 1, usage.budget.sgprs)
            for kernel, usage in usage.kernels.items()
            if usage.budget is not None and usage.highest("s") + 1 > usage.budget.sgprs]
    assert over == []
