"""``HookBuilder``: writes one hook's body, op by op, as a tool writer would in MLIR.

Every method appends an op to the block being written and returns a :class:`Value`; the
``instr`` intrinsics keep their MLIR names (``h.read_reg("exec")``, ``h.atomic("add",
address, one)``). Mistakes are raised where they are made, naming the hook: a width that
does not match (``TypeError``), a value of another hook or one defined inside an
``if_`` branch used outside it, an unknown register or dimension (``ValueError``). The
``instr`` verifiers would catch most of them later, but only as a line in a module
the user did not write by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from typing import cast, overload

from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.instr import ops
from luthier.amdgpu_dialects.instr.attributes import register_bits
from luthier.frontend.hooks.symbols import Global
from luthier.frontend.hooks.values import HookType, Value

_DIMS = ("x", "y", "z")
_I32 = IntegerType(32)
_I64 = IntegerType(64)
_F32 = Float32Type()
_F64 = Float64Type()

#: The ``arith.cmpf`` predicates (``o``rdered: false when an operand is NaN; ``u``nordered:
#: true then), as LLVM's ``fcmp`` spells them too.
FLOAT_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                    "uge", "ult", "ule", "une", "uno", "true")
#: Float conversions: name -> (op, source kind, result kind), ``i`` an ``i32`` and ``f``
#: a float; extf/truncf are checked for the direction apart.
_CONVERSIONS: dict[str, tuple[type[arith.SIToFPOp | arith.UIToFPOp | arith.FPToSIOp
                                    | arith.FPToUIOp | arith.ExtFOp | arith.TruncFOp],
                              str, str]] = {
    "sitofp": (arith.SIToFPOp, "i", "f"), "uitofp": (arith.UIToFPOp, "i", "f"),
    "fptosi": (arith.FPToSIOp, "f", "i"), "fptoui": (arith.FPToUIOp, "f", "i"),
    "extf": (arith.ExtFOp, "f", "f"), "truncf": (arith.TruncFOp, "f", "f"),
}


def is_float_type(type_: Attribute) -> bool:
    """Whether ``type_`` is a hook float (``f32`` or ``f64``)."""
    return isinstance(type_, Float32Type | Float64Type)

#: A branch of :meth:`HookBuilder.if_else`: what it yields.
BranchResult = Value | tuple[Value, ...] | None


class HookBuilder:
    """The body of hook ``@name`` being written; the hook's parameters are :attr:`args`."""

    #: The builder whose body is being written now (set by ``HookModule.hook``): a
    #: value's operators run on the value's own builder, so this is how a value kept
    #: from another hook is caught instead of growing that hook.
    current: HookBuilder | None = None

    def __init__(self, name: str, arg_types: Sequence[HookType],
                 arg_names: Sequence[str] = (),
                 globals_: Mapping[str, Global] | None = None) -> None:
        self.name = name
        self.block = Block(arg_types=arg_types)
        self._open: list[Block] = [self.block]
        self._globals = globals_
        self._finished = False
        self.args: tuple[Value, ...] = tuple(
            Value(self, arg, self.block) for arg in self.block.args)
        for arg, hint in zip(self.block.args, arg_names, strict=False):
            arg.name_hint = hint

    # -- plumbing --------------------------------------------------------------------

    def _error(self, message: str) -> str:
        return f"hook @{self.name}: {message}"

    def _guard(self) -> None:
        """Raise if values of this hook are used while another is built, or after."""
        active = HookBuilder.current
        if active is not None and active is not self:
            raise ValueError(active._error(f"a value of hook @{self.name} is used here; "
                                           "each hook builds its own values"))
        if self._finished:
            raise ValueError(self._error("the hook is finished; its values cannot be "
                                         "used any more"))

    def _emit(self, op: Operation) -> Operation:
        self._guard()
        self._open[-1].add_op(op)
        return op

    def _result(self, op: Operation) -> Value:
        self._emit(op)
        return Value(self, op.results[0], self._open[-1])

    def _use(self, value: Value | float, type_: HookType | None = None) -> SSAValue:
        """``value`` as an operand here: a Python number becomes a constant of ``type_``
        (an ``int`` beside a float value a float constant; a ``float`` only there)."""
        candidate = cast(object, value)  # user code is not type-checked: check at run time
        if isinstance(candidate, bool) or not isinstance(candidate, Value | int | float):
            raise TypeError(self._error(f"{value!r} is not a hook value or a number"))
        if isinstance(value, int | float):
            return self.const(value, type_ if type_ is not None else _I32).ssa
        if value.builder is not self:
            raise ValueError(self._error(f"a value of hook @{value.builder.name} is used "
                                         "here; each hook builds its own values"))
        if value.block not in self._open:
            raise ValueError(self._error("a value defined inside an if_ branch is used "
                                         "outside it; return it from h.if_else instead"))
        return value.ssa

    def _check(self, what: str, value: Value, widths: Sequence[int], *,
               floats: bool = False) -> None:
        """Raise unless ``value`` is an integer of one of ``widths`` (or, with ``floats``,
        also an ``f32``/``f64`` of one)."""
        if value.width not in widths or value.is_float and not floats:
            allowed = " or ".join([f"i{w}" for w in widths]
                                  + ([f"f{w}" for w in widths if w in (32, 64)]
                                     if floats else []))
            raise TypeError(self._error(f"{what} must be {allowed}, not {value.type}"))

    def _integers(self, symbol: str, *operands: Value | float) -> None:
        """Raise if an integer-only operator is given a float."""
        for operand in operands:
            if isinstance(operand, Value) and operand.is_float:
                raise TypeError(self._error(
                    f"'{symbol}' is an integer operation, not for {operand.type}"
                    + (" (floats divide with '/')" if symbol == "//" else "")))
            if isinstance(operand, float):
                raise TypeError(self._error(f"{operand!r} is a float beside an integer "
                                            f"in '{symbol}'"))

    def _floats(self, symbol: str, *operands: Value) -> None:
        """Raise if a float-only operation is given an integer value."""
        for operand in operands:
            if not operand.is_float:
                raise TypeError(self._error(f"'{symbol}' is a float operation, not for "
                                            f"{operand.type} (convert with .sitofp(f32) "
                                            "or .uitofp(f32))"))

    def _dim(self, what: str, dim: str) -> StringAttr:
        if dim not in _DIMS:
            raise ValueError(self._error(f"{what} takes \"x\", \"y\" or \"z\", not {dim!r}"))
        return StringAttr(dim)

    # -- constants and arith ---------------------------------------------------------

    def const(self, value: float, type_: HookType = _I32) -> Value:
        """``arith.constant value : type_``: an ``int`` of an integer type, or a number
        of ``f32``/``f64`` (``h.const(0.5, f32)``; an ``f32`` rounds it to nearest)."""
        if isinstance(type_, Float32Type | Float64Type):
            return self._result(arith.ConstantOp(FloatAttr(float(value), type_)))
        if not isinstance(value, int):
            raise TypeError(self._error(f"{value!r} is not an integer constant of {type_}; "
                                        "give a float type (h.const(x, f32))"))
        width = type_.bitwidth
        if not -(1 << (width - 1)) <= value < (1 << width):
            raise ValueError(self._error(f"{value} does not fit in i{width}"))
        signed = value - (1 << width) if value >= 1 << (width - 1) and width > 1 else value
        return self._result(arith.ConstantOp(IntegerAttr(signed, type_)))

    def _pair(self, symbol: str, lhs: Value | float,
              rhs: Value | float) -> tuple[SSAValue, SSAValue]:
        if isinstance(lhs, Value) and isinstance(rhs, Value) and lhs.type != rhs.type:
            if lhs.is_float and rhs.is_float:
                hint = "say which with .extf(f64) or .truncf(f32)"
            elif lhs.is_float or rhs.is_float:
                hint = "convert with .sitofp/.uitofp or .fptosi/.fptoui, or .bitcast"
            else:
                hint = (f"say which with .zext(i{max(lhs.width, rhs.width)}) or "
                        f".trunc(i{min(lhs.width, rhs.width)})")
            differ = "types" if lhs.is_float or rhs.is_float else "widths"
            raise TypeError(self._error(f"{lhs.type} {symbol} {rhs.type}: the {differ} "
                                        f"differ; {hint}"))
        type_ = lhs.type if isinstance(lhs, Value) else (
            rhs.type if isinstance(rhs, Value) else None)
        return self._use(lhs, type_), self._use(rhs, type_)

    def binary(self, op_type: type[arith.SignlessIntegerBinaryOperation], symbol: str,
               lhs: Value | int, rhs: Value | int) -> Value:
        """``lhs symbol rhs`` as ``op_type`` (what :class:`Value`'s operators call)."""
        self._guard()
        self._integers(symbol, lhs, rhs)
        left, right = self._pair(symbol, lhs, rhs)
        return self._result(op_type(left, right))

    def float_binary(self, op_type: type[arith.FloatingPointLikeBinaryOperation],
                     symbol: str, lhs: Value | float, rhs: Value | float) -> Value:
        """``lhs symbol rhs`` on floats (``arith.addf``...); a Python number beside a
        float value is a constant of its type."""
        self._guard()
        self._floats(symbol, *[v for v in (lhs, rhs) if isinstance(v, Value)])
        left, right = self._pair(symbol, lhs, rhs)
        return self._result(op_type(left, right))

    def compare(self, predicate: str, lhs: Value | int, rhs: Value | int) -> Value:
        """``arith.cmpi predicate, lhs, rhs``: an ``i1``."""
        self._guard()
        self._integers(predicate, lhs, rhs)
        left, right = self._pair(predicate, lhs, rhs)
        return self._result(arith.CmpiOp(left, right, predicate))

    def compare_float(self, predicate: str, lhs: Value | float,
                      rhs: Value | float) -> Value:
        """``arith.cmpf predicate, lhs, rhs``: an ``i1`` (:data:`FLOAT_PREDICATES`)."""
        self._guard()
        if predicate not in FLOAT_PREDICATES:
            raise ValueError(self._error(f"cmpf {predicate!r} is not one of "
                                         f"{', '.join(FLOAT_PREDICATES)}"))
        self._floats(f"cmpf {predicate}", *[v for v in (lhs, rhs) if isinstance(v, Value)])
        left, right = self._pair(predicate, lhs, rhs)
        return self._result(arith.CmpfOp(left, right, predicate))

    def fma(self, a: Value, b: Value | float, c: Value | float) -> Value:
        """``math.fma``: ``a * b + c`` rounded once (``v_fma_f32``/``v_fma_f64``)."""
        self._guard()
        self._floats("fma", *[v for v in (a, b, c) if isinstance(v, Value)])
        left, right = self._pair("fma", a, b)
        _, addend = self._pair("fma", a, c)
        return self._result(math.FmaOp(left, right, addend))

    def float_remainder(self, lhs: Value | float, rhs: Value | float) -> Value:
        """``lhs - trunc(lhs / rhs) * rhs``, the product and difference one FMA: LLVM's
        AMDGPU expansion of ``frem``, which clang gives ``fmodf``/``fmod``. The quotient is
        the rounded IEEE one, so a remainder of a very large quotient is not always C's exact
        ``fmod`` (it is what a HIP kernel computes)."""
        self._guard()
        self._floats("%", *[v for v in (lhs, rhs) if isinstance(v, Value)])
        left, right = self._pair("%", lhs, rhs)
        quotient = self._result(arith.DivfOp(left, right))
        truncated = self._result(math.TruncOp(quotient.ssa))
        negated = self._result(arith.NegfOp(truncated.ssa))
        return self._result(math.FmaOp(negated.ssa, right, left))

    def negate(self, value: Value) -> Value:
        """``arith.negf``: the float with its sign flipped (``-0.0`` from ``0.0``)."""
        self._guard()
        self._floats("negf", value)
        return self._result(arith.NegfOp(self._use(value)))

    def convert(self, what: str, value: Value, type_: HookType) -> Value:
        """``arith.<what>`` of ``value`` to ``type_``: between ``i32`` or ``i64`` and a
        float, or ``f32`` to/from ``f64``."""
        self._guard()
        op_type, source, result = _CONVERSIONS[what]
        kinds = {"i": "an i32 or i64", "f": "an f32 or f64"}
        for kind, type_of, role in ((source, value.type, "operand"),
                                    (result, type_, "result")):
            ok = is_float_type(type_of) if kind == "f" else type_of in (_I32, _I64)
            if not ok:
                raise TypeError(self._error(f".{what}: the {role} must be {kinds[kind]}, "
                                            f"not {type_of}"))
        if what == "extf" and (value.type, type_) != (_F32, _F64) or \
                what == "truncf" and (value.type, type_) != (_F64, _F32):
            raise TypeError(self._error(f".{what}({type_}) of an {value.type}: "
                                        f"{what} goes from "
                                        f"{'f32 to f64' if what == 'extf' else 'f64 to f32'}"))
        return self._result(op_type.build(operands=[self._use(value)], result_types=[type_]))

    def bitcast(self, value: Value, type_: HookType) -> Value:
        """``arith.bitcast``: the same bits as another type of the same width (``i32``
        and ``f32``, ``i64`` and ``f64``)."""
        self._guard()
        width = 32 if type_ == _F32 else 64 if type_ == _F64 else type_.bitwidth
        if width != value.width or width not in (32, 64):
            raise TypeError(self._error(f".bitcast({type_}) of an {value.type}: the widths "
                                        "must be the same, 32 or 64"))
        return self._result(arith.BitcastOp(self._use(value), type_))

    def cast(self, op_type: type[arith.ExtUIOp | arith.ExtSIOp | arith.TruncIOp], what: str,
             value: Value, type_: IntegerType, *, wider: bool) -> Value:
        """``value`` widened or narrowed to ``type_``; the direction must be right."""
        self._guard()
        self._integers(what, value)
        operand = self._use(value)
        if wider and type_.bitwidth <= value.width or \
                not wider and type_.bitwidth >= value.width:
            direction = "wider" if wider else "narrower"
            raise TypeError(self._error(f".{what}(i{type_.bitwidth}) of an i{value.width}: "
                                        f"the type must be {direction}"))
        return self._result(op_type(operand, type_))

    def select(self, condition: Value, if_true: Value | float,
               if_false: Value | float) -> Value:
        """``arith.select``: ``if_true`` where ``condition`` holds, else ``if_false``."""
        self._check("the condition of select", condition, (1,))
        cond = self._use(condition)
        left, right = self._pair("select", if_true, if_false)
        return self._result(arith.SelectOp(cond, left, right))

    # -- control flow ----------------------------------------------------------------

    @contextmanager
    def if_(self, condition: Value) -> Generator[None]:
        """``with h.if_(cond): ...``: an ``scf.if`` without results or else branch."""
        self._check("the condition of if_", condition, (1,))
        cond = self._use(condition)
        block = Block()
        self._open.append(block)
        try:
            yield
        finally:
            self._open.pop()
        block.add_op(scf.YieldOp())
        self._emit(scf.IfOp(cond, [], Region(block), Region()))

    @overload
    def if_else(self, condition: Value, then: Callable[[], Value],
                else_: Callable[[], Value]) -> Value: ...

    @overload
    def if_else(self, condition: Value, then: Callable[[], tuple[Value, ...]],
                else_: Callable[[], tuple[Value, ...]]) -> tuple[Value, ...]: ...

    @overload
    def if_else(self, condition: Value, then: Callable[[], None],
                else_: Callable[[], None]) -> None: ...

    def if_else(self, condition: Value, then: Callable[[], BranchResult],
                else_: Callable[[], BranchResult]) -> BranchResult:
        """An ``scf.if`` with both branches; what they return (a value, a tuple of
        values or nothing, the same types in both) is what the ``scf.if`` gives."""
        self._check("the condition of if_else", condition, (1,))
        cond = self._use(condition)
        then_block, then_types, single = self._branch(then)
        else_block, else_types, _ = self._branch(else_)
        if then_types != else_types:
            shown = [", ".join(str(t) for t in types) or "nothing"
                     for types in (then_types, else_types)]
            raise TypeError(self._error(f"if_else: the branches give ({shown[0]}) and "
                                        f"({shown[1]})"))
        op = scf.IfOp(cond, then_types, Region(then_block), Region(else_block))
        self._emit(op)
        values = tuple(Value(self, result, self._open[-1]) for result in op.results)
        if not values:
            return None
        return values[0] if single else values

    def _branch(self, body: Callable[[], BranchResult]) -> tuple[Block, list[Attribute], bool]:
        """A branch's block ending in ``scf.yield`` of what ``body`` returns, the yielded
        types, and whether ``body`` returned one bare value (not a tuple)."""
        block = Block()
        self._open.append(block)
        try:
            result = body()
        finally:
            self._open.pop()
        if result is None:
            values: tuple[Value, ...] = ()
        elif isinstance(result, Value):
            values = (result,)
        else:
            values = result
        self._open.append(block)
        try:
            operands = [self._use(value) for value in values]
        finally:
            self._open.pop()
        block.add_op(scf.YieldOp(*operands))
        return block, [operand.type for operand in operands], isinstance(result, Value)

    # -- instr intrinsics ------------------------------------------------------------

    def read_reg(self, register: str) -> Value:
        """The application register's value at the point (``i1`` for ``scc``, 32 bits
        per register otherwise: ``s[4:5]`` and ``exec`` are ``i64``)."""
        bits = self._register_bits(register)
        return self._result(ops.ReadRegOp.build(properties={"register": StringAttr(register)},
                                                result_types=[IntegerType(bits)]))

    def write_reg(self, register: str, value: Value) -> None:
        """Set an application register (the payload's epilogue leaves it so)."""
        self._check(f"the value written to {register}", value,
                    (self._register_bits(register),))
        self._emit(ops.WriteRegOp.build(properties={"register": StringAttr(register)},
                                        operands=[self._use(value)]))

    def _register_bits(self, register: str) -> int:
        try:
            return register_bits(register)
        except VerifyException as error:
            raise ValueError(self._error(str(error))) from None

    def _nullary(self, op_type: type[ops.LaneIdOp | ops.FirstActiveLaneOp]) -> Value:
        return self._result(op_type.build(result_types=[_I32]))

    def lane_id(self) -> Value:
        """The lane's index in the wave (per lane)."""
        return self._nullary(ops.LaneIdOp)

    def first_active_lane(self) -> Value:
        """The lowest lane EXEC holds (uniform)."""
        return self._nullary(ops.FirstActiveLaneOp)

    def _dimension(self, op_type: type[ops.WorkgroupIdOp | ops.WorkitemIdOp | ops.GridDimOp
                                       | ops.BlockDimOp], dim: str) -> Value:
        attr = self._dim(op_type.name, dim)
        return self._result(op_type.build(properties={"dim": attr}, result_types=[_I32]))

    def workgroup_id(self, dim: str = "x") -> Value:
        """HIP's blockIdx (uniform)."""
        return self._dimension(ops.WorkgroupIdOp, dim)

    def workitem_id(self, dim: str = "x") -> Value:
        """HIP's threadIdx (per lane)."""
        return self._dimension(ops.WorkitemIdOp, dim)

    def grid_dim(self, dim: str = "x") -> Value:
        """HIP's gridDim (uniform)."""
        return self._dimension(ops.GridDimOp, dim)

    def block_dim(self, dim: str = "x") -> Value:
        """HIP's blockDim (uniform)."""
        return self._dimension(ops.BlockDimOp, dim)

    def ballot(self, condition: Value) -> Value:
        """The active lanes where ``condition`` holds, as an ``i64`` mask (uniform)."""
        self._check("the condition of ballot", condition, (1,))
        return self._result(ops.BallotOp.build(operands=[self._use(condition)],
                                               result_types=[_I64]))

    def popcount(self, value: Value) -> Value:
        """The number of set bits, an ``i32``."""
        self._check("the value of popcount", value, (32, 64))
        return self._result(ops.PopcountOp.build(operands=[self._use(value)],
                                                 result_types=[_I32]))

    def readfirstlane(self, value: Value) -> Value:
        """``value`` of the first active lane (uniform)."""
        self._check("the value of readfirstlane", value, (32,))
        return self._result(ops.ReadFirstLaneOp.build(operands=[self._use(value)],
                                                      result_types=[_I32]))

    def readlane(self, value: Value, lane: Value | int) -> Value:
        """``value`` of lane ``lane`` (uniform)."""
        self._check("the value of readlane", value, (32,))
        operands = [self._use(value), self._use(lane, _I32)]
        return self._result(ops.ReadLaneOp.build(operands=operands, result_types=[_I32]))

    def writelane(self, value: Value, lane: Value | int, old: Value) -> Value:
        """``old`` with lane ``lane`` set to the uniform ``value``."""
        self._check("the value of writelane", value, (32,))
        self._check("the old value of writelane", old, (32,))
        operands = [self._use(value), self._use(lane, _I32), self._use(old)]
        return self._result(ops.WriteLaneOp.build(operands=operands, result_types=[_I32]))

    def kernarg(self, offset: int, type_: IntegerType = _I64) -> Value:
        """The kernel argument at byte ``offset`` of the argument segment (uniform)."""
        width = type_.bitwidth
        if width not in (32, 64) or offset < 0 or offset % (width // 8):
            raise ValueError(self._error(f"kernarg reads an aligned i32 or i64; offset "
                                         f"{offset} with i{width}"))
        return self._result(ops.KernArgOp.build(
            properties={"offset": IntegerAttr(offset, _I64)}, result_types=[type_]))

    def global_addr(self, variable: Global) -> Value:
        """The address of a tool global (uniform)."""
        if self._globals is not None and self._globals.get(variable.name) is not variable:
            raise ValueError(self._error(f"global @{variable.name} is not declared in this "
                                         "hook module (declare it with global_var)"))
        return self._result(ops.GlobalAddrOp.build(
            properties={"global_name": SymbolRefAttr(variable.name)}, result_types=[_I64]))

    def _address(self, what: str, address: Value) -> SSAValue:
        self._check(f"the address of {what}", address, (64,))
        return self._use(address)

    def load(self, address: Value, type_: HookType = _I32) -> Value:
        """A global-memory load of an ``i32``, ``i64``, ``f32`` or ``f64``."""
        if isinstance(type_, IntegerType) and type_.bitwidth not in (32, 64):
            raise TypeError(self._error(f"load gives i32, i64, f32 or f64, not {type_}"))
        return self._result(ops.LoadOp.build(operands=[self._address("load", address)],
                                             result_types=[type_]))

    def store(self, value: Value, address: Value, *, per_lane: bool = False) -> None:
        """A global-memory store of an ``i32``, ``i64``, ``f32`` or ``f64``: once per
        wave when every operand is uniform, once per active lane otherwise or with
        ``per_lane``."""
        self._check("the value of store", value, (32, 64), floats=True)
        properties: dict[str, Attribute] = {"per_lane": UnitAttr()} if per_lane else {}
        self._emit(ops.StoreOp.build(operands=[self._use(value),
                                               self._address("store", address)],
                                     properties=properties))

    def atomic(self, kind: str, address: Value, value: Value, *,
               per_lane: bool = False) -> Value:
        """A global-memory read-modify-write (``add``, ``max``, ``or``...); gives the
        old value. Once per wave when the operands are uniform, once per active lane
        otherwise or with ``per_lane`` (each lane then gets its own old value)."""
        if kind not in ops.ATOMIC_KINDS:
            raise ValueError(self._error(f"atomic {kind!r} is not one of "
                                         f"{', '.join(ops.ATOMIC_KINDS)}"))
        self._check("the value of atomic", value, (32, 64))
        addr = self._address("atomic", address)
        return self._result(ops.AtomicOp(kind, addr, self._use(value), per_lane))

    def finish(self) -> Block:
        """End the body with ``instr.return`` and hand the block over."""
        if len(self._open) != 1:
            raise ValueError(self._error("the body ended inside an if_ branch"))
        self.block.add_op(ops.ReturnOp())
        self._finished = True
        return self.block
