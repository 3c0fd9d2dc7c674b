"""Call sites of an ``amdgpu_mc`` function, and what each one calls.

AMDGPU code calls with ``s_swappc_b64 s[30:31], s[N:N+1]`` (and leaves with
``s_setpc_b64 s[N:N+1]`` for a tail call): the target is a value in an SGPR pair, not an
operand of the call. The compiler builds that value in a few recognisable ways, which the
lifter has already made symbolic:

    s_getpc_b64 s[16:17]                          ; PC-relative (rel32)
    s_add_u32   s16, s16, callee@rel32@lo+4
    s_addc_u32  s17, s17, callee@rel32@hi+12

    s_getpc_b64 s[16:17]                          ; through a GOT slot (gotpcrel32)
    s_add_u32   s16, s16, callee@gotpcrel32@lo+4
    s_addc_u32  s17, s17, callee@gotpcrel32@hi+12
    s_load_dwordx2 s[16:17], s[16:17], 0x0

    s_mov_b32 s16, callee@abs32@lo                ; absolute (abs32)
    s_mov_b32 s17, callee@abs32@hi

possibly moved with ``s_mov_b32``/``s_mov_b64`` before the call. This module evaluates the
instructions before a call forward over 32-bit SGPR halves, inside the call's block and the
chain of single-predecessor blocks before it (where the value at a block's entry is the value
at its only predecessor's exit), and names the callee only when both halves provably hold the
address of a symbol's first byte. Anything else (a select, a table load, a value read from a
VGPR, a function argument, a value that arrives through a join) is an unknown target, with a
reason saying which instruction or which join made it unknown: liveness and the call graph
must then assume the worst, so a guess here would be unsound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, cast

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Attribute, Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, branch_label
from luthier.amdgpu_dialects.amdgpu_mc.layout import FunctionLayout, literal_offset
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    SymbolOperandAttr,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, register_units
from luthier.amdgpu_dialects.amdgpu_mc.structure import FallthroughOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.isa.target import OperandSlot, TargetISA

#: How many single-predecessor blocks before a call the resolver looks through. Compilers
#: materialise a call target right before the call; the bound keeps long straight chains
#: (unrolled code split by uniform branches) from making resolution quadratic.
MAX_CHAIN_BLOCKS = 64

#: The register a device function receives its return address in (AMDGPU calling
#: convention): ``s_setpc_b64`` of it is a return, of anything else a jump or a tail call.
RETURN_ADDRESS = "s[30:31]"


class CallKind(StrEnum):
    """``call`` returns to the next instruction; ``tail-call`` leaves the function."""

    CALL = "call"
    TAIL_CALL = "tail-call"


@dataclass(frozen=True, slots=True)
class CallSite:
    """One call (or tail call / computed jump) in a function, and what it calls."""

    #: The function the call is in.
    function: str
    #: Index of the block (layout order) and of the instruction inside it.
    block: int
    position: int
    op: InstructionOpBase
    kind: CallKind
    #: The operand that holds the target: ``s[16:17]``, or the label of ``s_call_b64``.
    target: str
    #: The callee's symbol name, or None when the target is not known.
    callee: str | None
    #: How the callee was found (``s_getpc_b64 + rel32``), or why the target is unknown.
    reason: str

    @property
    def resolved(self) -> bool:
        return self.callee is not None


# -- the values an SGPR half can hold -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class _PcHalf:
    """Half of what ``s_getpc_b64`` wrote (``getpc`` numbers the instruction)."""

    getpc: int
    high: bool
    #: Byte offset, in the function, of the instruction after the s_getpc_b64.
    pc: int


@dataclass(frozen=True, slots=True)
class _AddressHalf:
    """Half of ``pc + sym@variant``: the address of ``symbol + offset`` (a GOT slot's
    address for ``gotpcrel32``, the symbol's own for ``rel32``), or of an ``abs32``."""

    getpc: int
    high: bool
    symbol: str
    variant: str
    offset: int


@dataclass(frozen=True, slots=True)
class _LoadedHalf:
    """Half of the 64-bit value loaded from the GOT slot of ``symbol``."""

    load: int
    high: bool
    symbol: str


@dataclass(frozen=True, slots=True)
class _Unknown:
    """A value we cannot name; ``why`` says what wrote it."""

    why: str


_Value = _PcHalf | _AddressHalf | _LoadedHalf | _Unknown


def sgpr_pair(attr: Attribute) -> int | None:
    """N of an even-or-odd SGPR pair ``s[N:N+1]``; None for anything else."""
    if not isinstance(attr, PhysRegAttr):
        return None
    units = register_units(attr.data)
    if units is None or units[0] != "s" or units[2] != 2:
        return None
    return units[1]


def _sgpr_units(attr: Attribute) -> range | None:
    if not isinstance(attr, PhysRegAttr):
        return None
    units = register_units(attr.data)
    if units is None or units[0] != "s":
        return None
    return range(units[1], units[1] + units[2])


class _Evaluator:
    """Forward evaluation of SGPR halves over a straight sequence of instructions."""

    def __init__(self, isa: TargetISA | None, layout: FunctionLayout | None,
                 describe: _Describe, incoming: _Unknown) -> None:
        self.isa = isa
        self.layout = layout
        self.describe = describe
        self.values: dict[int, _Value] = {}
        #: What an SGPR not in ``values`` holds.
        self.default: _Value = incoming
        #: The lo add whose carry SCC holds now, as (getpc, symbol, family), else None.
        self.carry: tuple[int, str, str] | None = None
        self._pending_carry: tuple[int, str, str] | None = None
        self.serial = 0

    def get(self, unit: int) -> _Value:
        return self.values.get(unit, self.default)

    def _kill_all(self, why: str) -> None:
        self.values.clear()
        self.default = _Unknown(why)
        self.carry = None

    def step(self, op: Operation) -> None:
        self.serial += 1
        if isinstance(op, FallthroughOp) or type(op) is PayloadOp:
            # A payload keeps every register the application reads after it
            # (verify-payloads checks it): the application's values pass through.
            return
        if not isinstance(op, InstructionOpBase):
            self._kill_all(f"possibly written by {op.name} {self.describe(op)}")
            return
        desc = self.isa.by_name.get(op.opcode.data) if self.isa is not None else None
        if desc is None:
            self._kill_all(f"possibly written by {op.mnemonic} {self.describe(op)} "
                           f"(its opcode {op.opcode.data} is not in the target's tables)")
            return
        if op.KIND == "call":
            self._kill_all(f"clobbered by the call {self.describe(op)}")
            return
        operands = op.mc_operands.data
        self._pending_carry = None
        # LLVM's pseudo names one operation across generations (GFX11's s_load_b64 is
        # S_LOAD_DWORDX2_IMM, GFX12's s_add_co_ci_u32 is s_addc_u32).
        known = self._known_effect(op, desc.pseudo.lower() or op.mnemonic, operands)
        self._write_defs(op, desc.operands, operands, known)
        if "SCC" in desc.defs:
            self.carry = self._pending_carry

    def _write_defs(self, op: InstructionOpBase, slots: Sequence[OperandSlot],
                    operands: Sequence[Attribute], known: list[_Value] | None) -> None:
        """Give the first def ``known`` (when we can name its value), others unknown."""
        written = _Unknown(f"written by {op.mnemonic} {self.describe(op)}")
        for slot, attr in zip(slots, operands, strict=False):
            if not slot.is_def:
                continue
            units = _sgpr_units(attr)
            if units is None:
                continue
            for index, unit in enumerate(units):
                self.values[unit] = known[index] if known is not None \
                    and index < len(known) else written
            known = None

    def _single(self, attr: Attribute) -> _Value | None:
        units = _sgpr_units(attr)
        if units is None or len(units) != 1:
            return None
        return self.get(units[0])

    def _known_effect(self, op: InstructionOpBase, mnemonic: str,
                      operands: Sequence[Attribute]) -> list[_Value] | None:
        """The values the first def of ``op`` receives, when we can name them."""
        if mnemonic == "s_getpc_b64":
            return self._getpc(op)
        if mnemonic == "s_sext_i32_i16" and len(operands) == 2:
            return self._pc_sign_extension(operands)
        if mnemonic in ("s_add_u32", "s_addc_u32") and len(operands) == 3:
            return self._pc_add(op, mnemonic == "s_addc_u32", operands)
        if mnemonic == "s_mov_b32" and len(operands) == 2:
            source = operands[1]
            if isinstance(source, SymbolOperandAttr):
                return self._absolute(source)
            value = self._single(source)
            return [value] if value is not None else None
        if mnemonic == "s_mov_b64" and len(operands) == 2:
            units = _sgpr_units(operands[1])
            if units is None or len(units) != 2:
                return None
            return [self.get(units[0]), self.get(units[1])]
        if mnemonic == "s_load_dwordx2_imm" and len(operands) >= 3:
            return self._got_load(operands)
        return None

    def _pc_sign_extension(self, operands: Sequence[Attribute]) -> list[_Value] | None:
        """``s_sext_i32_i16 sN, sN`` of the high half of ``s_getpc_b64``'s value: the
        sign extension of the 48-bit program counter that LLVM adds on GFX12
        (``hasGetPCZeroExtension``), the same address. Anything else is unknown."""
        destination, source = _sgpr_units(operands[0]), _sgpr_units(operands[1])
        if destination is None or destination != source or len(destination) != 1:
            return None
        value = self.get(destination[0])
        return [value] if isinstance(value, _PcHalf) and value.high else None

    def _getpc(self, op: InstructionOpBase) -> list[_Value] | None:
        if self.layout is None or op not in self.layout.offsets:
            return None
        end = self.layout.end(op)
        return [_PcHalf(self.serial, False, end), _PcHalf(self.serial, True, end)]

    def _pc_add(self, op: InstructionOpBase, high: bool,
                operands: Sequence[Attribute]) -> list[_Value] | None:
        register, symbolic = operands[1], operands[2]
        if isinstance(register, SymbolOperandAttr):
            register, symbolic = symbolic, register
        if not isinstance(symbolic, SymbolOperandAttr):
            return None
        reference = symbolic.data.reference
        base = self._single(register)
        if reference is None or not isinstance(base, _PcHalf) or base.high != high:
            return None
        family, _, half = reference.variant.rpartition("@")
        if family not in ("rel32", "gotpcrel32") or half != ("hi" if high else "lo"):
            return None
        if high and self.carry != (base.getpc, reference.symbol, family):
            return [_Unknown(f"written by s_addc_u32 {self.describe(op)}, whose carry does "
                             "not come from the matching s_add_u32")]
        if self.layout is None or self.isa is None or op not in self.layout.offsets:
            return None
        # The literal at ``literal`` holds S + A - P (REL32 semantics, P being the
        # literal's address), so the register ends up as pc + S + A - P: the symbol, plus
        # the addend less the distance from the s_getpc_b64's pc to the literal.
        literal = self.layout.offsets[op] + literal_offset(op, self.isa)
        offset = reference.addend - (literal - base.pc)
        if not high:
            self._pending_carry = (base.getpc, reference.symbol, family)
        return [_AddressHalf(base.getpc, high, reference.symbol, family, offset)]

    def _absolute(self, source: SymbolOperandAttr) -> list[_Value] | None:
        reference = source.data.reference
        if reference is None or reference.variant not in ("abs32@lo", "abs32@hi"):
            return None
        return [_AddressHalf(-1, reference.variant.endswith("hi"), reference.symbol, "abs32",
                             reference.addend)]

    def _got_load(self, operands: Sequence[Attribute]) -> list[_Value] | None:
        base, offset = operands[1], operands[2]
        units = _sgpr_units(base)
        if units is None or len(units) != 2 or _immediate(offset) != 0:
            return None
        lo, hi = self.get(units[0]), self.get(units[1])
        if not _is_address(lo, hi, "gotpcrel32"):
            return None
        assert isinstance(lo, _AddressHalf)
        return [_LoadedHalf(self.serial, False, lo.symbol),
                _LoadedHalf(self.serial, True, lo.symbol)]


def _is_address(lo: _Value | None, hi: _Value | None, family: str) -> bool:
    """Both halves of one ``symbol`` address (offset 0) computed by one sequence."""
    return isinstance(lo, _AddressHalf) and isinstance(hi, _AddressHalf) \
        and not lo.high and hi.high and lo.getpc == hi.getpc and lo.symbol == hi.symbol \
        and lo.variant == hi.variant == family and lo.offset == hi.offset == 0


class _Describe:
    """Where an op is, for reasons and warnings: ``^bb2 +0x1c`` (or ``^bb2`` alone)."""

    def __init__(self, block_of: dict[Operation, int], layout: FunctionLayout | None) -> None:
        self.block_of = block_of
        self.offsets = layout.offsets if layout is not None else None

    def __call__(self, op: Operation) -> str:
        block = self.block_of.get(op)
        where = f"^bb{block}" if block is not None else "?"
        if self.offsets is not None and op in self.offsets:
            where += f" +{self.offsets[op]:#x}"
        return f"at {where}"


def _incoming(start: int, joins: int) -> _Unknown:
    """What a register not written on the way from ``^bb{start}`` to the call (or jump)
    holds."""
    if start == 0 and joins == 0:
        return _Unknown("not written in the function before this point (a value the function "
                        "receives)")
    if joins == 0:
        return _Unknown(f"not written in ^bb{start} before this point, and ^bb{start} is "
                        "unreachable")
    if joins == 1:
        return _Unknown(f"not written between the entry of ^bb{start} and this point (the "
                        "search stops there)")
    return _Unknown(f"not written between the entry of ^bb{start} and this point, and "
                    f"^bb{start} has {joins} predecessors")


def _conclude(register: str, first: int, lo: _Value, hi: _Value) -> tuple[str | None, str]:
    """The callee both halves name, or why they name none."""
    if _is_address(lo, hi, "rel32"):
        assert isinstance(lo, _AddressHalf)
        return lo.symbol, "s_getpc_b64 + rel32"
    if _is_address(lo, hi, "abs32"):
        assert isinstance(lo, _AddressHalf)
        return lo.symbol, "abs32 address"
    if isinstance(lo, _LoadedHalf) and isinstance(hi, _LoadedHalf) and lo.load == hi.load \
            and lo.symbol == hi.symbol and not lo.high and hi.high:
        return lo.symbol, "s_getpc_b64 + gotpcrel32, loaded from the GOT"
    for unit, value in ((first, lo), (first + 1, hi)):
        if isinstance(value, _Unknown):
            return None, f"s{unit} is {value.why}"
        if isinstance(value, _PcHalf):
            return None, f"s{unit} holds a program counter from s_getpc_b64"
    if isinstance(lo, _AddressHalf) and isinstance(hi, _AddressHalf) \
            and lo.symbol == hi.symbol and lo.getpc == hi.getpc and lo.variant == hi.variant \
            and lo.offset == hi.offset and not lo.high and hi.high:
        if lo.offset != 0:
            return None, (f"{register} holds the address {lo.symbol}{lo.offset:+#x}, which is "
                          "not the entry of a symbol")
        return None, (f"{register} holds the address of the GOT slot of {lo.symbol}, not the "
                      "address loaded from it")
    return None, (f"{register} does not hold one symbol's address (its halves come from "
                  "different computations)")


def resolve_target(blocks: Sequence[Block], predecessors: Sequence[Sequence[int]],
                   block: int, op: InstructionOpBase, register: Attribute,
                   isa: TargetISA | None, layout: FunctionLayout | None,
                   block_of: dict[Operation, int]) -> tuple[str | None, str]:
    """``(callee, how)`` or ``(None, why)`` for the code address in ``register`` just
    before ``op`` in ``blocks[block]``.

    ``layout`` (where each instruction lies in the function) turns the addends of
    PC-relative operands into offsets from their symbol; without it, PC-relative values
    stay unknown. ``block_of`` maps ops to block indices, for the reasons.
    """
    first = sgpr_pair(register)
    text = register.data if isinstance(register, PhysRegAttr) else str(register)
    if first is None:
        return None, f"the target {text} is not an SGPR pair"
    chain = [block]
    while len(chain) < MAX_CHAIN_BLOCKS:
        preds = predecessors[chain[0]]
        if len(preds) != 1 or preds[0] in chain:
            break
        chain.insert(0, preds[0])
    incoming = _incoming(chain[0], len(predecessors[chain[0]]))
    evaluator = _Evaluator(isa, layout, _Describe(block_of, layout), incoming)
    for index in chain[:-1]:
        for inner in blocks[index].ops:
            evaluator.step(inner)
    for inner in blocks[block].ops:
        if inner is op:
            break
        evaluator.step(inner)
    return _conclude(text, first, evaluator.get(first), evaluator.get(first + 1))


class FunctionView(Protocol):
    """What call-site discovery needs of a function: :class:`FunctionCFG` is one."""

    @property
    def name(self) -> str: ...
    @property
    def blocks(self) -> Sequence[Block]: ...
    @property
    def predecessors(self) -> Sequence[Sequence[int]]: ...
    #: Blocks ending in an ``s_setpc_b64`` that is not a return -> (callee, how / why).
    @property
    def jump_targets(self) -> Mapping[int, tuple[str | None, str]]: ...
    @property
    def isa(self) -> TargetISA | None: ...
    @property
    def layout(self) -> FunctionLayout | None: ...
    @property
    def application_layout(self) -> FunctionLayout | None: ...
    @property
    def block_of(self) -> dict[Operation, int]: ...


def find_call_sites(view: FunctionView) -> list[CallSite]:
    """The call sites of a function (usually a :class:`FunctionCFG`, whose ``call_sites``
    caches this) in layout order: every ``call`` instruction, and each ``s_setpc_b64``
    that the CFG found not to be a return (a tail call, or a jump to an unknown address,
    which may be one)."""
    sites: list[CallSite] = []
    for index, block in enumerate(view.blocks):
        for position, op in enumerate(block_ops(block)):
            if not isinstance(op, InstructionOpBase):
                continue
            if op.KIND == "call":
                sites.append(_call_site(view, index, position, op))
            elif op.KIND == "branch" and (label := branch_label(op)) is not None:
                # Into another function's code: that function goes on (a tail call
                # entering past its start; never a return to us).
                sites.append(CallSite(view.name, index, position, op, CallKind.TAIL_CALL,
                                      label.data, label.function, "a branch into its code"))
            elif op.KIND == "terminator" and index in view.jump_targets \
                    and op is block.last_op:
                callee, reason = view.jump_targets[index]
                target = op.mc_operands.data[0]
                sites.append(CallSite(view.name, index, position, op, CallKind.TAIL_CALL,
                                      _operand_text(target), callee, reason))
    return sites


def _operand_text(attr: Attribute) -> str:
    if isinstance(attr, PhysRegAttr):
        return attr.data
    if isinstance(attr, SymbolOperandAttr):
        return attr.data.text()
    value = _immediate(attr)
    return str(value) if value is not None else str(attr)


def _immediate(attr: Attribute) -> int | None:
    if isinstance(attr, IntAttr):
        return cast(int, attr.data)  # pyright: ignore[reportUnknownMemberType]
    return None


def _call_site(cfg: FunctionView, block: int, position: int,
               op: InstructionOpBase) -> CallSite:
    operands = op.mc_operands.data
    if op.mnemonic == "s_swappc_b64" and len(operands) == 2:
        callee, reason = resolve_target(cfg.blocks, cfg.predecessors, block, op, operands[1],
                                        cfg.isa, cfg.application_layout, cfg.block_of)
        return CallSite(cfg.name, block, position, op, CallKind.CALL,
                        _operand_text(operands[1]), callee, reason)
    if op.mnemonic == "s_call_b64" and len(operands) == 2:
        label = operands[1]
        if isinstance(label, SymbolOperandAttr):
            reference = label.data.reference
            if reference is not None and not reference.variant and reference.addend == 0:
                return CallSite(cfg.name, block, position, op, CallKind.CALL, label.data.text(),
                                reference.symbol, "s_call_b64 to a symbol")
        return CallSite(cfg.name, block, position, op, CallKind.CALL, _operand_text(label),
                        None, "s_call_b64 to a PC-relative offset that names no symbol")
    return CallSite(cfg.name, block, position, op, CallKind.CALL,
                    _operand_text(operands[-1]) if operands else "", None,
                    f"{op.mnemonic}: an unfamiliar call instruction")
