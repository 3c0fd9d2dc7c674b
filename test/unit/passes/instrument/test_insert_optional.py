"""``insert-hooks``: insertions that may match nothing (``optional``), insertions that name
what a tool leaves out (``skip``, reported by :func:`insertion_remarks`), and which
instructions ``#instr.operand<"address">`` gives an address for.

A tool usable on any kernel must not refuse a kernel for lacking one kind of instruction,
and must say what it left out; the address operand must be refused where it would be a
number no host can map to memory (scratch offsets, buffer offsets that a V# interprets).
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException, VerifyException

from luthier.amdgpu_dialects.instr.attributes import AddressArgAttr
from luthier.amdgpu_dialects.instr.ops import InsertOp, PayloadOp
from luthier.drivers.pipeline import pipeline_context
from luthier.frontend.hooks import HookBuilder, HookModule, Operand, Value, i64
from luthier.passes.instrument.insert_hooks import (
    InsertHooksPass,
    check_insertions,
    insertion_remarks,
)

#: Two kernels and a device function: @loads loads and reaches scratch and a buffer,
#: @stores stores and does an atomic, @helper (not instrumented unless named) has a buffer
#: access too.
CODE = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", '
        'e_flags = 1343 : i64, abi_version = 3 : i64}> {' + """
  amdgpu_mc.kernel @loads <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.global_load_dword v4, v1, s[0:1] offset:16
    amdgpu_mc.buffer_load_dword v2, v1, s[4:7], 0 offen
    amdgpu_mc.buffer_store_dword v2, v1, s[4:7], 0 offen
    amdgpu_mc.buffer_store_dword v2, v1, s[4:7], 0 offen offset:4
    amdgpu_mc.buffer_wbl2
    amdgpu_mc.scratch_store_dword v1, v2, off
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @stores <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.global_store_dword v[2:3], v4, off offset:-8
    amdgpu_mc.flat_atomic_add v[2:3], v4 offset:8
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.func @helper {
    amdgpu_mc.buffer_load_dword v2, v1, s[4:7], 0 offen
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
instr.hook @trace(%address: i64) {
  instr.return
}
""")

WHY = "not traced"


def _module(inserts: str) -> ModuleOp:
    module = Parser(pipeline_context(), CODE + inserts).parse_module()
    module.verify()
    return module


def _insert(mnemonic: str, extra: str = "", operand: str = "address") -> str:
    return (f'instr.insert @trace {{at = "instruction", mnemonic = "{mnemonic}"{extra}, '
            f'args = [#instr.operand<"{operand}">]}}\n')


def _payloads(module: ModuleOp) -> list[tuple[str, str]]:
    """(function, instrumented mnemonic) of every payload, in layout order."""
    found: list[tuple[str, str]] = []
    for payload in module.walk():
        if isinstance(payload, PayloadOp):
            point = payload.next_op
            function = payload.parent_op()
            assert point is not None and function is not None
            found.append((str(function.properties["sym_name"]).strip('"'),
                          point.name.removeprefix("amdgpu_mc.")))
    return found


def test_an_insertion_that_matches_nothing_is_refused_unless_optional() -> None:
    refused = _module(_insert("global_atomic*"))
    with pytest.raises(PassFailedException, match="the insertion matches nothing"):
        InsertHooksPass().apply(pipeline_context(), refused)
    with pytest.raises(PassFailedException, match="the insertion matches nothing"):
        check_insertions(_module(_insert("global_atomic*")))
    module = _module(_insert("global_atomic*", ", optional") + _insert("flat_*", ", optional"))
    check_insertions(module)
    assert insertion_remarks(module) == []  # the flat atomic matched: something is placed
    InsertHooksPass().apply(pipeline_context(), module)
    assert _payloads(module) == [("stores", "flat_atomic_add")]
    assert not any(isinstance(op, InsertOp) for op in module.walk())


def test_global_and_flat_accesses_of_every_kind_get_their_address() -> None:
    module = _module(_insert("global_*", ", optional") + _insert("flat_*", ", optional"))
    InsertHooksPass().apply(pipeline_context(), module)
    addresses = [payload.args.data[0] for payload in module.walk()
                 if isinstance(payload, PayloadOp)]
    assert addresses == [AddressArgAttr(("s[0:1]", "v1", 16)),
                         AddressArgAttr(("v[2:3]", "", -8)),
                         AddressArgAttr(("v[2:3]", "", 8))]


def test_skip_insertions_place_nothing_and_are_counted_per_function() -> None:
    skips = "".join(_insert(pattern, f', skip = "{WHY}"')
                    for pattern in ("buffer_load*", "buffer_store*", "scratch_*"))
    module = _module(_insert("global_*", ", optional") + skips)
    check_insertions(module)
    # buffer_wbl2 is no access, and @helper is not a kernel: neither is counted
    assert insertion_remarks(module) == [
        f"@loads: @trace skips 1 buffer_load*, 2 buffer_store* and 1 scratch_*: {WHY}"]
    InsertHooksPass().apply(pipeline_context(), module)
    assert _payloads(module) == [("loads", "global_load_dword"),
                                 ("stores", "global_store_dword")]
    assert not any(isinstance(op, InsertOp) for op in module.walk())


def test_a_skip_naming_a_device_function_counts_there() -> None:
    module = _module('instr.insert @trace {at = "instruction", kernel = "helper", '
                     f'class = "MUBUF", skip = "{WHY}", args = [#instr.operand<"address">]}}\n'
                     + _insert("global_*"))
    assert insertion_remarks(module) == [f"@helper: @trace skips 1 of class MUBUF: {WHY}"]


def test_when_no_insertion_matches_the_remark_says_nothing_is_instrumented() -> None:
    module = _module(_insert("global_atomic*", ", optional")
                     + _insert("scratch_*", f', skip = "{WHY}"'))
    assert insertion_remarks(module) == [
        f"@loads: @trace skips 1 scratch_*: {WHY}",
        "no insertion matches anything: nothing is instrumented (@trace: at instruction, "
        "every kernel, mnemonic global_atomic*)"]
    InsertHooksPass().apply(pipeline_context(), module)
    assert _payloads(module) == []


@pytest.mark.parametrize(("mnemonic", "message"), [
    ("scratch_*", "@loads, scratch_store_dword is a scratch access: its address is an offset "
                  "in the lane's private segment, not a 64-bit address operand"),
    ("buffer_load*", "@loads, buffer_load_dword is a buffer access: its address is made by "
                     "the buffer resource (V#) it names when the kernel runs; there is no "
                     "64-bit address operand"),
    ("s_endpgm", "@loads, s_endpgm is not a global or flat memory access: it has no address "
                 "operand"),
])
def test_the_address_operand_is_refused_where_there_is_none(mnemonic: str,
                                                            message: str) -> None:
    module = _module(_insert(mnemonic, ", optional"))
    with pytest.raises(PassFailedException) as error:
        InsertHooksPass().apply(pipeline_context(), module)
    assert str(error.value) == f"insert-hooks: @trace: {message}"


def test_a_skip_needs_a_reason() -> None:
    with pytest.raises(VerifyException, match="skip needs a reason"):
        _module(_insert("scratch_*", ', skip = " "'))
    hooks = HookModule()

    @hooks.hook(args=[i64])
    def trace(h: HookBuilder, address: Value) -> None:
        del h, address

    with pytest.raises(ValueError, match="skip needs a reason"):
        hooks.insert(trace, mnemonic="scratch_*", skip="", args=[Operand("address")])
    hooks.insert(trace, mnemonic="global_*", optional=True, args=[Operand("address")])
    hooks.insert(trace, mnemonic="scratch_*", skip=WHY, args=[Operand("address")])
    assert hooks.text().splitlines()[-3:-1] == [
        '  instr.insert @trace {at = "instruction", mnemonic = "global_*", optional, '
        'args = [#instr.operand<"address">]}',
        f'  instr.insert @trace {{at = "instruction", mnemonic = "scratch_*", skip = "{WHY}", '
        'args = [#instr.operand<"address">]}']


def test_a_skip_leaves_its_instructions_out_of_the_same_hooks_other_insertions() -> None:
    """``global_*`` also matches what a skip of the same hook names (as GFX12's address-less
    ``global_wb``/``global_inv`` under the memory_trace example's ``global_*``): those get no
    payload, the rest do."""
    skip = _insert("global_store*", f', skip = "{WHY}"')
    module = _module(_insert("global_*", ", optional") + skip)
    InsertHooksPass().apply(pipeline_context(), module)
    assert _payloads(module) == [("loads", "global_load_dword")]
    without = _module(_insert("global_*", ", optional"))
    InsertHooksPass().apply(pipeline_context(), without)
    assert _payloads(without) == [("loads", "global_load_dword"),
                                  ("stores", "global_store_dword")]
