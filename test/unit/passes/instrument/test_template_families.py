"""Template families: shapes whose lowered code differs only in symbol addends share the
first shape's allocations (:mod:`luthier.passes.instrument.template_families`).

That the shared lowering prints what the passes print one payload at a time is
``test_templates.py``'s comparison (opcode_histogram is one family); here: what makes a
family, and that the points of the members keep their own addends.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from luthier.amdgpu_dialects.amdgpu_mc.layout import packed_encoding
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeOp
from luthier.amdgpu_dialects.instr.attributes import ConstArgAttr
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.drivers.opt_main import load_hooks, merge_hooks
from luthier.drivers.pipeline import pipeline_context
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.instrument.insert_hooks import InsertHooksPass
from luthier.passes.instrument.template_families import families
from luthier.passes.instrument.templates import AllocationOptions, lower_hooks_with_templates

ROOT = Path(__file__).resolve().parents[4]
KERNEL = ROOT / "test" / "corpus" / "kernels" / "elementwise.gfx90a.co"
HISTOGRAM = ROOT / "examples" / "hooks" / "opcode_histogram.mlir"

_CODE_OBJECT = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, '
                'elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {')
_PAYLOADS = _CODE_OBJECT + """
  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    instr.payload @leader attributes {args = []} {
      amdgpu_mc.s_getpc_b64 s[0:1]
      amdgpu_mc.s_add_u32 s0, s0, t@rel32@lo+4
      amdgpu_mc.s_addc_u32 s1, s1, t@rel32@hi+12
      instr.return
    }
    instr.payload @member attributes {args = []} {
      amdgpu_mc.s_getpc_b64 s[0:1]
      amdgpu_mc.s_add_u32 s0, s0, t@rel32@lo+36
      amdgpu_mc.s_addc_u32 s1, s1, t@rel32@hi+44
      instr.return
    }
    instr.payload @other_symbol attributes {args = []} {
      amdgpu_mc.s_getpc_b64 s[0:1]
      amdgpu_mc.s_add_u32 s0, s0, u@rel32@lo+4
      amdgpu_mc.s_addc_u32 s1, s1, u@rel32@hi+12
      instr.return
    }
    instr.payload @other_immediate attributes {args = []} {
      amdgpu_mc.s_getpc_b64 s[0:1]
      amdgpu_mc.s_add_u32 s0, s0, t@rel32@lo+4
      amdgpu_mc.s_addc_u32 s1, s1, t@rel32@hi+12
      amdgpu_mc.s_add_u32 s2, s0, 8
      instr.return
    }
    instr.payload @twice attributes {args = []} {
      amdgpu_mc.s_getpc_b64 s[0:1]
      amdgpu_mc.s_add_u32 s0, s0, t@rel32@lo+4
      amdgpu_mc.s_addc_u32 s1, s1, t@rel32@lo+4
      amdgpu_mc.s_add_u32 s2, s0, 16
      instr.return
    }
    instr.payload @twice_split attributes {args = []} {
      amdgpu_mc.s_getpc_b64 s[0:1]
      amdgpu_mc.s_add_u32 s0, s0, t@rel32@lo+4
      amdgpu_mc.s_addc_u32 s1, s1, t@rel32@lo+8
      amdgpu_mc.s_add_u32 s2, s0, 16
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
}
"""


def _payloads() -> dict[str, PayloadOp]:
    module = Parser(pipeline_context(), _PAYLOADS).parse_module()
    return {op.hook.string_value(): op for op in module.walk() if isinstance(op, PayloadOp)}


def test_a_family_is_the_same_code_up_to_addends() -> None:
    payloads = _payloads()
    members = families(payloads.items())
    # Another symbol, another instruction: families of their own. One addend where the
    # first has two stays alone.
    assert set(members) == {"member"}
    member = members["member"]
    assert member.leader == "leader"
    assert sorted(str(old.data.text()) + " -> " + str(new.data.text())
                  for old, new in member.addends.items()) == [
        "t@rel32@hi+12 -> t@rel32@hi+44", "t@rel32@lo+4 -> t@rel32@lo+36"]


def test_a_shape_equal_to_its_leader_needs_no_addends() -> None:
    payloads = _payloads()
    members = families([("first", payloads["twice"]), ("second", payloads["twice"])])
    assert members["second"].addends == {}
    assert "twice_split" not in families([("twice", payloads["twice"]),
                                          ("twice_split", payloads["twice_split"])])


def _histogram(packed: bool) -> tuple[ModuleOp, int, int]:
    ctx = pipeline_context()
    module = ModuleOp([lift_code_object(read_code_object(KERNEL)).module])
    merge_hooks(module, load_hooks(ctx, str(HISTOGRAM)), str(KERNEL), str(HISTOGRAM))
    InsertHooksPass().apply(ctx, module)
    stats = lower_hooks_with_templates(ctx, module, AllocationOptions(), packed=packed)
    assert stats is not None
    assert stats.shapes > 10
    return module, stats.members, stats.shapes


def _addends(payload: PayloadOp) -> list[str]:
    first = payload.body.block.first_op
    ops = first.code.data.ops if isinstance(first, PackedCodeOp) else list(payload.body.walk())
    stream = StringIO()
    printer = Printer(stream=stream)
    for op in ops:
        printer.print_op(op)
        stream.write("\n")
    return re.findall(r"opcode_histogram@rel32@(?:lo|hi)[+-]\d+", stream.getvalue())


def test_every_point_keeps_its_own_opcode() -> None:
    """opcode_histogram: one shape per opcode, all one family; packed or not, each point's
    code addresses its own opcode's counter (8 bytes per opcode, after the rel32 addends'
    4 and 12)."""
    for packed in (False, True):
        module, members, shapes = _histogram(packed)
        assert members == shapes - 1
        for payload in (op for op in module.walk() if isinstance(op, PayloadOp)):
            (opcode,) = payload.args.data
            assert isinstance(opcode, ConstArgAttr)
            value = opcode.value
            assert _addends(payload) == [
                f"opcode_histogram@rel32@lo+{4 + 8 * value}",
                f"opcode_histogram@rel32@hi+{12 + 8 * value}"]


def test_variants_share_their_family_but_for_the_addends() -> None:
    """Packed, a member's code is a variant of its leader's: the instructions without a
    symbolic operand are the leader's own ops, the bytes (symbolic operands are zero
    literals) are found once for the family, and the relocations come from the variant's
    own instructions."""
    module, _, _ = _histogram(True)
    isa = load_target("gfx90a")
    codes = {id(op.code.data): op.code.data for op in module.walk()
             if isinstance(op, PackedCodeOp)}
    variants = [code for code in codes.values() if code.family is not code]
    assert len(variants) >= 10
    for code in variants:
        family = code.family
        assert family.family is family
        encoding = packed_encoding(code, isa)
        assert encoding.data == packed_encoding(family, isa).data
        symbolic = {id(op) for _, op in encoding.symbolic}
        assert len(symbolic) == 2 and symbolic <= {id(op) for op in code.ops}
        for op, theirs in zip(code.ops, family.ops, strict=True):
            assert (op is theirs) == (id(op) not in symbolic)
            assert op.opcode == theirs.opcode
    with pytest.raises(ValueError, match="one for one"):
        PackedCode(variants[0].ops[1:], variant_of=variants[0])
