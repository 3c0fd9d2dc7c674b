"""The ``instr`` dialect: instrumentation hooks, their intrinsics, and where they go.

A hook (``instr.hook``) is a function with SSA arguments whose body uses ``arith``, ``scf``
and the intrinsics below, ending in ``instr.return``. Intrinsics are what only a GPU
instrumentation needs: the application's registers at the instrumentation point, lane and
EXEC-mask operations, work-item/workgroup ids and launch sizes, kernel arguments, the tool's
own global variables, memory accesses. Values are plain integers (``i1``/``i32``/``i64``);
whether one is uniform (an SGPR) or per lane (a VGPR) is decided by instruction selection
from where it comes from, as the compiler does for HIP.

Where hooks go is IR too: ``instr.insert`` names a hook, a selector and the arguments;
``insert-hooks`` turns each match into an ``instr.payload`` placed before the instrumented
instruction inside the lifted ``amdgpu_mc`` code, and ``inline-hooks`` fills the payload
with the hook's body.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloatConstr,
    ArrayAttr,
    Float32Type,
    Float64Type,
    FunctionType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    BaseAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.instr.attributes import (
    AddressArgAttr,
    ConstArgAttr,
    OperandArgAttr,
    RegArgAttr,
    SiteArgAttr,
    integer_width,
    register_bits,
)

#: Where an insertion puts its payloads (see :class:`InsertOp`).
INSERTION_POINTS = ("instruction", "block_entry", "kernel_entry", "before_return",
                    "first_block_end")
#: The largest ``instr.global`` (4 GiB): a tool's table or trace buffer, in the device memory
#: of the GPU it runs on (an 8 EiB ``.bss`` would be written without complaint otherwise).
MAX_GLOBAL_BYTES = 1 << 32
#: Operations of ``instr.atomic``.
ATOMIC_KINDS = ("add", "sub", "min", "max", "umin", "umax", "and", "or", "xor", "swap")
_DIMS = ("x", "y", "z")


def _width(value: SSAValue | Attribute) -> int | None:
    return integer_width(value.type if isinstance(value, SSAValue) else value)


def _check_width(what: str, value: SSAValue | Attribute, widths: Sequence[int]) -> None:
    width = _width(value)
    if width not in widths:
        allowed = " or ".join(f"i{w}" for w in widths)
        found = value.type if isinstance(value, SSAValue) else value
        raise VerifyException(f"{what} must be {allowed}, not {found}")


def _check_memory_type(what: str, value: SSAValue) -> None:
    """Memory operations move 32- or 64-bit integers or floats (``f32``, ``f64``); the
    operand constraint admits any integer or float, so that another width is refused here,
    with the types that are allowed."""
    if isinstance(value.type, Float32Type | Float64Type):
        return
    width = _width(value)
    if width not in (32, 64):
        raise VerifyException(f"{what} must be i32, i64, f32 or f64, not {value.type}")


@irdl_op_definition
class HookOp(IRDLOperation):
    """``instr.hook @name(%a: i32, ...) { ... instr.return }``: code to run at
    instrumentation points; its arguments come from the insertion."""

    name = "instr.hook"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, inputs: Sequence[Attribute], body: Region) -> None:
        super().__init__(properties={"sym_name": StringAttr(name),
                                     "function_type": FunctionType.from_lists(inputs, [])},
                         regions=[body])

    @classmethod
    def parse(cls, parser: Parser) -> HookOp:
        name, inputs, outputs, region, extra, _, _ = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type"))
        if outputs:
            parser.raise_error(f"hook @{name} returns nothing: it has no caller to use a "
                               "result")
        hook = HookOp(name, inputs, region)
        if extra is not None:
            hook.attributes |= extra.data
        return hook

    def print(self, printer: Printer) -> None:
        print_func_op_like(printer, self.sym_name, self.function_type, self.body,
                           self.attributes, reserved_attr_names=("sym_name", "function_type"),
                           print_empty_outputs=False)

    def verify_(self) -> None:
        entry = self.body.blocks.first
        if entry is None:
            raise VerifyException(f"hook @{self.sym_name.data} has no body")
        if tuple(entry.arg_types) != self.function_type.inputs.data:
            raise VerifyException(f"hook @{self.sym_name.data}: the body's arguments do not "
                                  "match the signature")
        for type_ in self.function_type.inputs.data:
            # f32/f64 parameters take constants (#instr.const<0.5 : f32>).
            if not isinstance(type_, Float32Type | Float64Type) \
                    and integer_width(type_) not in (1, 32, 64):
                raise VerifyException(f"an argument of hook @{self.sym_name.data} must be "
                                      f"i1, i32, i64, f32 or f64, not {type_}")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a hook or a payload."""

    name = "instr.return"
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict"


@irdl_op_definition
class ReadRegOp(IRDLOperation):
    """``%v = instr.read_reg "v3" : i32``: an application register's value at the point
    (``i1`` for SCC, 32 bits per register unit otherwise: ``s[4:5]``, ``exec`` are i64)."""

    name = "instr.read_reg"
    register = prop_def(StringAttr)
    result = result_def(IntegerType)
    assembly_format = "$register attr-dict `:` type($result)"

    def verify_(self) -> None:
        bits = register_bits(self.register.data)
        _check_width(f"reading {self.register.data}", self.result, (bits,))


@irdl_op_definition
class WriteRegOp(IRDLOperation):
    """``instr.write_reg "s4", %v : i32``: set an application register (the payload's
    epilogue leaves it so)."""

    name = "instr.write_reg"
    register = prop_def(StringAttr)
    value = operand_def(IntegerType)
    assembly_format = "$register `,` $value attr-dict `:` type($value)"

    def verify_(self) -> None:
        bits = register_bits(self.register.data)
        _check_width(f"writing {self.register.data}", self.value, (bits,))


class _NullaryIntOp(IRDLOperation):
    result = result_def(IntegerType)
    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        _check_width(f"the result of {self.name}", self.result, (32,))


@irdl_op_definition
class LaneIdOp(_NullaryIntOp):
    """The lane's index in the wave (0-63 in wave64)."""

    name = "instr.lane_id"


@irdl_op_definition
class FirstActiveLaneOp(_NullaryIntOp):
    """The lowest lane EXEC holds (uniform)."""

    name = "instr.first_active_lane"


class _DimOp(IRDLOperation):
    """A launch coordinate or size along ``dim`` (``"x"``, ``"y"`` or ``"z"``), an i32."""

    dim = prop_def(StringAttr)
    result = result_def(IntegerType)
    assembly_format = "$dim attr-dict `:` type($result)"

    def verify_(self) -> None:
        if self.dim.data not in _DIMS:
            raise VerifyException(f"{self.name} takes \"x\", \"y\" or \"z\", not "
                                  f"\"{self.dim.data}\"")
        _check_width(f"the result of {self.name}", self.result, (32,))


@irdl_op_definition
class WorkgroupIdOp(_DimOp):
    """``%i = instr.workgroup_id "x" : i32``: HIP's blockIdx (uniform)."""

    name = "instr.workgroup_id"


@irdl_op_definition
class WorkitemIdOp(_DimOp):
    """``%i = instr.workitem_id "x" : i32``: HIP's threadIdx (per lane)."""

    name = "instr.workitem_id"


@irdl_op_definition
class GridDimOp(_DimOp):
    """``%n = instr.grid_dim "x" : i32``: HIP's gridDim, workgroups in the grid (uniform;
    from the implicit arguments)."""

    name = "instr.grid_dim"


@irdl_op_definition
class BlockDimOp(_DimOp):
    """``%n = instr.block_dim "x" : i32``: HIP's blockDim, work-items per workgroup
    (uniform; from the implicit arguments)."""

    name = "instr.block_dim"


@irdl_op_definition
class BallotOp(IRDLOperation):
    """``%m = instr.ballot %c : i64``: the lanes (of those EXEC holds) where ``%c`` is
    true."""

    name = "instr.ballot"
    condition = operand_def(i1)
    result = result_def(i64)
    assembly_format = "$condition attr-dict `:` type($result)"


@irdl_op_definition
class PopcountOp(IRDLOperation):
    """``%n = instr.popcount %m : i64``: the number of set bits (an i32)."""

    name = "instr.popcount"
    value = operand_def(IntegerType)
    result = result_def(i32)
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class ReadFirstLaneOp(IRDLOperation):
    """``%u = instr.readfirstlane %x : i32``: ``%x`` of the first active lane (uniform)."""

    name = "instr.readfirstlane"
    value = operand_def(i32)
    result = result_def(i32)
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class ReadLaneOp(IRDLOperation):
    """``%u = instr.readlane %x, %lane : i32``: ``%x`` of lane ``%lane`` (uniform)."""

    name = "instr.readlane"
    value = operand_def(i32)
    lane = operand_def(i32)
    result = result_def(i32)
    assembly_format = "$value `,` $lane attr-dict `:` type($value)"


@irdl_op_definition
class WriteLaneOp(IRDLOperation):
    """``%y = instr.writelane %x, %lane, %old : i32``: ``%old`` with lane ``%lane`` set to
    the uniform ``%x``."""

    name = "instr.writelane"
    value = operand_def(i32)
    lane = operand_def(i32)
    old = operand_def(i32)
    result = result_def(i32)
    assembly_format = "$value `,` $lane `,` $old attr-dict `:` type($value)"


@irdl_op_definition
class KernArgOp(IRDLOperation):
    """``%p = instr.kernarg <{offset = 8 : i64}> : i64``: the kernel argument at byte
    ``offset`` of the kernel's argument segment (uniform)."""

    name = "instr.kernarg"
    offset = prop_def(IntegerAttr)
    result = result_def(IntegerType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        offset = self.offset.value.data
        width = _width(self.result) or 0
        if offset < 0 or width not in (32, 64) or offset % (width // 8):
            raise VerifyException(f"instr.kernarg reads an aligned i32 or i64; offset "
                                  f"{offset} with {self.result.type}")


@irdl_op_definition
class GlobalOp(IRDLOperation):
    """``instr.global @counter <{size = 8 : i64}>``: a variable the tool owns, zero at
    load, exported from the instrumented code object so the host finds it by name. Its
    ``size`` is 1 byte to 4 GiB; its ``alignment``, a power of two up to 65536."""

    name = "instr.global"
    sym_name = prop_def(SymbolNameConstraint())
    size = prop_def(IntegerAttr)
    alignment = opt_prop_def(IntegerAttr)
    traits = traits_def(SymbolOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name attr-dict"

    def verify_(self) -> None:
        size = self.size.value.data
        if not 0 < size <= MAX_GLOBAL_BYTES:
            raise VerifyException(f"instr.global @{self.sym_name.data}: size {size} is not "
                                  f"between 1 and {MAX_GLOBAL_BYTES} bytes")
        if self.alignment is not None:
            alignment = self.alignment.value.data
            if alignment <= 0 or alignment & (alignment - 1) or alignment > 1 << 16:
                raise VerifyException(f"instr.global @{self.sym_name.data}: alignment "
                                      f"{alignment} is not a power of two up to 65536")


@irdl_op_definition
class GlobalAddrOp(IRDLOperation):
    """``%a = instr.global_addr @counter : i64``: the address of a tool global."""

    name = "instr.global_addr"
    global_name = prop_def(SymbolRefAttr)
    result = result_def(i64)
    assembly_format = "$global_name attr-dict `:` type($result)"


@irdl_op_definition
class LoadOp(IRDLOperation):
    """``%v = instr.load %address : i32``: a global-memory load."""

    name = "instr.load"
    address = operand_def(i64)
    result = result_def(BaseAttr(IntegerType) | AnyFloatConstr)
    assembly_format = "$address attr-dict `:` type($result)"

    def verify_(self) -> None:
        _check_memory_type("instr.load's result", self.result)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """``instr.store %value, %address : i32``: a global-memory store: once per wave when
    its operands are uniform, once per active lane otherwise; ``{per_lane}`` makes it once
    per active lane whatever its operands (SIMT, as a HIP store is: the HIP importer marks
    every store so)."""

    name = "instr.store"
    value = operand_def(BaseAttr(IntegerType) | AnyFloatConstr)
    address = operand_def(i64)
    per_lane = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value `,` $address attr-dict `:` type($value)"

    def verify_(self) -> None:
        _check_memory_type("instr.store's value", self.value)


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """``%old = instr.atomic "add" %address, %value : i64``: a global-memory atomic
    read-modify-write; the result is the old value. Once per wave when its operands are
    uniform (the old value is then uniform), once per active lane otherwise;
    ``{per_lane}`` makes it once per active lane whatever its operands (SIMT, as HIP's
    ``atomicAdd`` is: the HIP importer marks every atomic so; each lane gets its own old
    value)."""

    name = "instr.atomic"
    T: ClassVar = VarConstraint("T", base(IntegerType))
    kind = prop_def(StringAttr)
    address = operand_def(i64)
    value = operand_def(T)
    result = result_def(T)
    per_lane = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$kind $address `,` $value attr-dict `:` type($value)"

    def __init__(self, kind: str, address: SSAValue, value: SSAValue,
                 per_lane: bool = False) -> None:
        super().__init__(properties={"kind": StringAttr(kind),
                                     **({"per_lane": UnitAttr()} if per_lane else {})},
                         operands=[address, value], result_types=[value.type])

    def verify_(self) -> None:
        if self.kind.data not in ATOMIC_KINDS:
            raise VerifyException(f"instr.atomic \"{self.kind.data}\" is not one of "
                                  f"{', '.join(ATOMIC_KINDS)}")
        _check_width("instr.atomic's value", self.value, (32, 64))
        if self.result.type != self.value.type:
            raise VerifyException("instr.atomic returns the old value: its type is the "
                                  "value's")


#: Arguments an insertion may pass.
InsertionArgument = ConstArgAttr | RegArgAttr | OperandArgAttr | SiteArgAttr | AddressArgAttr


@irdl_op_definition
class InsertOp(IRDLOperation):
    """``instr.insert @hook <{at = "instruction", kernel = "k", mnemonic = "global_load*",
    args = [#instr.reg<"v0">]}>``: run ``@hook`` at every point the selector matches.

    Selector fields: ``at`` (``instruction``: before each instruction; ``block_entry``;
    ``kernel_entry``: before the kernel's first instruction; ``before_return``: before each
    ``s_endpgm`` or return; ``first_block_end``: before the last instruction of the
    function's first basic block, where its entry code has run), ``kernel`` (a kernel
    name; every kernel when absent), ``mnemonic`` (a shell-style pattern,
    ``global_load_*``), ``class`` (a class of the
    target's instruction records, as LLVM's TableGen gives them: ``SALU``, ``VALU``,
    ``SMRD``, ``MUBUF``, ``DS``, ``FLAT``, ``FlatGlobal``, ``IsMAI``...), ``first``/``last``
    (instruction indexes within the function, inclusive). ``args`` are argument attributes
    (``#instr.const``, ``#instr.reg``, ``#instr.operand``, ``#instr.site``,
    ``#instr.address``): constants, registers, operands, facts about the site.

    An insertion that matches nothing is an error (a misspelt selector instruments nothing
    without a word otherwise), unless it is ``optional``: a tool whose hooks handle kinds
    of instruction a kernel may lack (``memory_trace``'s atomics, ``flat_*`` accesses) is
    then usable on every kernel. ``skip = "reason"`` places no payload: the insertion names
    instructions the tool leaves out (``memory_trace`` cannot compute a ``buffer_*``
    address), and ``luthier-opt`` warns, per function, how many it matched, with the
    reason (``insertion_remarks`` of ``insert-hooks``), so the tool says what it did not
    see instead of refusing or keeping silent; it may match nothing.
    """

    name = "instr.insert"
    hook = prop_def(SymbolRefAttr)
    at = prop_def(StringAttr)
    kernel = opt_prop_def(StringAttr)
    mnemonic = opt_prop_def(StringAttr)
    instruction_class = opt_prop_def(StringAttr, prop_name="class")
    first = opt_prop_def(IntegerAttr)
    last = opt_prop_def(IntegerAttr)
    args = prop_def(ArrayAttr)
    #: Matching nothing is not an error.
    optional = opt_prop_def(UnitAttr)
    #: Why the matched instructions get no payload; they are counted and reported instead.
    skip = opt_prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$hook attr-dict"

    def verify_(self) -> None:
        hook = self.hook.string_value()
        if self.skip is not None and not self.skip.data.strip():
            raise VerifyException(f"insertion of @{hook}: skip needs a reason (what the "
                                  "report says of the instructions left out)")
        if self.at.data not in INSERTION_POINTS:
            raise VerifyException(f"insertion of @{hook}: at = \"{self.at.data}\" is not one "
                                  f"of {', '.join(INSERTION_POINTS)}")
        for arg in self.args.data:
            if not isinstance(arg, InsertionArgument):
                raise VerifyException(f"insertion of @{hook}: {arg} is not an argument "
                                      "(#instr.const, #instr.reg, #instr.operand or "
                                      "#instr.site)")
        first = self.first.value.data if self.first is not None else 0
        last = self.last.value.data if self.last is not None else None
        if first < 0 or (last is not None and last < first):
            raise VerifyException(f"insertion of @{hook}: the index range {first}..{last} "
                                  "is empty")


@irdl_op_definition
class PayloadOp(IRDLOperation):
    """``instr.payload @hook <{args = [...]}> ({...})``: one insertion point's code, placed
    before the instrumented instruction in an ``amdgpu_mc`` block. Before ``inline-hooks``
    its region is empty; after, it holds the hook's body with the arguments bound."""

    name = "instr.payload"
    hook = prop_def(SymbolRefAttr)
    args = prop_def(ArrayAttr)
    body = region_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$hook attr-dict-with-keyword $body"

    def __init__(self, hook: str, args: Sequence[Attribute],
                 body: Region | None = None) -> None:
        super().__init__(properties={"hook": SymbolRefAttr(hook), "args": ArrayAttr(args)},
                         regions=[body if body is not None else Region()])

    @classmethod
    def empty(cls, hook: SymbolRefAttr, args: ArrayAttr[Attribute]) -> PayloadOp:
        """An empty payload from attributes already built (``insert-hooks`` places tens of
        thousands of them, sharing the hook's reference and equal arguments), made by
        filling the fields ``Operation.create`` would fill (it costs several times this:
        operand, result and successor lists, each empty here)."""
        if not _EMPTY_PAYLOAD:
            _EMPTY_PAYLOAD.append(cls.create(properties={"hook": hook, "args": args},
                                             regions=[Region()]))
        op = cls.__new__(cls)
        op.properties = {"hook": hook, "args": args}
        op.attributes = {}
        op.location = _EMPTY_PAYLOAD[0].location
        region = Region()
        op.regions = (region,)
        region.parent = op
        return op


#: A payload made by ``Operation.create``, whose location :meth:`PayloadOp.empty` copies.
_EMPTY_PAYLOAD: list[PayloadOp] = []


#: The ops a tool's module (a hooks file) holds: its globals, hooks and insertions.
HOOK_FILE_OPS = (GlobalOp, HookOp, InsertOp)
