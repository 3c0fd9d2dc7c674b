"""LLVM IR of a HIP hook file to an ``instr`` module: globals, hooks and insertions.

What the file declares (see ``include/luthier_hooks.h``):

* ``LUTHIER_HOOK void name(params)``: a function in section ``.luthier.hooks`` is a hook;
  its parameters are ``bool``, 32-bit or 64-bit integers, ``float`` or ``double`` (a
  pointer would address memory the hook cannot know at the point);
* a ``__device__`` variable with no initializer (or zero) is a tool global
  (``instr.global``, exported under its name);
* ``LUTHIER_INSERT(hook, selector...)`` is a string in section ``.luthier.inserts``:
  the hook's name, then the attributes of ``instr.insert`` as MLIR writes them.

Each hook body is built through :class:`~luthier.frontend.hooks.HookBuilder`, which checks
what the Python frontend checks; the control flow is cut into ``scf.if`` nests at
immediate post-dominators (:mod:`.structure`). Every refusal is one line naming the file,
the line in it (from ``!dbg``, the hook's own line for code inlined from a helper), the
hook and the construct.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.amdgpu_dialects.instr.divergence import divergent_values
from luthier.amdgpu_dialects.instr.ops import InsertOp
from luthier.frontend.hip.llvm_text import (
    ConstOffset,
    FloatConst,
    Function,
    GlobalRef,
    GlobalVar,
    Instruction,
    IntConst,
    LLVMModule,
    Local,
    Operand,
    Undefined,
    Unsupported,
)
from luthier.frontend.hip.llvm_types import (
    ArrayType,
    FloatType,
    IntType,
    OtherType,
    PtrType,
    StructType,
    Type,
    struct_offsets,
    type_size,
)
from luthier.frontend.hip.structure import EXIT, ControlFlow, LoopError, control_flow
from luthier.frontend.hooks.builder import FLOAT_PREDICATES, HookBuilder
from luthier.frontend.hooks.module import HookModule
from luthier.frontend.hooks.symbols import Global
from luthier.frontend.hooks.values import HookType, Value

HOOK_SECTION = ".luthier.hooks"
INSERT_SECTION = ".luthier.inserts"
#: Instructions translated per hook, duplicates included, before the importer gives up
#: (a block reached by both sides of a branch is translated on each).
MAX_TRANSLATED = 20_000
#: How deep branches may nest (each level is a few Python frames of the translation).
MAX_NESTING = 100


class HipImportError(LuthierError):
    """A hook file the importer refuses; one line naming the file, line, hook and why."""


_BINARY: dict[str, tuple[type[arith.SignlessIntegerBinaryOperation], str]] = {
    "add": (arith.AddiOp, "+"), "sub": (arith.SubiOp, "-"), "mul": (arith.MuliOp, "*"),
    "and": (arith.AndIOp, "&"), "or": (arith.OrIOp, "|"), "xor": (arith.XOrIOp, "^"),
    "shl": (arith.ShLIOp, "<<"), "lshr": (arith.ShRUIOp, ">>"),
    "ashr": (arith.ShRSIOp, ">>"),
    "udiv": (arith.DivUIOp, "/"), "sdiv": (arith.DivSIOp, "/"),
    "urem": (arith.RemUIOp, "%"), "srem": (arith.RemSIOp, "%"),
}
_ATOMICS = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor",
            "max": "max", "min": "min", "umax": "umax", "umin": "umin", "xchg": "swap"}
_FLOAT_BINARY: dict[str, tuple[type[arith.FloatingPointLikeBinaryOperation], str]] = {
    "fadd": (arith.AddfOp, "+"), "fsub": (arith.SubfOp, "-"), "fmul": (arith.MulfOp, "*"),
    "fdiv": (arith.DivfOp, "/"),
}
#: Float conversions: LLVM's cast -> the HookBuilder conversion (the same semantics:
#: fptosi/fptoui give poison out of range, arith leaves the hardware's clamp).
_FLOAT_CASTS = {"sitofp": "sitofp", "uitofp": "uitofp", "fptosi": "fptosi",
                "fptoui": "fptoui", "fpext": "extf", "fptrunc": "truncf"}
#: Math intrinsics that map to an arith op (HIP's fminf/fmaxf are llvm.minnum/maxnum).
#: llvm.fmuladd (``#pragma clang fp contract(on)``) may round once or twice: its mul and
#: add are what it becomes; llvm.fma (``fmaf``, ``__builtin_fmaf``) rounds once: math.fma.
_FLOAT_INTRINSICS = ("llvm.minnum.", "llvm.maxnum.", "llvm.fabs.", "llvm.fmuladd.",
                     "llvm.fma.")
_PREDICATES = frozenset({"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"})
#: Calls that say nothing about what the hook computes.
_IGNORED_CALLS = ("llvm.lifetime.", "llvm.dbg.", "llvm.assume",
                  "llvm.experimental.noalias.scope.decl")
_DIMENSIONS = "xyz"


@dataclass(frozen=True)
class _String:
    """The address of a constant string (a register name for an intrinsic)."""

    text: str


@dataclass(frozen=True)
class _LaneLow:
    """``llvm.amdgcn.mbcnt.lo(-1, 0)``: half of ``__lane_id()``, waiting for its ``hi``."""


@dataclass(frozen=True)
class _Exec:
    """EXEC as the hook read it (``__builtin_amdgcn_read_exec()``), kept with its value:
    ``llvm.cttz`` of it is the first active lane."""

    value: Value


_Bound = Value | _String | _LaneLow | _Exec


class _Refusal(Exception):
    """Raised inside a hook's translation; the importer adds where it happened."""


def _int_type(type_: Type, what: str) -> IntegerType:
    """The hook type of an integer-only operand (integer arithmetic, atomics)."""
    if isinstance(type_, PtrType):
        return IntegerType(64)
    if isinstance(type_, IntType) and type_.bits in (1, 32, 64):
        return IntegerType(type_.bits)
    if isinstance(type_, FloatType):
        raise _Refusal(f"{what} is {type_}; it takes integers")
    raise _Refusal(f"{what} is {type_}; hook values are bool, 32-bit or 64-bit integers "
                   "and pointers to tool globals")


def _value_type(type_: Type, what: str) -> HookType:
    """The hook type of a value that may be a float too (phis, selects, loads...)."""
    if isinstance(type_, FloatType):
        return Float32Type() if type_.bits == 32 else Float64Type()
    if isinstance(type_, OtherType) and type_.name in ("half", "bfloat"):
        raise _Refusal(f"{what} is {type_}; hook floats are float and double")
    try:
        return _int_type(type_, what)
    except _Refusal:
        raise _Refusal(f"{what} is {type_}; hook values are bool, 32-bit or 64-bit "
                       "integers, float, double and pointers to tool globals") from None


class _Hook:
    """The translation of one hook function through a :class:`HookBuilder`."""

    def __init__(self, importer: HipImporter, function: Function, flow: ControlFlow,
                 h: HookBuilder, args: tuple[Value, ...]) -> None:
        self.importer = importer
        self.function = function
        self.flow = flow
        self.h = h
        self.env: dict[str, _Bound] = {
            name: arg for (name, _, _), arg in zip(function.params, args, strict=True)}
        self.translated = 0
        self.current: Instruction | None = None
        #: Branches entered: EXEC may be written only outside them.
        self.depth = 0
        #: Helpers being inlined, one inside the other.
        self.inlined = 0
        #: After ``luthier_write_exec(1)``: one lane runs, until EXEC is written back.
        self.one_lane = False
        #: Stores and atomics made while one lane runs (each runs once per wave: its
        #: operands must be uniform), with their instruction.
        self.single: list[tuple[Operation, Instruction]] = []

    # -- control flow ---------------------------------------------------------------------

    def run(self) -> None:
        self._walk(self.function.blocks[0].label, EXIT, None)
        divergent = divergent_values(list(self.h.block.ops))
        for op, instruction in self.single:
            if any(operand in divergent for operand in op.operands):
                self.current = instruction
                raise _Refusal("while luthier_write_exec(1) holds, a store or atomic uses a "
                               "per-lane value (lane 0 alone runs it: use uniform values)")
        if self.one_lane:
            # The hook leaves EXEC = 1 to the application, as it wrote it.
            self.h.write_reg("exec", self.h.const(1, IntegerType(64)))

    def _bind_phis(self, label: str, pred: str) -> None:
        for instruction in self.flow.blocks[label].instructions:
            if instruction.opcode != "phi":
                break
            self.current = instruction
            incoming = [value for value, source in instruction.incoming if source == pred]
            if not incoming or instruction.result is None:
                raise _Refusal(f"a phi without a value from %{pred}")
            self.env[instruction.result] = self._value(
                incoming[0], _value_type(instruction.type, "a phi"))

    def _edge_values(self, target: str, source: str) -> tuple[Value, ...]:
        """The values ``target``'s phis take on the edge from ``source``."""
        values: list[Value] = []
        for instruction in self.flow.blocks[target].instructions:
            if instruction.opcode != "phi":
                break
            self.current = instruction
            incoming = [value for value, label in instruction.incoming if label == source]
            if not incoming:
                raise _Refusal(f"a phi without a value from %{source}")
            values.append(self._value(incoming[0], _value_type(instruction.type, "a phi")))
        return tuple(values)

    def _walk(self, label: str, stop: str, pred: str | None) -> tuple[Value, ...]:
        """Translate from block ``label`` (entered from ``pred``) until ``stop``; gives the
        values of ``stop``'s phis, or, when ``stop`` is the exit, what the function returns
        (nothing for a hook; a helper's value)."""
        while True:
            if pred is not None:
                self._bind_phis(label, pred)
            block = self.flow.blocks[label]
            for instruction in block.instructions[:-1]:
                if instruction.opcode != "phi":
                    self._instruction(instruction)
            last = block.instructions[-1]
            self.current = last
            if last.opcode == "ret":
                if not last.operands:
                    return ()
                return (self._value(last.operands[0],
                                    _value_type(last.types[0], "a returned value")),)
            if last.opcode != "br":
                self._instruction(last)  # refuses it: a terminator we do not know
                raise _Refusal(f"'{last.opcode}' ends a block")
            if len(last.targets) == 1:
                (target,) = last.targets
                if target == stop:
                    return self._edge_values(stop, label)
                label, pred = target, label
                continue
            join = self.flow.ipdom[label]
            returned = self._branch(label, last, join)
            if join == EXIT:
                return returned
            if join == stop:
                return tuple(self._phi_value(instruction)
                             for instruction in self.flow.blocks[join].instructions
                             if instruction.opcode == "phi")
            label, pred = join, None

    def _phi_value(self, instruction: Instruction) -> Value:
        assert instruction.result is not None
        bound = self.env[instruction.result]
        assert isinstance(bound, Value)
        return bound

    def _branch(self, label: str, branch: Instruction, join: str) -> tuple[Value, ...]:
        """The ``scf.if`` of a conditional branch, its sides running to ``join``; binds the
        join's phis to its results, or, when the sides return, gives what they return."""
        if self.one_lane:
            raise _Refusal("a branch while luthier_write_exec(1) holds is not supported "
                           "(write EXEC back first)")
        condition = self._value(branch.operands[0], IntegerType(1))

        def side(target: str) -> Callable[[], tuple[Value, ...]]:
            def build() -> tuple[Value, ...]:
                if self.depth >= MAX_NESTING:
                    raise _Refusal(f"branches nest deeper than {MAX_NESTING}")
                saved = dict(self.env)
                self.depth += 1
                try:
                    if target == join:
                        return self._edge_values(join, label)
                    return self._walk(target, join, label)
                finally:
                    self.env = saved
                    self.depth -= 1
            return build

        self.current = branch
        # Both sides give the join's phi values (or what they return): the scf.if gives
        # them (nothing, None, when there are none).
        results = self.h.if_else(condition, side(branch.targets[0]), side(branch.targets[1]))
        if not results:
            return ()
        if join == EXIT:
            return results
        phis = [instruction for instruction in self.flow.blocks[join].instructions
                if instruction.opcode == "phi"]
        for instruction, result in zip(phis, results, strict=True):
            assert instruction.result is not None
            self.env[instruction.result] = result
        return ()

    # -- values ---------------------------------------------------------------------------

    def _bound(self, operand: Operand, type_: HookType) -> _Bound:
        match operand:
            case Local(name):
                if name not in self.env:
                    raise _Refusal(f"%{name} is used where it is not defined")
                return self.env[name]
            case IntConst(number):
                if not isinstance(type_, IntegerType):  # zeroinitializer of a float
                    return self.h.const(float(number), type_)
                return self.h.const(_wrapped(number, type_.bitwidth), type_)
            case FloatConst(number):
                if isinstance(type_, IntegerType):
                    raise _Refusal(f"the float constant {number!r} is used as an {type_}")
                return self.h.const(number, type_)
            case Undefined():
                return self.h.const(0.0 if not isinstance(type_, IntegerType) else 0, type_)
            case GlobalRef(name):
                return self._global(name, 0)
            case ConstOffset(base, offset):
                return self._global(base, offset)
            case Unsupported(text):
                raise _Refusal(f"the constant {text} is not supported")

    def _value(self, operand: Operand, type_: HookType) -> Value:
        bound = self._bound(operand, type_)
        if isinstance(bound, _Exec):
            return bound.value
        if not isinstance(bound, Value):
            what = "a string" if isinstance(bound, _String) else "llvm.amdgcn.mbcnt.lo"
            raise _Refusal(f"{what} is used as a value (only intrinsics take it)")
        if bound.type != type_:
            raise _Refusal(f"an {bound.type} is used as an {type_}")
        return bound

    def _global(self, name: str, offset: int) -> _Bound:
        importer = self.importer
        if name in importer.strings:
            if offset:
                raise _Refusal(f"@{name}+{offset} is inside a string")
            return _String(importer.strings[name])
        variable = importer.tool_globals.get(name)
        if variable is None:
            what = "a function" if name in importer.module.functions \
                or name in importer.module.declarations else "not a tool global"
            raise _Refusal(f"@{name} is {what}; hooks address tool globals only")
        address = self.h.global_addr(variable)
        return address + _wrapped(offset, 64) if offset else address

    def _define(self, instruction: Instruction, value: _Bound | None) -> None:
        if instruction.result is not None and value is not None:
            self.env[instruction.result] = value

    # -- instructions ---------------------------------------------------------------------

    def _instruction(self, instruction: Instruction) -> None:
        self.current = instruction
        self.translated += 1
        if self.translated > MAX_TRANSLATED:
            raise _Refusal(f"the control flow is too tangled to structure (more than "
                           f"{MAX_TRANSLATED} instructions once branches are nested)")
        if instruction.unknown:
            raise _Refusal(self._unknown(instruction))
        handler = _HANDLERS.get(instruction.opcode)
        if handler is None:
            raise _Refusal(_refusal_of(instruction.opcode))
        self._define(instruction, handler(self, instruction))

    def _unknown(self, instruction: Instruction) -> str:
        if instruction.opcode == "call" and instruction.callee == "asm":
            return "inline assembly is not supported: its register use cannot be analysed"
        if instruction.opcode == "call":
            return "an indirect call is not supported"
        if instruction.opcode == "alloca":
            return ("a stack variable (alloca) is not supported: hooks have no stack; keep "
                    "values in locals clang can promote, or in a tool global")
        return _refusal_of(instruction.opcode)

    def binary(self, instruction: Instruction) -> Value:
        op_type, symbol = _BINARY[instruction.opcode]
        type_ = _int_type(instruction.type, f"'{instruction.opcode}'")
        left = self._value(instruction.operands[0], type_)
        right = self._value(instruction.operands[1], type_)
        return self.h.binary(op_type, symbol, left, right)

    def float_binary(self, instruction: Instruction) -> Value:
        """fadd/fsub/fmul/fdiv: one IEEE operation, rounded to nearest even (fast-math
        flags are read past: the result is the exact-semantics one, which they allow;
        ``fdiv`` is the correctly rounded quotient, as clang-19 gives ``a / b``)."""
        op_type, symbol = _FLOAT_BINARY[instruction.opcode]
        type_ = self._float_type(instruction.type, f"'{instruction.opcode}'")
        return self.h.float_binary(op_type, symbol,
                                   self._value(instruction.operands[0], type_),
                                   self._value(instruction.operands[1], type_))

    def frem(self, instruction: Instruction) -> Value:
        """``frem``: x - trunc(x / y) * y in one FMA, as LLVM's AMDGPU backend lowers it
        (clang gives fmodf/fmod as ``frem``)."""
        type_ = self._float_type(instruction.type, "'frem'")
        return self.h.float_remainder(self._value(instruction.operands[0], type_),
                                      self._value(instruction.operands[1], type_))

    def fneg(self, instruction: Instruction) -> Value:
        type_ = self._float_type(instruction.type, "'fneg'")
        return self.h.negate(self._value(instruction.operands[0], type_))

    def fcmp(self, instruction: Instruction) -> Value:
        if instruction.predicate not in FLOAT_PREDICATES:
            raise _Refusal(f"fcmp {instruction.predicate} is not supported")
        type_ = self._float_type(instruction.types[0], "an fcmp's operand")
        return self.h.compare_float(instruction.predicate,
                                    self._value(instruction.operands[0], type_),
                                    self._value(instruction.operands[1], type_))

    @staticmethod
    def _float_type(type_: Type, what: str) -> HookType:
        hook_type = _value_type(type_, what)
        if isinstance(hook_type, IntegerType):
            raise _Refusal(f"{what} is {type_}; it takes float or double")
        return hook_type

    def float_cast(self, instruction: Instruction) -> Value:
        """sitofp/uitofp/fptosi/fptoui/fpext/fptrunc. A bool converted to a float is
        widened to i32 first (sitofp of true is -1.0, as LLVM says)."""
        opcode = instruction.opcode
        source = _value_type(instruction.types[0], f"'{opcode}'s operand")
        target = _value_type(instruction.type, f"'{opcode}'s result")
        value = self._value(instruction.operands[0], source)
        if opcode in ("sitofp", "uitofp") and value.type == IntegerType(1):
            value = value.sext(IntegerType(32)) if opcode == "sitofp" \
                else value.zext(IntegerType(32))
            source = IntegerType(32)
        if opcode in ("sitofp", "uitofp", "fptosi", "fptoui") and \
                (source if opcode.endswith("fp") else target) \
                not in (IntegerType(32), IntegerType(64)):
            raise _Refusal(f"'{opcode}' {instruction.types[0]} to {instruction.type} is not "
                           "supported: conversions between integers and floats are "
                           "32- or 64-bit")
        return self.h.convert(_FLOAT_CASTS[opcode], value, target)

    def icmp(self, instruction: Instruction) -> Value:
        if instruction.predicate not in _PREDICATES:
            raise _Refusal(f"icmp {instruction.predicate} is not supported")
        type_ = _int_type(instruction.types[0], "a comparison's operand")
        return self.h.compare(instruction.predicate,
                              self._value(instruction.operands[0], type_),
                              self._value(instruction.operands[1], type_))

    def select(self, instruction: Instruction) -> Value:
        type_ = _value_type(instruction.type, "a select")
        return self.h.select(self._value(instruction.operands[0], IntegerType(1)),
                             self._value(instruction.operands[1], type_),
                             self._value(instruction.operands[2], type_))

    def cast(self, instruction: Instruction) -> _Bound:
        source_type, target_type = instruction.types[0], instruction.type
        if isinstance(source_type, PtrType) and source_type.addrspace in (3, 5) or \
                isinstance(target_type, PtrType) and target_type.addrspace in (3, 5):
            raise _Refusal("LDS and private (stack) addresses are not supported in hooks")
        source = _value_type(source_type, f"'{instruction.opcode}'s operand")
        target = _value_type(target_type, f"'{instruction.opcode}'s result")
        if source != target and not (isinstance(source, IntegerType)
                                     and isinstance(target, IntegerType)):
            # A bitcast between an integer and a float: the same bits.
            return self.h.bitcast(self._value(instruction.operands[0], source), target)
        bound = self._bound(instruction.operands[0], source)
        if isinstance(bound, _String | _LaneLow):
            return bound
        value = bound.value if isinstance(bound, _Exec) else bound
        if source == target:
            return bound
        assert isinstance(source, IntegerType) and isinstance(target, IntegerType)
        if source.bitwidth > target.bitwidth:
            return value.trunc(target)
        if instruction.opcode == "sext":
            return value.sext(target)
        return value.zext(target)

    def freeze(self, instruction: Instruction) -> _Bound:
        return self._bound(instruction.operands[0],
                           _value_type(instruction.type, "a freeze"))

    def getelementptr(self, instruction: Instruction) -> Value:
        base = self._value(instruction.operands[0], IntegerType(64))
        element = instruction.element
        assert element is not None
        constant = 0
        variable: Value | None = None
        current: Type = element
        for position, (operand, type_) in enumerate(zip(instruction.operands[1:],
                                                        instruction.types[1:], strict=True)):
            if position == 0:
                stride = type_size(element)
            elif isinstance(current, ArrayType):
                stride = type_size(current.element)
                current = current.element
            elif isinstance(current, StructType) and isinstance(operand, IntConst):
                constant += struct_offsets(current)[operand.value]
                current = current.fields[operand.value]
                continue
            else:
                raise _Refusal(f"getelementptr into {current} is not supported")
            if isinstance(operand, IntConst):
                constant += operand.value * stride
                continue
            index = self._value(operand, _int_type(type_, "a getelementptr index"))
            if index.width < 64:
                index = index.sext(IntegerType(64))
            term = index * stride if stride != 1 else index
            variable = term if variable is None else variable + term
        address = base
        if constant:
            address = address + _wrapped(constant, 64)
        if variable is not None:
            address = address + variable
        return address

    def load(self, instruction: Instruction) -> Value:
        self._check_address(instruction.types[0])
        type_ = _value_type(instruction.type, "a load")
        if type_ == IntegerType(1):
            raise _Refusal("a load of a bool is not supported; load an int")
        address = self._value(instruction.operands[0], IntegerType(64))
        return self.h.load(address, type_)

    def store(self, instruction: Instruction) -> None:
        self._check_address(instruction.types[1])
        type_ = _value_type(instruction.type, "a store")
        if type_ == IntegerType(1):
            raise _Refusal("a store of a bool is not supported; store an int")
        value = self._value(instruction.operands[0], type_)
        # HIP runs a store in every active lane (SIMT), whatever its operands; in lane 0
        # alone after luthier_write_exec(1).
        self.h.store(value, self._value(instruction.operands[1], IntegerType(64)),
                     per_lane=not self.one_lane)
        if self.one_lane:
            last = self.h.block.last_op
            assert last is not None
            self.single.append((last, instruction))

    def atomicrmw(self, instruction: Instruction) -> Value:
        kind = _ATOMICS.get(instruction.kind)
        if instruction.kind.startswith("f") or isinstance(instruction.type, FloatType):
            raise _Refusal(f"a floating-point atomic (atomicrmw {instruction.kind} "
                           f"{instruction.type}) is not supported in hooks: atomics are "
                           "integer")
        if kind is None:
            raise _Refusal(f"atomicrmw {instruction.kind} is not supported (one of "
                           f"{', '.join(_ATOMICS)})")
        self._check_address(instruction.types[0])
        type_ = _int_type(instruction.type, "an atomic's value")
        address = self._value(instruction.operands[0], IntegerType(64))
        old = self.h.atomic(kind, address, self._value(instruction.operands[1], type_),
                            per_lane=not self.one_lane)
        if self.one_lane:
            assert isinstance(old.ssa.owner, Operation)
            self.single.append((old.ssa.owner, instruction))
        return old

    @staticmethod
    def _check_address(type_: Type) -> None:
        if isinstance(type_, PtrType) and type_.addrspace in (3, 5):
            raise _Refusal("LDS and private (stack) memory are not supported in hooks")

    # -- calls ----------------------------------------------------------------------------

    def call(self, instruction: Instruction) -> _Bound | None:
        callee = instruction.callee
        if callee.startswith(_IGNORED_CALLS):
            return None
        handler = _INTRINSICS.get(callee)
        if handler is None:
            for prefix, family in _INTRINSIC_FAMILIES:
                if callee.startswith(prefix):
                    handler = family
                    break
        if handler is not None:
            return handler(self, instruction)
        module = self.importer.module
        if callee == self.function.name or callee in self.importer.hook_names:
            raise _Refusal(f"calls hook @{callee}: recursion and calls between hooks are "
                           "not supported")
        if callee in module.functions:
            return self._inline(instruction, module.functions[callee])
        if callee.startswith(_FLOAT_INTRINSICS):
            return self.float_intrinsic(instruction)
        if callee.startswith("llvm.") and _is_math(callee):
            raise _Refusal(f"the math function @{callee} is not supported in hooks (floats "
                           "have + - * /, fma, comparisons, conversions, fabs, fminf and fmaxf)")
        if callee.startswith("llvm."):
            raise _Refusal(f"the intrinsic @{callee} is not supported in hooks")
        raise _Refusal(f"calls @{callee}, which is neither a Luthier intrinsic nor a "
                       "function of this file")

    def _inline(self, instruction: Instruction, function: Function) -> _Bound | None:
        """A call to a helper of the file that clang left: its body, translated here with
        the arguments bound (what a hook calls becomes part of the hook)."""
        shown = self.importer.display(function.name)
        if self.importer.recursive(function.name):
            raise _Refusal(f"calls {shown}, which is recursive: hooks cannot recurse (they "
                           "have no stack)")
        if self.inlined >= MAX_NESTING:
            raise _Refusal(f"helpers call helpers deeper than {MAX_NESTING}")
        try:
            flow = control_flow(function)
        except LoopError:
            raise _Refusal(f"calls {shown}, which loops: a loop is not supported in "
                           "hooks") from None
        except KeyError:
            raise _Refusal(f"calls {shown}, whose body cannot be followed") from None
        bound: dict[str, _Bound] = {}
        for (name, type_, _), operand in zip(function.params, instruction.operands,
                                             strict=False):
            bound[name] = self._bound(operand, _value_type(type_, f"a parameter of {shown}"))
        saved = (self.flow, self.env)
        self.flow, self.env = flow, bound
        self.inlined += 1
        try:
            returned = self._walk(function.blocks[0].label, EXIT, None)
        finally:
            self.flow, self.env = saved
            self.inlined -= 1
        return returned[0] if returned else None

    def float_intrinsic(self, instruction: Instruction) -> Value:
        """llvm.minnum/maxnum (fminf, fmaxf: the other operand when one is NaN, as
        arith.minnumf/maxnumf), llvm.fabs (the sign bit cleared, through the bits),
        llvm.fmuladd (a product then a sum, each rounded: LLVM allows it) and llvm.fma
        (rounded once)."""
        callee = instruction.callee
        type_ = self._float_type(instruction.type, f"@{callee}'s result")
        first = self._value(instruction.operands[0], type_)
        if callee.startswith("llvm.fabs."):
            bits = first.bitcast(IntegerType(first.width))
            mask = (1 << (first.width - 1)) - 1
            return (bits & mask).bitcast(type_)
        second = self._value(instruction.operands[1], type_)
        if callee.startswith("llvm.fmuladd."):
            return first * second + self._value(instruction.operands[2], type_)
        if callee.startswith("llvm.fma."):
            return first.fma(second, self._value(instruction.operands[2], type_))
        return first.minnum(second) if callee.startswith("llvm.minnum.") \
            else first.maxnum(second)

    def _string_argument(self, instruction: Instruction, index: int) -> str:
        bound = self._bound(instruction.operands[index], IntegerType(64))
        if not isinstance(bound, _String):
            raise _Refusal(f"@{instruction.callee} takes a string literal (a register name)")
        return bound.text

    def _constant_argument(self, instruction: Instruction, index: int, what: str) -> int:
        operand = instruction.operands[index]
        if not isinstance(operand, IntConst):
            raise _Refusal(f"@{instruction.callee}: {what} must be a constant")
        return operand.value

    def ballot(self, instruction: Instruction) -> _Bound:
        if instruction.callee != "llvm.amdgcn.ballot.i64":
            raise _Refusal(f"@{instruction.callee}: the supported targets run wave64 "
                           "(use the 64-bit ballot)")
        condition = instruction.operands[0]
        if isinstance(condition, IntConst) and condition.value == 1:
            return _Exec(self.h.read_reg("exec"))
        return self.h.ballot(self._value(condition, IntegerType(1)))

    def mbcnt(self, instruction: Instruction) -> _Bound:
        first, second = instruction.operands
        if instruction.callee == "llvm.amdgcn.mbcnt.lo":
            if first == IntConst(-1) and second == IntConst(0):
                return _LaneLow()
        elif first == IntConst(-1) and isinstance(second, Local) \
                and isinstance(self.env.get(second.name), _LaneLow):
            return self.h.lane_id()
        raise _Refusal(f"@{instruction.callee} is supported only as __lane_id() "
                       "(mbcnt.hi(-1, mbcnt.lo(-1, 0)))")

    def cttz(self, instruction: Instruction) -> Value:
        bound = self._bound(instruction.operands[0],
                            _int_type(instruction.types[0], "cttz's operand"))
        if not isinstance(bound, _Exec):
            raise _Refusal(f"@{instruction.callee} is supported on EXEC only (the first "
                           "active lane: __ffsll(__builtin_amdgcn_read_exec()) - 1)")
        first = self.h.first_active_lane()
        type_ = _int_type(instruction.type, "cttz's result")
        result = first.zext(type_) if type_.bitwidth > 32 else first
        if self._constant_argument(instruction, 1, "is_zero_poison") == 0:
            empty = self.h.compare("eq", bound.value, 0)
            result = self.h.select(empty, self.h.const(type_.bitwidth, type_), result)
        return result

    def ctpop(self, instruction: Instruction) -> Value:
        type_ = _int_type(instruction.type, "ctpop's result")
        count = self.h.popcount(self._value(instruction.operands[0], type_))
        return count.zext(type_) if type_.bitwidth > 32 else count

    def min_max(self, instruction: Instruction) -> Value:
        """``llvm.umin/umax/smin/smax`` (what clang makes of ``a < b ? a : b``, ``min``,
        ``max``): a comparison and a select."""
        kind = instruction.callee.split(".")[1]
        type_ = _int_type(instruction.type, f"{kind}'s result")
        first = self._value(instruction.operands[0], type_)
        second = self._value(instruction.operands[1], type_)
        predicate = {"umin": "ult", "umax": "ugt", "smin": "slt", "smax": "sgt"}[kind]
        return self.h.select(self.h.compare(predicate, first, second), first, second)

    def absolute(self, instruction: Instruction) -> Value:
        """``llvm.abs`` (``abs``, ``llabs``): the value, or 0 minus it when negative (the
        most negative value stays itself, as LLVM's with is_int_min_poison false says)."""
        type_ = _int_type(instruction.type, "abs's result")
        value = self._value(instruction.operands[0], type_)
        negative = self.h.compare("slt", value, 0)
        return self.h.select(negative, self.h.binary(arith.SubiOp, "-", 0, value), value)

    def lane_op(self, instruction: Instruction) -> Value:
        name = instruction.callee
        value = self._value(instruction.operands[0], IntegerType(32))
        if name.startswith("llvm.amdgcn.readfirstlane"):
            return self.h.readfirstlane(value)
        lane = self._value(instruction.operands[1], IntegerType(32))
        if name.startswith("llvm.amdgcn.readlane"):
            return self.h.readlane(value, lane)
        return self.h.writelane(value, lane,
                                self._value(instruction.operands[2], IntegerType(32)))

    def dimension_intrinsic(self, instruction: Instruction) -> Value:
        name = instruction.callee
        dim = name[-1]
        if name.startswith("llvm.amdgcn.workitem.id."):
            return self.h.workitem_id(dim)
        return self.h.workgroup_id(dim)

    def read_reg(self, instruction: Instruction) -> Value:
        register = self._string_argument(instruction, 0)
        value = self.h.read_reg(register)
        wanted = 32 if instruction.callee.endswith("32") else 64
        if value.width != wanted:
            raise _Refusal(f"{register} is {value.width} bits: read it with "
                           f"luthier_read_reg{value.width if value.width > 1 else 32}")
        return value

    def write_reg(self, instruction: Instruction) -> None:
        if instruction.callee == "luthier_write_exec":
            self._write_exec(instruction.operands[0])
            return
        register, operand = self._string_argument(instruction, 0), instruction.operands[1]
        if register == "exec":
            raise _Refusal("write EXEC with luthier_write_exec")
        bits = 32 if instruction.callee.endswith("32") else 64
        self.h.write_reg(register, self._value(operand, IntegerType(bits)))

    def _write_exec(self, operand: Operand) -> None:
        """EXEC for the hook's code that follows (HIP's SIMT model: the lanes that run
        it), as Luthier's scalar counter uses it: 1 (lane 0 alone: what follows runs once
        per wave, even with EXEC empty) until the EXEC it read is written back."""
        if self.depth:
            raise _Refusal("luthier_write_exec inside a branch is not supported (write "
                           "EXEC at the hook's top level)")
        if operand == IntConst(1):
            self.one_lane = True
            return
        if isinstance(operand, Local) and isinstance(self.env.get(operand.name), _Exec):
            self.one_lane = False
            return
        raise _Refusal("luthier_write_exec takes 1 (lane 0 alone) or EXEC as "
                       "luthier_read_exec() gave it")

    def kernarg(self, instruction: Instruction) -> Value:
        offset = self._constant_argument(instruction, 0, "the offset")
        bits = 32 if instruction.callee.endswith("32") else 64
        return self.h.kernarg(offset, IntegerType(bits))

    def grid_block(self, instruction: Instruction) -> Value:
        dim = self._constant_argument(instruction, 0, "the dimension")
        if dim not in (0, 1, 2):
            raise _Refusal(f"@{instruction.callee}: the dimension is 0, 1 or 2, not {dim}")
        if instruction.callee == "luthier_grid_dim":
            return self.h.grid_dim(_DIMENSIONS[dim])
        return self.h.block_dim(_DIMENSIONS[dim])


def _wrapped(value: int, bits: int) -> int:
    """``value`` as the signed ``bits``-bit integer with the same bits (i1 true is 1)."""
    if bits == 1:
        return value & 1
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _is_math(callee: str) -> bool:
    """Whether an ``llvm.*`` intrinsic is a floating-point math function (its name ends
    in a float type suffix: ``llvm.sqrt.f32``, ``llvm.fma.f64``...)."""
    return re.search(r"\.(f16|bf16|f32|f64|v\d+f\d+)$", callee) is not None


def _refusal_of(opcode: str) -> str:
    return f"the LLVM instruction '{opcode}' is not supported in hooks"


_Handler = Callable[[_Hook, Instruction], "_Bound | None"]
_HANDLERS: dict[str, _Handler] = {
    **dict.fromkeys(_BINARY, _Hook.binary),
    **dict.fromkeys(_FLOAT_BINARY, _Hook.float_binary),
    **dict.fromkeys(_FLOAT_CASTS, _Hook.float_cast),
    "frem": _Hook.frem,
    "fneg": _Hook.fneg,
    "fcmp": _Hook.fcmp,
    "icmp": _Hook.icmp,
    "select": _Hook.select,
    **dict.fromkeys(("zext", "sext", "trunc", "ptrtoint", "inttoptr", "addrspacecast",
                     "bitcast"), _Hook.cast),
    "freeze": _Hook.freeze,
    "getelementptr": _Hook.getelementptr,
    "load": _Hook.load,
    "store": _Hook.store,
    "atomicrmw": _Hook.atomicrmw,
    "call": _Hook.call,
}
_INTRINSICS: dict[str, _Handler] = {
    "llvm.amdgcn.mbcnt.lo": _Hook.mbcnt,
    "llvm.amdgcn.mbcnt.hi": _Hook.mbcnt,
    "luthier_read_reg32": _Hook.read_reg,
    "luthier_read_reg64": _Hook.read_reg,
    "luthier_write_reg32": _Hook.write_reg,
    "luthier_write_reg64": _Hook.write_reg,
    "luthier_write_exec": _Hook.write_reg,
    "luthier_kernarg32": _Hook.kernarg,
    "luthier_kernarg64": _Hook.kernarg,
    "luthier_grid_dim": _Hook.grid_block,
    "luthier_block_dim": _Hook.grid_block,
}
_INTRINSIC_FAMILIES: tuple[tuple[str, _Handler], ...] = (
    ("llvm.amdgcn.ballot.", _Hook.ballot),
    ("llvm.cttz.", _Hook.cttz),
    ("llvm.ctpop.", _Hook.ctpop),
    ("llvm.umin.", _Hook.min_max),
    ("llvm.umax.", _Hook.min_max),
    ("llvm.smin.", _Hook.min_max),
    ("llvm.smax.", _Hook.min_max),
    ("llvm.abs.", _Hook.absolute),
    ("llvm.amdgcn.readfirstlane", _Hook.lane_op),
    ("llvm.amdgcn.readlane", _Hook.lane_op),
    ("llvm.amdgcn.writelane", _Hook.lane_op),
    ("llvm.amdgcn.workitem.id.", _Hook.dimension_intrinsic),
    ("llvm.amdgcn.workgroup.id.", _Hook.dimension_intrinsic),
)


class HipImporter:
    """Imports one LLVM module (the hook file ``source``, for messages)."""

    def __init__(self, module: LLVMModule, source: str) -> None:
        self.module = module
        self.source = source
        self.hooks = HookModule()
        self.tool_globals: dict[str, Global] = {}
        self.strings: dict[str, str] = {}
        self.inserts: list[tuple[str, GlobalVar]] = []
        self.hook_names = {name for name, function in module.functions.items()
                           if function.section == HOOK_SECTION}

    def _error(self, message: str,
               location: tuple[str | None, int] | None = None) -> HipImportError:
        """``message`` naming the hook file and, when known, the source line: ``tool.hip:12``
        (``tool.ll: tool.hip:12`` when the file given is the IR of another)."""
        where = self.source
        if location is not None:
            file, line = location
            if file is None or os.path.basename(file) == os.path.basename(self.source):
                where = f"{self.source}:{line}"
            else:
                where = f"{self.source}: {file}:{line}"
        return HipImportError(f"{where}: {message}")

    def run(self, ctx: Context) -> ModuleOp:
        for variable in self.module.globals.values():
            self._global(variable)
        if not self.hook_names:
            raise self._error("no hook: mark a device function with LUTHIER_HOOK")
        for name in sorted(self.hook_names, key=lambda n: self.module.functions[n].line):
            self._hook(self.module.functions[name])
        module = self.hooks.module
        for hook, variable in self.inserts:
            module.body.block.add_op(self._insert(ctx, hook, variable))
        try:
            module.verify()
        except (VerifyException, ValueError) as error:
            raise self._error(str(error).splitlines()[0]) from None
        return module

    # -- globals --------------------------------------------------------------------------

    def _global(self, variable: GlobalVar) -> None:
        name = variable.name
        if name.startswith(("llvm.", "__hip_cuid_")) or variable.section == "llvm.metadata":
            return
        if variable.section == INSERT_SECTION:
            if not isinstance(variable.initializer, bytes):
                raise self._error(f"@{name}: an insertion is a string (LUTHIER_INSERT)")
            text = variable.initializer.rstrip(b"\0").decode("utf-8", "replace")
            hook, _, _ = text.partition(" ")
            self.inserts.append((hook, variable))
            return
        if variable.constant and isinstance(variable.initializer, bytes):
            self.strings[name] = variable.initializer.rstrip(b"\0").decode("utf-8", "replace")
            return
        if variable.addrspace == 3:
            raise self._error(f"global @{name}: LDS (__shared__) variables are not "
                              "supported in hooks")
        if variable.constant:
            raise self._error(f"global @{name}: constant tables are not supported in hooks "
                              "(a tool global is zero at load)")
        if variable.initializer is None:
            raise self._error(f"global @{name} is declared but not defined: define it "
                              "(LUTHIER_GLOBAL unsigned long long Counter;)")
        if variable.initializer != IntConst(0):
            raise self._error(f"global @{name}: a tool global is zero at load; it cannot "
                              "have an initializer")
        try:
            size = type_size(variable.type)
        except LuthierError as error:
            raise self._error(f"global @{name}: {error}") from None
        try:
            self.tool_globals[name] = self.hooks.global_var(name, size, variable.alignment)
        except ValueError as error:
            raise self._error(str(error)) from None

    # -- hooks ----------------------------------------------------------------------------

    def _hook(self, function: Function) -> None:
        name = function.name
        subprogram = self.module.subprograms.get(function.dbg or -1)
        line = (self.module.file_of(function.dbg), subprogram[1]) \
            if subprogram is not None and subprogram[1] else None
        if function.return_type.__class__.__name__ != "OtherType" \
                or str(function.return_type) != "void":
            raise self._error(f"hook @{name} returns {function.return_type}; a hook "
                              "returns void", line)
        types: list[HookType] = []
        for param, type_, _ in function.params:
            if isinstance(type_, PtrType):
                raise self._error(f"hook @{name}: parameter %{param} is a pointer; a hook "
                                  "cannot know application memory at the point (pass "
                                  "registers or constants, address tool globals)", line)
            if isinstance(type_, FloatType):  # a constant argument: #instr.const<x : f32>
                types.append(Float32Type() if type_.bits == 32 else Float64Type())
                continue
            if not isinstance(type_, IntType) or type_.bits not in (1, 32, 64):
                raise self._error(f"hook @{name}: parameter %{param} is {type_}; hook "
                                  "parameters are bool, 32-bit or 64-bit integers, float "
                                  "and double", line)
            types.append(IntegerType(type_.bits))
        try:
            flow = control_flow(function)
        except LoopError as loop:
            raise self._error(f"hook @{name}: a loop is not supported in hooks",
                              self._line(loop.branch)) from None
        except KeyError as missing:
            if not missing.args[0]:
                raise self._error(f"hook @{name} has no body", line) from None
            raise self._error(f"hook @{name}: a branch to %{missing.args[0]}, which is "
                              "not a block") from None
        translation: list[_Hook] = []

        def body(h: HookBuilder, *args: Value) -> None:
            hook = _Hook(self, function, flow, h, args)
            translation.append(hook)
            hook.run()

        try:
            self.hooks.hook(types, name=name)(body)
        except (_Refusal, ValueError, TypeError) as error:
            current = translation[0].current if translation else None
            message = str(error)
            prefix = f"hook @{name}: "
            if not message.startswith(prefix):
                message = prefix + message
            # An instruction without a location (clang gives an alloca none) is placed at
            # the hook's own line.
            raise self._error(message, (self._line(current) if current else None) or line) \
                from None

    def display(self, name: str) -> str:
        """``@name``, with its source name when C++ mangled it (``fib (@_Z3fibj)``)."""
        function = self.module.functions.get(name)
        subprogram = self.module.subprograms.get(function.dbg or -1) \
            if function is not None else None
        if subprogram is None or not subprogram[0] or subprogram[0] == name:
            return f"@{name}"
        return f"{subprogram[0]} (@{name})"

    def recursive(self, name: str) -> bool:
        """Whether function ``name`` can call itself (through the file's functions)."""
        seen: set[str] = set()
        pending = list(self._callees(name))
        while pending:
            callee = pending.pop()
            if callee == name:
                return True
            if callee not in seen:
                seen.add(callee)
                pending += self._callees(callee)
        return False

    def _callees(self, name: str) -> list[str]:
        function = self.module.functions.get(name)
        if function is None:
            return []
        return [instruction.callee for block in function.blocks
                for instruction in block.instructions
                if instruction.opcode == "call" and instruction.callee in self.module.functions]

    def _line(self, instruction: Instruction) -> tuple[str | None, int] | None:
        return self.module.source_location(instruction.dbg)

    # -- insertions -----------------------------------------------------------------------

    def _insert(self, ctx: Context, hook: str, variable: GlobalVar) -> InsertOp:
        assert isinstance(variable.initializer, bytes)
        text = variable.initializer.rstrip(b"\0").decode("utf-8", "replace")
        _, _, selector = text.partition(" ")
        if hook not in self.hook_names:
            raise self._error(f"LUTHIER_INSERT({hook}, ...): @{hook} is not a hook of "
                              "this file")
        selector = selector.strip()
        fields = selector if re.search(r"\bargs\s*=", selector) \
            else ", ".join(part for part in (selector, "args = []") if part)
        source = f"instr.insert @{hook} {{{fields}}}"
        try:
            op = Parser(ctx, source, f"LUTHIER_INSERT({hook})").parse_op()
        except ParseError as error:
            reason = str(error).strip().splitlines()
            raise self._error(f"LUTHIER_INSERT({hook}, {selector}): "
                              f"{reason[-1] if reason else 'cannot be read'}") from None
        if not isinstance(op, InsertOp):
            raise self._error(f"LUTHIER_INSERT({hook}, ...) is not an insertion")
        try:
            op.verify()
        except VerifyException as error:
            raise self._error(f"LUTHIER_INSERT({hook}, {selector}): "
                              f"{str(error).splitlines()[0]}") from None
        return op


def import_llvm_hooks(module: LLVMModule, source: str, ctx: Context) -> ModuleOp:
    """The ``instr`` module of a hook file's LLVM IR (``source`` names it in messages);
    raises :class:`HipImportError`."""
    return HipImporter(module, source).run(ctx)
