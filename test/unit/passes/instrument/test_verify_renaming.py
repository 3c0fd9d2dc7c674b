"""``verify-payloads`` executes one body per class of bodies equal up to their
general-purpose registers and renames the result for the others
(:mod:`luthier.passes.instrument.verify_renaming`).

The claim that makes this sound is checked on real lowered code: for every packed body
(straight-line code, the bodies the classes are made of) that the example hooks get on
corpus objects, the renamed summary of its class's first body equals the summary of its
own execution. (``test_verify_payloads.py`` checks that a clobber is still found when the
body that makes it shares its class with a clean one.)
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from xdsl.dialects.builtin import ModuleOp

from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.register_units import UNIT_COUNT, units_of
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.drivers.opt_main import load_hooks, merge_hooks
from luthier.drivers.pipeline import pipeline_context
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.analysis.cfg import isa_of
from luthier.passes.analysis.effects import EffectTable
from luthier.passes.instrument.insert_hooks import InsertHooksPass
from luthier.passes.instrument.templates import AllocationOptions, lower_hooks_with_templates
from luthier.passes.instrument.verify_flow import run
from luthier.passes.instrument.verify_machine_code import payload_code
from luthier.passes.instrument.verify_renaming import Summary, renamable, rename, summarize

ROOT = Path(__file__).resolve().parents[4]
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOOKS = ROOT / "examples" / "hooks"


def _lowered(path: Path, hook: Path, options: AllocationOptions) -> ModuleOp:
    """``path`` with ``hook`` before every instruction, lowered to packed bodies."""
    ctx = pipeline_context()
    module = ModuleOp([lift_code_object(read_code_object(path)).module])
    merge_hooks(module, load_hooks(ctx, str(hook)), str(path), str(hook))
    InsertHooksPass().apply(ctx, module)
    assert lower_hooks_with_templates(ctx, module, options, packed=True) is not None
    return module


def _packed_payloads(module: ModuleOp) -> dict[PackedCode, PayloadOp]:
    """A payload of each distinct packed body."""
    found: dict[PackedCode, PayloadOp] = {}
    for code_object in module.ops:
        if not isinstance(code_object, CodeObjectOp):
            continue  # the tool's globals
        for function in code_object.body.ops:
            if not isinstance(function, FunctionLikeOp):
                continue
            for block in function.body.blocks:
                for op in block.ops:
                    body = op.regions[0].first_block if isinstance(op, PayloadOp) else None
                    if body is not None and isinstance(packed := body.first_op, PackedCodeOp):
                        found.setdefault(packed.code.data, cast(PayloadOp, op))
    return found


@pytest.mark.parametrize("hook", ["instr_count", "opcode_histogram"])
@pytest.mark.parametrize("name", ["control_flow.gfx90a", "lds.gfx942", "edges.gfx90a",
                                  "scratch.gfx90a", "calls.gfx90a", "mfma.gfx942"])
def test_renamed_summary_is_the_summary_of_the_body(name: str, hook: str) -> None:
    module = _lowered(KERNELS / f"{name}.co", HOOKS / f"{hook}.mlir", AllocationOptions())
    code_object = module.body.block.first_op
    assert isinstance(code_object, CodeObjectOp)
    bodies = _packed_payloads(module)
    isa = isa_of(code_object)
    assert isa is not None
    effects = EffectTable.shared(isa)
    leaders: dict[object, tuple[Summary, tuple[int, ...]]] = {}
    renamed = 0
    for code, payload in bodies.items():
        kind = renamable(code, effects)
        assert kind is not None, f"{name}: a body of {hook} has no class"
        program, problems = payload_code(payload, effects.isa)
        assert program is not None and not problems
        own = summarize(run(program, effects))
        leader = leaders.setdefault(kind.signature, (own, kind.units))
        assert rename(leader[0], leader[1], kind.units) == own
        renamed += leader[1] != kind.units
    assert len(leaders) < len(bodies) and renamed, \
        f"{name} with {hook}: no two bodies of one class to compare"


def test_rename_moves_both_parts_of_a_vector_unit() -> None:
    v5, v9, s3, s4 = (units_of(name).bit_length() - 1 for name in ("v5", "v9", "s3", "s4"))
    scc = units_of("scc").bit_length() - 1
    summary = Summary((((v5, 1 << s3), (v5 + UNIT_COUNT, 1 << (v5 + UNIT_COUNT)),
                        (scc, 1 << scc)),), 1 << s3 | 1 << scc, True)
    renamed = rename(summary, (s3, v5), (s4, v9))
    assert renamed == Summary((((v9, 1 << s4), (v9 + UNIT_COUNT, 1 << (v9 + UNIT_COUNT)),
                                (scc, 1 << scc)),), 1 << s4 | 1 << scc, True)
