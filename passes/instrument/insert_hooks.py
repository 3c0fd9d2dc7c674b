"""``insert-hooks``: one ``instr.payload`` per point an ``instr.insert`` selects.

Each insertion names a hook, where (``at``), in which functions (``kernel``), which
instructions (``mnemonic`` pattern, ISA ``class``, ``first``..``last`` index) and the
arguments. For every match a payload is placed just before the instrumented instruction, so
it runs before it, in its block, under the EXEC the application has there. Arguments are
resolved at the point: ``#instr.operand<N>`` becomes the register (``#instr.reg``) or the
immediate (``#instr.const``) the instruction holds; ``#instr.site<"opcode">``,
``<"index">`` and ``<"offset">`` become ``#instr.const<N : i32>``: the instruction's record
index in the target's ISA table (``isa.instructions`` order, stable per target, so the host
maps it back), its index in the function, its byte offset from the function's first
instruction.

Selectors:

* ``at = "instruction"``: every instruction that passes the filters;
* ``at = "block_entry"``: the first instruction of every block;
* ``at = "kernel_entry"``: the first instruction of the function;
* ``at = "before_return"``: the ``s_endpgm`` of a kernel, the return of a device function;
* ``at = "first_block_end"``: the last instruction of the function's first basic block (the
  block of its first instruction: a preloading kernel's real entry), so the payload runs
  once per wave after the entry code and before the first branch (Luthier's gridDim tool
  goes there).

``kernel`` names a kernel or a device function; without it, every kernel (not the device
functions: a payload there would run for each kernel that calls them; name them to
instrument them) and, but for the entry points, the code no symbol names that kernels
branch to (``anonymous`` functions of hand-written code: part of the kernels that run it).
Instruction indexes count instructions in layout order from 0.

Errors are diagnostics naming the insertion's hook, the function and the instruction: a
hook that does not exist or whose arguments do not match, an operand the instruction does
not have, an insertion that matches nothing (unless it is ``optional``).

An insertion with ``skip = "reason"`` places nothing: it names instructions the tool leaves
out, and no other insertion of the same hook places a payload before them (a hook for
``global_*`` can leave out GFX12's ``global_wb``/``global_inv``, which have no address).
:func:`insertion_remarks` counts them per function (and says so when no insertion
places anything), for the driver to print as warnings before it inserts: a pass has no
channel for warnings, and with ``luthier-opt --jobs`` each worker inserts into a share of
the functions, so the whole module is looked at once, in the driver's process.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException, VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.layout import UnsizedError, function_layout
from luthier.amdgpu_dialects.amdgpu_mc.operands import LiteralAttr
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    KernelOp,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import GlobalOp as MCGlobalOp
from luthier.amdgpu_dialects.instr.attributes import (
    AddressArgAttr,
    ConstArgAttr,
    OperandArgAttr,
    RegArgAttr,
    SiteArgAttr,
    integer_width,
    register_bits,
)
from luthier.amdgpu_dialects.instr.ops import GlobalAddrOp, GlobalOp, HookOp, InsertOp, PayloadOp
from luthier.amdgpu_dialects.isa.target import (
    SUPPORTED_TARGETS,
    TargetISA,
    instruction_classes,
    load_target,
)
from luthier.passes.analysis.cfg import ExitKind, FunctionCFG
from luthier.passes.analysis.liveness import instructions
from luthier.passes.analysis.preload import PreloadEntryError, fallback_instructions


def _fail(insert: InsertOp, message: str) -> PassFailedException:
    return PassFailedException(f"insert-hooks: @{insert.hook.string_value()}: {message}")


#: Insertion points that mean a kernel's start: code no symbol names has none.
_ENTRY_POINTS = ("kernel_entry", "first_block_end")


def _functions(code_object: CodeObjectOp, insert: InsertOp) -> list[FunctionLikeOp]:
    """The functions ``insert`` instruments: the one it names, else every kernel and
    the code no symbol names that kernels branch to (hand-written code; it is theirs,
    so counting every instruction of a kernel counts it too), but for entry points."""
    wanted = insert.kernel.data if insert.kernel is not None else None
    anonymous_too = wanted is None and insert.at.data not in _ENTRY_POINTS
    found: list[FunctionLikeOp] = []
    for op in code_object.body.ops:
        if not isinstance(op, FunctionLikeOp):
            continue
        if wanted is None and isinstance(op, KernelOp) or op.sym_name.data == wanted \
                or (anonymous_too and op.anonymous is not None):
            found.append(op)
    return found


def _candidates(function: FunctionLikeOp, insert: InsertOp, isa: TargetISA,
                ops: list[InstructionOpBase]) -> list[InstructionOpBase]:
    """The instructions ``at`` names, before the filters."""
    at = insert.at.data
    if at == "kernel_entry":
        return ops[:1]  # the real entry: ``_points`` drops a preloading kernel's fallback
    if at == "block_entry":
        firsts: list[InstructionOpBase] = []
        for block in function.body.blocks:
            first = next((op for op in block.ops if isinstance(op, InstructionOpBase)), None)
            if first is not None:
                firsts.append(first)
        return firsts
    if at == "first_block_end":
        block = ops[0].parent_block() if ops else None
        if block is None:
            return []
        return [op for op in block.ops if isinstance(op, InstructionOpBase)][-1:]
    if at == "before_return":
        cfg = FunctionCFG.build(function, isa)
        exits: list[InstructionOpBase] = []
        for index, kind in sorted(cfg.exits.items()):
            last = cfg.blocks[index].last_op
            if kind in (ExitKind.ENDPGM, ExitKind.RETURN) and \
                    isinstance(last, InstructionOpBase):
                exits.append(last)
        return exits
    return ops


def _points(function: FunctionLikeOp, insert: InsertOp,
            isa: TargetISA) -> list[tuple[int, InstructionOpBase]]:
    """The instructions a payload goes before, with their indexes, in layout order: those
    ``at`` names that pass the filters (mnemonic pattern, ISA class, index range)."""
    ops = list(instructions(function))
    index_of = {id(op): index for index, op in enumerate(ops)}
    first = insert.first.value.data if insert.first is not None else 0
    last = insert.last.value.data if insert.last is not None else len(ops) - 1
    if isinstance(function, KernelOp):
        try:
            fallback = fallback_instructions(function, isa)
        except PreloadEntryError as error:
            raise _fail(insert, str(error)) from None
        ops = [op for op in ops if op not in fallback]
    selected: list[tuple[int, InstructionOpBase]] = []
    allowed = set(ops)
    for op in _candidates(function, insert, isa, ops):
        if op not in allowed:
            continue  # in a preloading kernel's fallback entry
        index = index_of[id(op)]
        if not first <= index <= last:
            continue
        if insert.mnemonic is not None and \
                not fnmatch.fnmatchcase(op.mnemonic, insert.mnemonic.data):
            continue
        if insert.instruction_class is not None:
            desc = op.instr_def(isa)
            if desc is None or insert.instruction_class.data not in desc.classes:
                continue
        selected.append((index, op))
    return selected


def _operand_arg(insert: InsertOp, function: FunctionLikeOp, op: InstructionOpBase,
                 which: int | str, isa: TargetISA) -> Attribute:
    operands = op.mc_operands.data
    where = f"@{function.sym_name.data}, {op.mnemonic}"
    if which == "address":
        return _address_arg(insert, op, isa, where)
    if isinstance(which, str):
        desc = op.instr_def(isa)
        names = [slot.name for slot in desc.operands] if desc is not None else []
        if which not in names:
            raise _fail(insert, f"{where} has no operand named {which} (it has "
                                f"{', '.join(names) or 'none'})")
        index = names.index(which)
    else:
        index = which
    if index >= len(operands):
        raise _fail(insert, f"{where} has {len(operands)} operands; there is no operand "
                            f"{index}")
    operand = operands[index]
    if isinstance(operand, PhysRegAttr):
        return RegArgAttr(operand.data)
    if isinstance(operand, IntAttr):
        value = cast(int, operand.data)  # pyright: ignore[reportUnknownMemberType]
        return ConstArgAttr.integer(value, 32)
    if isinstance(operand, LiteralAttr):
        return ConstArgAttr.integer(operand.data & 0xFFFFFFFF, 32)
    raise _fail(insert, f"{where}: operand {index} ({operand}) is neither a register nor an "
                        "immediate")


def _address_arg(insert: InsertOp, op: InstructionOpBase, isa: TargetISA,
                 where: str) -> AddressArgAttr:
    """``#instr.operand<"address">``: the per-lane 64-bit address of a ``global_*`` or
    ``flat_*`` access (load, store or atomic), in either encoding (a 64-bit ``vaddr``, or
    ``saddr`` + a 32-bit ``vaddr``), plus the immediate offset.

    Nothing else has one, and it is refused rather than approximated: a ``scratch_*``
    address is an offset into the lane's private segment, which the hardware swizzles per
    lane; a ``buffer_*`` address is what the V# in its SGPRs makes of its offsets (base,
    stride, swizzle, range check: fields known only when the kernel runs, and lanes out of
    range access nothing). Either, handed to a hook as a 64-bit address, would be a number
    no host can map to the memory accessed."""
    desc = op.instr_def(isa)
    classes = set(desc.classes) if desc is not None else set[str]()
    if "FlatScratch" in classes:
        raise _fail(insert, f"{where} is a scratch access: its address is an offset in the "
                            "lane's private segment, not a 64-bit address operand")
    if classes & {"MUBUF", "MTBUF"}:
        raise _fail(insert, f"{where} is a buffer access: its address is made by the buffer "
                            "resource (V#) it names when the kernel runs; there is no "
                            "64-bit address operand")
    if "FLAT" not in classes or desc is None:
        raise _fail(insert, f"{where} is not a global or flat memory access: it has no "
                            "address operand")
    slots = {slot.name: attr for slot, attr in
             zip(desc.operands, op.mc_operands.data, strict=False)}
    vaddr, saddr, offset = slots.get("vaddr"), slots.get("saddr"), slots.get("offset")
    immediate = cast(int, offset.data) if isinstance(offset, IntAttr) else 0  # pyright: ignore[reportUnknownMemberType]
    if isinstance(saddr, PhysRegAttr):
        if isinstance(vaddr, PhysRegAttr) and register_bits(vaddr.data) == 32 \
                and register_bits(saddr.data) == 64:
            return AddressArgAttr((saddr.data, vaddr.data, immediate))
    elif isinstance(vaddr, PhysRegAttr) and register_bits(vaddr.data) == 64:
        return AddressArgAttr((vaddr.data, "", immediate))
    raise _fail(insert, f"{where}: the address operands (vaddr {vaddr}, saddr {saddr}) are "
                        "neither a 64-bit vaddr nor a 64-bit saddr with a 32-bit vaddr")


_opcode_indexes: dict[tuple[str, int], dict[str, int]] = {}


def opcode_index(isa: TargetISA, record: str) -> int | None:
    """The position of ISA record ``record`` in ``isa.instructions`` (what
    ``#instr.site<"opcode">`` passes), or None when the target lacks it. A real-true16
    twin has its default record's number: the same hardware opcode."""
    key = (isa.name, isa.wavefront_size)  # RDNA: one table per wave size
    indexes = _opcode_indexes.get(key)
    if indexes is None:
        indexes = {desc.name: position for position, desc in enumerate(isa.instructions)}
        for twin in isa.real_true16:
            if twin.fake16 in indexes:
                indexes[twin.name] = indexes[twin.fake16]
        _opcode_indexes[key] = indexes
    return indexes.get(record)


def _site_arg(insert: InsertOp, function: FunctionLikeOp, op: InstructionOpBase, fact: str,
              index: int, isa: TargetISA, offsets: list[int] | None) -> ConstArgAttr:
    where = f"@{function.sym_name.data}, {op.mnemonic}"
    if fact == "index":
        return ConstArgAttr.integer(index, 32)
    if fact == "opcode":
        opcode = opcode_index(isa, op.opcode.data)
        if opcode is None:
            raise _fail(insert, f"{where}: {op.opcode.data} is not in the {isa.name} ISA "
                                "table; it has no opcode number")
        return ConstArgAttr.integer(opcode, 32)
    if offsets is None:
        raise _fail(insert, f"{where}: the instruction's byte offset is not known (an "
                            "instruction of unknown size comes before it)")
    return ConstArgAttr.integer(offsets[index], 32)


def _offsets(function: FunctionLikeOp, isa: TargetISA) -> list[int] | None:
    """Each instruction's byte offset from the function's first, as lifted (payloads
    placed so far take no room: they are not application code). None when a size is
    unknown."""
    try:
        layout = function_layout(function, isa, payloads_take_no_room=True)
    except UnsizedError:
        return None
    return [offset for _, offset in layout.instructions()]


def _check_args(insert: InsertOp, hook: HookOp, args: list[Attribute], where: str) -> None:
    inputs = hook.function_type.inputs.data
    if len(args) != len(inputs):
        raise _fail(insert, f"the hook takes {len(inputs)} arguments, the insertion passes "
                            f"{len(args)}")
    for position, (arg, type_) in enumerate(zip(args, inputs, strict=True)):
        width = integer_width(type_)
        if isinstance(arg, ConstArgAttr) and (arg.is_float or width is None):
            if arg.type != type_:
                raise _fail(insert, f"{where}argument {position} is an {arg.type} "
                                    f"constant, the hook takes {type_}")
            continue
        if isinstance(arg, ConstArgAttr):
            bits = arg.width
        elif isinstance(arg, RegArgAttr):
            bits = register_bits(arg.data)
        elif isinstance(arg, SiteArgAttr):
            bits = 32
        elif isinstance(arg, AddressArgAttr):
            bits = 64
        else:
            continue
        if bits != width:
            raise _fail(insert, f"{where}argument {position} is {bits} bits, the hook "
                                f"takes {type_}")


def _hook_of(insert: InsertOp, hooks: dict[str, HookOp]) -> HookOp:
    """The hook ``insert`` places, its arguments checked when they need no point."""
    hook = hooks.get(insert.hook.string_value())
    if hook is None:
        raise _fail(insert, "no instr.hook of that name")
    static = [arg for arg in insert.args.data if not isinstance(arg, OperandArgAttr)]
    if len(static) == len(insert.args.data):
        _check_args(insert, hook, list(insert.args.data), "")
    return hook


@dataclass(frozen=True)
class _Tool:
    """The tool's ops in a module, and the code objects they instrument."""

    hooks: dict[str, HookOp]
    inserts: list[InsertOp]
    code_objects: list[CodeObjectOp]
    #: The names of the tool's ``instr.global`` variables.
    globals: frozenset[str]


def _inserts(module: ModuleOp) -> _Tool:
    """The hooks, the insertions and the code objects of ``module``."""
    # The tool's ops sit beside the code objects, never in them: not walked into (after
    # the lift they hold an op per instruction).
    tool_ops = [op for child in module.ops if not isinstance(child, CodeObjectOp)
                for op in child.walk()]
    hooks = {hook.sym_name.data: hook for hook in tool_ops if isinstance(hook, HookOp)}
    inserts = [insert for insert in tool_ops if isinstance(insert, InsertOp)]
    code_objects = [child for child in module.ops if isinstance(child, CodeObjectOp)]
    if inserts and not code_objects:
        raise PassFailedException("insert-hooks: there is no code object to instrument "
                                  "(lift one first)")
    variables = frozenset(op.sym_name.data for op in tool_ops if isinstance(op, GlobalOp))
    return _Tool(hooks, inserts, code_objects, variables)


def _check_insertion(insert: InsertOp, hook: HookOp, tool: _Tool) -> None:
    """What makes an insertion wrong wherever it lands: an ISA class no target has, a
    global address naming nothing (caught here rather than as an undefined symbol when the
    object is written). Every target that lifts is instrumented: a code object of another
    processor never reaches this pass (lifting and parsing refuse it)."""
    for code_object in tool.code_objects:
        isa = load_target(*code_object.target_key)
        wanted = insert.instruction_class
        classes = instruction_classes(isa)
        if wanted is not None and wanted.data not in classes:
            raise _fail(insert, f"no instruction of {isa.name} has the class "
                        f"{wanted.data!r}; the classes are {', '.join(sorted(classes))}")
        symbols = {op.sym_name.data for op in code_object.body.ops
                   if isinstance(op, FunctionLikeOp | MCGlobalOp)}
        for op in hook.walk():
            if isinstance(op, GlobalAddrOp):
                name = op.global_name.string_value()
                if name not in tool.globals and name not in symbols:
                    raise _fail(insert, f"instr.global_addr @{name} names no instr.global of "
                                f"the tool and no symbol of the {code_object.target.data} "
                                "code object")




def _must_match(insert: InsertOp) -> bool:
    """Whether matching nothing is an error: neither ``optional`` nor a ``skip``."""
    return insert.optional is None and insert.skip is None


def _matches(insert: InsertOp, tool: _Tool) -> bool:
    """Whether ``insert`` selects a point anywhere in the tool's code objects."""
    return any(_points(function, insert, load_target(*code_object.target_key))
               for code_object in tool.code_objects
               if code_object.processor in SUPPORTED_TARGETS
               for function in _functions(code_object, insert))


def check_insertions(module: ModuleOp) -> None:
    """Raise what ``insert-hooks`` raises about an insertion as a whole (no such hook,
    arguments that do not fit it, no point anywhere), placing nothing: for a driver that
    then inserts into parts of the module apart (:class:`InsertHooksPass` with
    ``require_match`` off), where an insertion may rightly match nothing."""
    tool = _inserts(module)
    for insert in tool.inserts:
        _check_insertion(insert, _hook_of(insert, tool.hooks), tool)
        if _must_match(insert) and not _matches(insert, tool):
            raise _fail(insert, f"the insertion matches nothing ({_selector(insert)})")


def insertion_remarks(module: ModuleOp) -> list[str]:
    """What ``insert-hooks`` will leave undone in ``module`` without failing, one line
    each, for a driver to print as warnings before it inserts:

    * per function, the instructions the ``skip`` insertions of each hook match, with
      their reason: ``@private_array: @trace_address skips 2 buffer_load* and 32
      buffer_store*: <reason>`` (one line per function, hook and reason, in the code
      object's function order, the counts in insertion order);
    * when no insertion places a payload anywhere (each is ``optional`` or a ``skip``, and
      none matches), that nothing is instrumented: the output is the input's code with the
      tool's globals beside it, which would otherwise pass for a run that saw nothing.

    Nothing is said of a module whose insertions are wrong (one that does not verify, names
    no hook, a point that cannot be instrumented): the verifier or ``insert-hooks`` reports
    that instead, and a warning before the error would only be noise."""
    tool = _inserts(module)
    try:
        for insert in tool.inserts:
            insert.verify()
            _check_insertion(insert, _hook_of(insert, tool.hooks), tool)
    except (PassFailedException, VerifyException):
        return []
    if not tool.inserts:
        return []
    remarks: list[str] = []
    skips = [insert for insert in tool.inserts if insert.skip is not None]
    for code_object in tool.code_objects:
        if not skips or code_object.processor not in SUPPORTED_TARGETS:
            continue
        isa = load_target(*code_object.target_key)
        covered = [{id(function) for function in _functions(code_object, insert)}
                   for insert in skips]
        for function in code_object.body.ops:
            if not isinstance(function, FunctionLikeOp):
                continue
            counts: dict[tuple[str, str], list[str]] = {}
            # The function's mnemonics, once: most functions have none a skip names, and
            # are then passed over without a walk per insertion (a library has thousands).
            mnemonics = {op.mnemonic for op in instructions(function)}
            for insert, functions in zip(skips, covered, strict=True):
                if id(function) not in functions or insert.mnemonic is not None and not any(
                        fnmatch.fnmatchcase(mnemonic, insert.mnemonic.data)
                        for mnemonic in mnemonics):
                    continue
                try:
                    found = len(_points(function, insert, isa))
                except PassFailedException:
                    continue  # insert-hooks says why
                if found:
                    assert insert.skip is not None
                    key = (insert.hook.string_value(), insert.skip.data)
                    counts.setdefault(key, []).append(f"{found} {_skipped(insert)}")
            remarks.extend(f"@{function.sym_name.data}: @{hook} skips {_listed(found)}: "
                           f"{reason}" for (hook, reason), found in counts.items())
    placing = [insert for insert in tool.inserts if insert.skip is None]
    if tool.code_objects and not any(_must_match(insert) for insert in placing):
        try:
            placed = any(_matches(insert, tool) for insert in placing)
        except PassFailedException:
            placed = True  # insert-hooks says why
        if not placed:
            selectors = "; ".join(f"@{insert.hook.string_value()}: {_selector(insert)}"
                                  for insert in placing)
            remarks.append("no insertion matches anything: nothing is instrumented"
                           + (f" ({selectors})" if selectors else ""))
    return remarks


def _skipped(insert: InsertOp) -> str:
    """What a ``skip`` insertion's count counts: its mnemonic pattern, else its class."""
    if insert.mnemonic is not None:
        return insert.mnemonic.data
    if insert.instruction_class is not None:
        return f"of class {insert.instruction_class.data}"
    return f"at {insert.at.data}"


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


@dataclass(frozen=True)
class InsertHooksPass(ModulePass):
    """Place one payload per selected point; the ``instr.insert`` ops are consumed."""

    name = "insert-hooks"

    #: Whether an insertion that matches nothing is an error, unless it is ``optional``
    #: or a ``skip`` (off only for parts of a module whose whole was checked:
    #: :func:`check_insertions`).
    require_match: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        tool = _inserts(op)
        code_objects = tool.code_objects
        #: Functions already checked for unknown branches (payloads do not change that).
        checked: set[int] = set()
        skips: dict[str, list[InsertOp]] = {}
        for insert in tool.inserts:
            if insert.skip is not None:
                skips.setdefault(insert.hook.string_value(), []).append(insert)
        for insert in tool.inserts:
            name = insert.hook.string_value()
            hook = _hook_of(insert, tool.hooks)
            _check_insertion(insert, hook, tool)
            if insert.skip is not None:  # counted by insertion_remarks; nothing to place
                insert.detach()
                insert.erase()
                continue
            placed = 0
            reference = SymbolRefAttr(name)
            # Arguments that need no point (constants, registers, addresses) are one
            # attribute shared by every payload of the insertion.
            static_args = None if any(isinstance(arg, OperandArgAttr | SiteArgAttr)
                                      for arg in insert.args.data) \
                else ArrayAttr(list(insert.args.data))
            for code_object in code_objects:
                if code_object.processor not in SUPPORTED_TARGETS:
                    continue
                isa = load_target(*code_object.target_key)
                for function in _functions(code_object, insert):
                    points = _points(function, insert, isa)
                    if points and name in skips:
                        left_out = {id(op) for skip in skips[name]
                                    if function in _functions(code_object, skip)
                                    for _, op in _points(function, skip, isa)}
                        points = [(index, op) for index, op in points
                                  if id(op) not in left_out]
                    if points and id(function) not in checked:
                        _refuse_unknown_branches(insert, function, isa)
                        checked.add(id(function))
                    offsets = _offsets(function, isa) if points and any(
                        isinstance(arg, SiteArgAttr) and arg.data == "offset"
                        for arg in insert.args.data) else None
                    for index, point in points:
                        if static_args is not None:
                            _insert_before(point, PayloadOp.empty(reference, static_args))
                            placed += 1
                            continue
                        args = [_resolve(insert, function, point, arg, index, isa, offsets)
                                for arg in insert.args.data]
                        _check_args(insert, hook, args,
                                    f"@{function.sym_name.data}, {point.mnemonic}: ")
                        _insert_before(point, PayloadOp.empty(reference, ArrayAttr(args)))
                        placed += 1
            if placed == 0 and self.require_match and _must_match(insert):
                raise _fail(insert, f"the insertion matches nothing ({_selector(insert)})")
            insert.detach()
            insert.erase()


def _refuse_unknown_branches(insert: InsertOp, function: FunctionLikeOp, isa: TargetISA) -> None:
    """A function that jumps to an unknown address cannot be instrumented: which registers
    are dead past the jump (so free for payloads) is unknowable, and the code it lands in
    may be code that instrumentation moves."""
    branches = FunctionCFG.build(function, isa).unknown_branches()
    if branches:
        raise _fail(insert, f"cannot instrument @{function.sym_name.data}: {branches[0]}; "
                    "the registers free after it and the code it reaches are unknown")


def _resolve(insert: InsertOp, function: FunctionLikeOp, point: InstructionOpBase,
             arg: Attribute, index: int, isa: TargetISA,
             offsets: list[int] | None) -> Attribute:
    """``arg`` as the payload at ``point`` receives it: operands and site facts become
    registers and constants; constants and registers stay as written."""
    if isinstance(arg, OperandArgAttr):
        return _operand_arg(insert, function, point, arg.data, isa)
    if isinstance(arg, SiteArgAttr):
        return _site_arg(insert, function, point, arg.data, index, isa, offsets)
    return arg


def _insert_before(point: InstructionOpBase, payload: Operation) -> None:
    block = point.parent_block()
    assert block is not None
    block.insert_op_before(payload, point)


def _selector(insert: InsertOp) -> str:
    parts = [f"at {insert.at.data}"]
    parts.append(f"kernel {insert.kernel.data}" if insert.kernel is not None
                 else "every kernel")
    if insert.mnemonic is not None:
        parts.append(f"mnemonic {insert.mnemonic.data}")
    if insert.instruction_class is not None:
        parts.append(f"class {insert.instruction_class.data}")
    if insert.first is not None or insert.last is not None:
        first = insert.first.value.data if insert.first is not None else 0
        last = insert.last.value.data if insert.last is not None else "end"
        parts.append(f"instructions {first}..{last}")
    return ", ".join(parts)
