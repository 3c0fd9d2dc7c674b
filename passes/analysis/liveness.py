"""Register liveness at every instruction of a code object, EXEC-aware and inter-procedural.

A register unit is *live* before an instruction if some lane may read its current value
later. "Dead" is the promise instrumentation needs: writing the register there, in any lane
and under any EXEC, cannot change what the application computes.

Lanes. A VALU write changes only the lanes EXEC holds; lanes a divergent branch switched off
keep their old value and read it again after EXEC is restored. So each point carries two
unit sets: A, needed by the currently active lanes, and I, needed by switched-off lanes
(vector registers only). Backwards over an instruction:

* a write of EXEC may move lanes between the two sides: A and I both become A | I;
* scalar writes and full vector writes end A (the active lanes are all written), never I;
  partial writes (:mod:`.effects`) end nothing;
* reads add to A;
* where EXEC is known to hold every lane the function started with (:mod:`.exec_state`),
  no lane is switched off, so I is empty.

A kernel starts with a full EXEC; a device function does not (its caller may have lanes
off). ``live_before`` answers with A | I. Both sets are kept in one int: A in the low
``UNIT_COUNT`` bits, I above them.

Across functions:

* a call with known callees (``s_swappc_b64``) reads what its callees have live at entry and
  writes the return address; a callee's returns see the union of what is live after all its
  call sites, iterated to a fixpoint over the call graph (recursion included);
* a call whose target is unknown reads every register the calling convention passes
  arguments and implicit inputs in (``s[0:29]``, ``s32``, ``s33``, ``v[0:31]``, EXEC,
  ``flat_scratch``, ``m0``, MODE) and is reported in ``warnings``;
* a function whose address escapes (a data relocation names it, or any call in the object has
  an unknown target, or nothing calls it) may return anywhere: everything is live at its
  returns;
* an indirect branch (``s_setpc_b64`` that is not a return) has unknown successors:
  everything is live before it, with a warning.

Kernels end in ``s_endpgm`` with nothing live.

Wave size. The ISA is the code object's (processor and wave size, ``target_key``): in wave32
EXEC and VCC are ``exec_lo`` and ``vcc_lo`` (:mod:`.effects`), the EXEC patterns are the
``_b32`` ones (:mod:`.exec_state`), and ``exec_hi``/``vcc_hi`` are never live unless an
instruction names them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import cast

from xdsl.ir import Block

from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops, region_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    branch_label,
    is_instruction_class,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    ALL_UNITS,
    SGPR_MASK,
    UNIT_COUNT,
    VECTOR_MASK,
    file_range,
    mask_of,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    FunctionOp,
    GlobalOp,
    KernelOp,
    LabelOp,
)
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.lowering.progress import over
from luthier.passes.analysis import exec_state
from luthier.passes.analysis.cfg import ExitKind, FunctionCFG, block_name
from luthier.passes.analysis.effects import Effect, EffectError, EffectTable

#: What a call to an unknown function may read: the AMDGPU calling convention's argument and
#: implicit-input registers (LLVM's CC_AMDGPU_Func and fixed-ABI inputs), plus the state
#: (the wave's EXEC: :func:`unknown_callee_reads`).
UNKNOWN_CALLEE_READS = (
    file_range("s", 0, 30) | units_of("s32") | units_of("s33") | file_range("v", 0, 32)
    | mask_of(("exec", "flat_scratch", "m0", "mode"))
)


def unknown_callee_reads(effects: EffectTable) -> int:
    """:data:`UNKNOWN_CALLEE_READS` in the wave of ``effects``: ``exec_lo`` alone in
    wave32."""
    return UNKNOWN_CALLEE_READS & ~units_of("exec") | effects.exec_units

#: A call's targets: callee symbol names, or None when they are not known.
CallResolver = Callable[[InstructionOpBase], frozenset[str] | None]


@dataclass
class _Block:
    block: Block
    instructions: list[InstructionOpBase]
    successors: list[int]
    #: ``"endpgm"``, ``"return"``, ``"indirect"``, ``"jump"`` or ``""`` (falls or
    #: branches on).
    exit_kind: str = ""
    #: For a ``"jump"``: the label in another function's code it goes to.
    label: str | None = None
    live_in: int = 0
    live_out: int = 0
    #: The effect of each instruction (looked up once).
    effects: list[Effect] = field(default_factory=list[Effect])
    #: For a block without calls, EXEC writes or an unknown exit, its whole transfer as
    #: ``live_in = live_out & keep | gen`` (see :func:`_summary`); None otherwise.
    summary: tuple[int, int] | None = None


@dataclass
class FunctionLiveness:
    """Liveness of one function: per block, and per instruction on demand."""

    function: FunctionLikeOp
    blocks: list[_Block]
    exec_full: dict[int, list[bool]]
    #: Units live when the function returns (from its callers).
    return_live: int = 0
    live_in: int = 0
    #: Per block, the live-before mask of each instruction (filled lazily).
    _before: dict[int, list[int]] = field(default_factory=dict[int, list[int]])


class Liveness:
    """EXEC-aware, inter-procedural register liveness of a whole code object."""

    def __init__(self, code_object: CodeObjectOp, resolve: CallResolver | None = None) -> None:
        self.code_object = code_object
        isa = load_target(*code_object.target_key)
        self.effects = EffectTable.shared(isa)
        self._unknown_reads = unknown_callee_reads(self.effects)
        self.cfgs = {op.sym_name.data: FunctionCFG.build(op, isa)
                     for op in over("liveness", [op for op in code_object.body.ops
                                                  if isinstance(op, FunctionLikeOp)], "function")}
        self.resolve = resolve if resolve is not None else _resolver(self.cfgs.values())
        self.warnings: list[str] = []
        self.functions: dict[str, FunctionLiveness] = {}
        self._position: dict[int, tuple[FunctionLiveness, int, int]] = {}
        self._calls: dict[str, list[tuple[int, int, frozenset[str] | None]]] = {}
        #: Label -> (function, block, instruction it comes before) for branches that enter
        #: a function's code from another (hand-written code; none in compiled code).
        self._labels: dict[str, tuple[str, int, int]] = {}
        self._solve()

    # -- queries --------------------------------------------------------------------------

    def live_before(self, op: InstructionOpBase) -> int:
        """Units some lane may still read, just before ``op`` runs."""
        function, block, index = self._where(op)
        return any_lane(self._block_before(function, block)[index])

    def inactive_before(self, op: InstructionOpBase) -> int:
        """Vector units that lanes EXEC has switched off may still read, before ``op``
        (a subset of :meth:`live_before`; empty where EXEC holds every lane)."""
        function, block, index = self._where(op)
        return self._block_before(function, block)[index] >> UNIT_COUNT

    def live_after(self, op: InstructionOpBase) -> int:
        function, block, index = self._where(op)
        return any_lane(self._live_after_position(function, block, index))

    def live_in(self, block: Block) -> int:
        for function in self.functions.values():
            for info in function.blocks:
                if info.block is block:
                    return any_lane(info.live_in)
        raise KeyError("block is not in an analysed function")

    def function(self, name: str) -> FunctionLiveness:
        return self.functions[name]

    def _where(self, op: InstructionOpBase) -> tuple[FunctionLiveness, int, int]:
        found = self._position.get(id(op))
        if found is None:
            raise KeyError(f"{op.mnemonic} is not in an analysed function")
        return found

    def _block_before(self, function: FunctionLiveness, index: int) -> list[int]:
        cached = function._before.get(index)  # pyright: ignore[reportPrivateUsage]
        if cached is not None:
            return cached
        info = function.blocks[index]
        full = function.exec_full[index]
        live = info.live_out
        befores = [0] * len(info.instructions)
        for position in range(len(info.instructions) - 1, -1, -1):
            live = self._transfer(function, info, position, full[position], live)
            befores[position] = live
        function._before[index] = befores  # pyright: ignore[reportPrivateUsage]
        return befores

    # -- the analysis ---------------------------------------------------------------------

    def _solve(self) -> None:
        functions = [op for op in self.code_object.body.ops if isinstance(op, FunctionLikeOp)]
        for function in functions:
            name = function.sym_name.data
            try:
                self.functions[name] = self._build(function, self.cfgs[name])
            except EffectError as error:
                raise EffectError(f"@{name}: {error}") from None
        escaping = self._escaping(functions)
        #: Live after any call with an unknown target: where an escaping function returns.
        unknown_after = 0
        callers: dict[str, set[str]] = {name: set() for name in self.functions}
        for name, calls in self._calls.items():
            for _, _, targets in calls:
                for target in targets or ():
                    if target in callers:
                        callers[target].add(name)
        # A function that jumps into another's code reads what is live at its labels.
        jumpers: dict[str, set[str]] = {name: set() for name in self.functions}
        for name, function in self.functions.items():
            for info in function.blocks:
                where = self._labels.get(info.label) if info.label is not None else None
                if where is not None and where[0] in jumpers:
                    jumpers[where[0]].add(name)
        at_labels: dict[str, list[int]] = {}
        work = list(self.functions)
        queued = set(work)

        def enqueue(name: str) -> None:
            if name not in queued:
                work.append(name)
                queued.add(name)

        while work:
            name = work.pop()
            queued.discard(name)
            function = self.functions[name]
            before = function.live_in
            self._solve_function(function)
            if function.live_in != before:
                for caller in callers[name]:
                    enqueue(caller)
            if jumpers[name]:
                now = [self._live_at_label(label) for label, where in self._labels.items()
                       if where[0] == name]
                if at_labels.get(name) != now:
                    at_labels[name] = now
                    for jumper in jumpers[name]:
                        enqueue(jumper)
            for block, position, targets in self._calls.get(name, ()):
                after = self._live_after_position(function, block, position)
                if targets is None:
                    if unknown_after | after != unknown_after:
                        unknown_after |= after
                        for target in escaping:
                            self.functions[target].return_live |= after
                            enqueue(target)
                    continue
                for target in targets:
                    callee = self.functions.get(target)
                    if callee is None or callee.return_live | after == callee.return_live:
                        continue
                    callee.return_live |= after
                    enqueue(target)

    def _escaping(self, functions: list[FunctionLikeOp]) -> set[str]:
        """Device functions an unknown call may reach: their address is stored in data (a
        relocation in a variable names them) or computed in code for something other than
        the calls we resolved (more symbol references than two per resolved call: the
        ``@lo``/``@hi`` pair of each), or nothing calls them. A code object is closed (no
        other code object calls into it), so their returns see what is live after the
        unknown calls of this object."""
        names = {f.sym_name.data for f in functions if isinstance(f, FunctionOp)}
        escaping: set[str] = set()
        if not names:
            return escaping
        for op in self.code_object.body.ops:
            if isinstance(op, GlobalOp) and op.relocations is not None:
                escaping.update(r.data[2] for r in op.relocations.data if r.data[2] in names)
        calls: dict[str, int] = dict.fromkeys(names, 0)
        for sites in self._calls.values():
            for _, _, targets in sites:
                for target in targets or ():
                    if target in calls:
                        calls[target] += 1
        references: dict[str, int] = dict.fromkeys(names, 0)
        for function in functions:
            for op in instructions(function):
                for attr in op.mc_operands.data:
                    if isinstance(attr, SymbolOperandAttr):
                        reference = attr.data.reference
                        if reference is not None and reference.symbol in references:
                            references[reference.symbol] += 1
        escaping.update(name for name in names
                        if calls[name] == 0 or references[name] > 2 * calls[name])
        return escaping

    def _build(self, function: FunctionLikeOp, cfg: FunctionCFG) -> FunctionLiveness:
        """Blocks, edges and exits from the function's CFG (:mod:`.cfg`); the calls and
        their targets from ``resolve``."""
        name = function.sym_name.data
        infos: list[_Block] = []
        calls: list[tuple[int, int, frozenset[str] | None]] = []
        for block_index, block in enumerate(cfg.blocks):
            instructions = [cast(InstructionOpBase, op) for op in block_ops(block)
                            if is_instruction_class(type(op))]
            for position, op in enumerate(instructions):
                if op.KIND != "call":
                    continue
                targets = self.resolve(op)
                if targets is None:
                    self.warnings.append(
                        f"@{name} {block_name(block_index)}: {op.mnemonic} calls an unknown "
                        "target: assuming it reads every argument register")
                calls.append((block_index, position, targets))
            exit_kind = _EXIT_KINDS.get(cfg.exits.get(block_index), "")
            label = None
            if exit_kind == "jump":
                last = block.last_op
                assert isinstance(last, InstructionOpBase)
                found = branch_label(last)
                assert found is not None
                label = found.data
            if block_index in cfg.foreign_entries:
                self._note_labels(name, block_index, block)
            if exit_kind == "indirect":
                self.warnings.append(
                    f"@{name} {block_name(block_index)}: leaves the function for code we do "
                    f"not follow ({cfg.exits[block_index]}): everything is live before it")
            effects = [self.effects.of(op) for op in instructions]
            infos.append(_Block(block, instructions, list(cfg.successors[block_index]),
                                exit_kind, label, effects=effects))
        self._calls[name] = calls
        result = FunctionLiveness(function, infos, self._exec_states(function, infos, cfg))
        for block_index, info in enumerate(infos):
            if info.exit_kind != "indirect" and not any(
                    effect.writes_exec for effect in info.effects) and not any(
                    op.KIND == "call" for op in info.instructions):
                info.summary = _summary(info.effects, result.exec_full[block_index])
            for position, op in enumerate(info.instructions):
                self._position[id(op)] = (result, block_index, position)
        return result

    def _note_labels(self, function: str, index: int, block: Block) -> None:
        """Where each label of ``block`` lies: before its ``position``-th instruction."""
        position = 0
        for op in block.ops:
            if isinstance(op, InstructionOpBase):
                position += 1
            elif isinstance(op, LabelOp):
                self._labels[op.label.data] = (function, index, position)

    def _live_at_label(self, label: str | None) -> int:
        """What is live where a branch into another function's code lands (everything,
        for a label no function defines: the verifier lets IR name one)."""
        where = self._labels.get(label) if label is not None else None
        if where is None:
            return _EVERYTHING
        name, block, position = where
        function = self.functions.get(name)
        if function is None:
            return _EVERYTHING
        before = self._block_before(function, block)
        return before[position] if position < len(before) else function.blocks[block].live_out

    def _exec_states(self, function: FunctionLikeOp, blocks: list[_Block],
                     cfg: FunctionCFG) -> dict[int, list[bool]]:
        """Per block, whether EXEC is full before each instruction (forward fixpoint).

        Only instructions that write EXEC or an SGPR can change the state (an SGPR write
        may overwrite a saved copy of EXEC); the others are skipped."""
        entry = exec_state.FULL if isinstance(function, KernelOp) else exec_state.PARTIAL
        relevant = [[position for position, effect in enumerate(info.effects)
                     if effect.writes_exec or (effect.scalar_defs | effect.partial_defs)
                     & SGPR_MASK] for info in blocks]

        def run(index: int, state: exec_state.ExecState) -> exec_state.ExecState:
            info = blocks[index]
            for position in relevant[index]:
                state = exec_state.step(state, info.instructions[position],
                                        info.effects[position], self.effects)
            return state

        states: list[exec_state.ExecState | None] = [None] * len(blocks)
        outs: list[exec_state.ExecState | None] = [None] * len(blocks)
        order = list(cfg.reverse_post_order) + list(cfg.unreachable)
        pending = set(order)
        while pending:  # sweeps in reverse post-order over the blocks still to visit
            for index in order:
                if index in pending:
                    pending.discard(index)
                    self._exec_visit(index, entry, blocks, cfg, states, outs, run, pending)
        result: dict[int, list[bool]] = {}
        for index, info in enumerate(blocks):
            state = states[index] or exec_state.PARTIAL
            fulls = [False] * len(info.instructions)
            position = 0
            for change in relevant[index]:
                if state.full:
                    fulls[position:change + 1] = [True] * (change + 1 - position)
                position = change + 1
                state = exec_state.step(state, info.instructions[change], info.effects[change],
                                        self.effects)
            if state.full:
                fulls[position:] = [True] * (len(fulls) - position)
            result[index] = fulls
        return result

    @staticmethod
    def _exec_visit(index: int, entry: exec_state.ExecState, blocks: list[_Block],
                    cfg: FunctionCFG, states: list[exec_state.ExecState | None],
                    outs: list[exec_state.ExecState | None],
                    run: Callable[[int, exec_state.ExecState], exec_state.ExecState],
                    pending: set[int]) -> None:
        state = entry if index == 0 else None
        if index in cfg.foreign_entries:  # entered from another function, in any state
            state = exec_state.PARTIAL if state is None else state.join(exec_state.PARTIAL)
        for predecessor in cfg.predecessors[index]:
            other = outs[predecessor]
            if other is not None:
                state = other if state is None else state.join(other)
        if state is None:
            state = exec_state.PARTIAL  # unreachable: assume the worst
        states[index] = state
        out = run(index, state)
        if outs[index] != out:
            outs[index] = out
            pending.update(blocks[index].successors)

    def _transfer(self, function: FunctionLiveness, info: _Block, position: int,
                  exec_full: bool, live: int) -> int:
        """Live state before instruction ``position`` from the state after it (see
        :func:`_lanes`)."""
        op = info.instructions[position]
        effect = info.effects[position]
        if position == len(info.instructions) - 1 and info.exit_kind == "indirect":
            return _EVERYTHING
        if effect.writes_exec:
            live = _across_exec_write(op, self.effects, live)
        live &= ~(effect.scalar_defs | effect.vector_defs)
        live |= effect.uses
        if op.KIND == "call":
            targets = self.resolve(op)
            if targets is None:
                live |= self._unknown_reads
            for target in targets or ():
                callee = self.functions.get(target)
                # The callee's reads of the return address are the call's own write.
                live |= _reshuffled(callee.live_in) & ~effect.scalar_defs \
                    if callee is not None else self._unknown_reads
        return live & ALL_UNITS if exec_full else live

    def _exit_live(self, function: FunctionLiveness, info: _Block) -> int:
        if info.exit_kind == "return":
            return function.return_live
        if info.exit_kind == "indirect":
            return _EVERYTHING
        if info.exit_kind == "jump":
            return self._live_at_label(info.label)
        return 0

    def _solve_function(self, function: FunctionLiveness) -> None:
        """Backward fixpoint over the blocks: a worklist seeded with every block, in
        post-order of the CFG (successors first), re-queuing the predecessors of a block
        whose live-in grew."""
        function._before.clear()  # pyright: ignore[reportPrivateUsage]
        blocks = function.blocks
        predecessors: list[list[int]] = [[] for _ in blocks]
        for index, info in enumerate(blocks):
            for successor in info.successors:
                predecessors[successor].append(index)
        work = list(range(len(blocks)))  # popped from the end: last block first
        queued = [True] * len(blocks)
        while work:
            index = work.pop()
            queued[index] = False
            info = blocks[index]
            live = self._exit_live(function, info)
            for successor in info.successors:
                live |= blocks[successor].live_in
            info.live_out = live
            if info.summary is not None:
                keep, gen = info.summary
                live = live & keep | gen
            else:
                full = function.exec_full[index]
                for position in range(len(info.instructions) - 1, -1, -1):
                    live = self._transfer(function, info, position, full[position], live)
            if live != info.live_in:
                info.live_in = live
                for predecessor in predecessors[index]:
                    if not queued[predecessor]:
                        queued[predecessor] = True
                        work.append(predecessor)
        function.live_in = blocks[0].live_in if blocks else 0

    def _live_after_position(self, function: FunctionLiveness, block: int, position: int) -> int:
        before = self._block_before(function, block)
        return before[position + 1] if position + 1 < len(before) \
            else function.blocks[block].live_out


#: Every bit of a live state: active units and inactive vector units.
_STATE_BITS = (1 << (2 * UNIT_COUNT)) - 1


def _summary(effects: list[Effect], exec_full: list[bool]) -> tuple[int, int]:
    """A block's transfer as ``(keep, gen)``: ``live_in = live_out & keep | gen``.

    Without EXEC writes or calls each instruction maps ``x`` to
    ``(x & ~defs | uses) & mask`` (``mask`` drops the inactive part where EXEC is full),
    and functions of the form ``x & k | g`` compose into one of the same form."""
    keep, gen = _STATE_BITS, 0
    for position in range(len(effects) - 1, -1, -1):
        effect = effects[position]
        mask = ALL_UNITS if exec_full[position] else _STATE_BITS
        ends = ~(effect.scalar_defs | effect.vector_defs)
        keep &= ends & mask
        gen = (gen & ends | effect.uses) & mask
    return keep, gen


def any_lane(live: int) -> int:
    """Units live in some lane: the active part or the inactive part."""
    return (live | (live >> UNIT_COUNT)) & ALL_UNITS


def _reshuffled(live: int) -> int:
    """Across a write of EXEC, lanes may change sides: whatever some lane needs after it,
    both the active and the switched-off lanes may need before it."""
    units = any_lane(live)
    return units | ((units & VECTOR_MASK) << UNIT_COUNT)


def _exec_write_kind(op: InstructionOpBase, effects: EffectTable) -> str:
    """``"remove"`` when the new EXEC is a subset of the old (``s_and_saveexec_b64``,
    ``s_andn2_b64 exec, exec, x``, ``v_cmpx_*``), ``"add"`` when it is a superset
    (``s_or_b64 exec, exec, x``, ``s_or_saveexec_b64``), else ``""``; the ``_b32`` forms
    on ``exec_lo`` in wave32 (:func:`~.exec_state.mask_operation`)."""
    if op.mnemonic.startswith("v_cmpx"):
        return "remove"
    operation = exec_state.mask_operation(op, effects)
    if operation in _SUBSET_SAVEEXEC:
        return "remove"
    if operation in _SUPERSET_SAVEEXEC:
        return "add"
    exec_register = effects.exec_register
    names = [attr.data if isinstance(attr, PhysRegAttr) else None
             for attr in op.mc_operands.data]
    if len(names) < 3 or names[0] != exec_register or exec_register not in names[1:3]:
        return ""
    if operation == "s_and" or (operation == "s_andn2" and names[1] == exec_register):
        return "remove"
    if operation == "s_or":
        return "add"
    return ""


#: Width-free names (:func:`~.exec_state.mask_operation`) of the writes that only remove
#: lanes, and of those that only add lanes.
_SUBSET_SAVEEXEC = frozenset({"s_and_saveexec", "s_andn1_saveexec", "s_andn1_wrexec"})
_SUPERSET_SAVEEXEC = frozenset({"s_or_saveexec", "s_orn1_saveexec"})


def _across_exec_write(op: InstructionOpBase, effects: EffectTable, live: int) -> int:
    """The live state before a write of EXEC, from the state after it.

    When the write only removes lanes, the lanes active before it are the active ones after
    plus the removed ones (now among the inactive), and the lanes inactive before stay
    inactive: A before is A | I, I stays. When it only adds lanes, the lanes active before
    stay active, and the inactive ones before may be the added ones: A stays, I before is
    A | I. Otherwise lanes may move either way (:func:`_reshuffled`).
    """
    kind = _exec_write_kind(op, effects)
    union = any_lane(live)
    if kind == "remove":
        return union | (live & ~ALL_UNITS)
    if kind == "add":
        return (live & ALL_UNITS) | ((union & VECTOR_MASK) << UNIT_COUNT)
    return _reshuffled(live)


#: How liveness treats each way of leaving a function: nothing is live after ``s_endpgm``,
#: the callers' sets after a return, and everything where control goes where we do not
#: follow it (a tail call's callee may return to our caller; an unknown terminator).
_EXIT_KINDS: dict[ExitKind | None, str] = {
    ExitKind.ENDPGM: "endpgm",
    ExitKind.RETURN: "return",
    ExitKind.TAIL_CALL: "indirect",
    ExitKind.INDIRECT_BRANCH: "indirect",
    ExitKind.JUMP: "jump",
    ExitKind.UNKNOWN: "indirect",
}

#: Every unit live, in active and inactive lanes.
_EVERYTHING = ALL_UNITS | (VECTOR_MASK << UNIT_COUNT)


def _resolver(cfgs: Iterable[FunctionCFG]) -> CallResolver:
    """Callees of every call, from the call-site analysis (:mod:`.calls`): a set of one
    symbol, or None where the target is not known."""
    targets: dict[int, frozenset[str] | None] = {}
    for cfg in cfgs:
        for site in cfg.call_sites:
            targets[id(site.op)] = (frozenset((site.callee,)) if site.callee is not None
                                    else None)

    def resolve(op: InstructionOpBase) -> frozenset[str] | None:
        return targets.get(id(op))

    return resolve


def analyze(code_object: CodeObjectOp, resolve: CallResolver | None = None) -> Liveness:
    """Liveness of every function of ``code_object`` (calls resolved by the call-site
    analysis unless ``resolve`` is given)."""
    return Liveness(code_object, resolve)


def instructions(function: FunctionLikeOp) -> Iterable[InstructionOpBase]:
    """The instructions of ``function`` in layout order."""
    for op in region_ops(function.body):
        if is_instruction_class(type(op)):
            yield cast(InstructionOpBase, op)
