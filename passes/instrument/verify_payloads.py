"""``verify-payloads``: check lowered payloads against the application, trusting nothing.

The lowering pipeline (instruction selection, register allocation, prologue/epilogue)
promises that a payload only uses registers that are dead where it runs, or saves and
restores them. This pass checks the promise independently, on the machine code it produced:

1. the payload is machine code: ``amdgpu_mc`` instructions of the target over physical
   registers, branches within the payload, leaving through ``instr.return``
   (:mod:`.verify_machine_code`);
2. it clobbers nothing that must survive. What must survive before an instrumented
   instruction is what the *application* has live there (its liveness is recomputed over
   the code object, payloads ignored) plus the application registers that later payloads
   at the same point read, minus the registers the payload writes on purpose (its
   ``writes`` list, from ``instr.write_reg``). A symbolic execution of the payload
   (:mod:`.verify_flow`) must find each such register holding its entry content at every
   ``instr.return``. VGPRs are checked per part: the lanes EXEC held at the point, and the
   lanes it had switched off (which the application may still need although a payload
   under the same EXEC never touches them).

Every finding is one line naming the hook, the function and the instrumented instruction
(its index among the function's instructions and its text); the pass fails with all of
them and changes nothing. :func:`verify_payloads` returns them for tests and pipelines.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    ALL_UNITS,
    EXEC_MASK,
    UNIT_COUNT,
    VECTOR_MASK,
    UnknownRegisterError,
    format_units,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.instr.points import format_point, instruction_text
from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS, load_target
from luthier.lowering.progress import over
from luthier.passes.analysis.effects import EffectError, EffectTable
from luthier.passes.analysis.liveness import Liveness, any_lane, instructions
from luthier.passes.instrument.verify_flow import run
from luthier.passes.instrument.verify_machine_code import payload_code
from luthier.passes.instrument.verify_renaming import Summary, renamable, rename, summarize


@dataclass(frozen=True, slots=True)
class Violation:
    """One finding: a payload, where it runs, and what is wrong."""

    hook: str
    function: str
    #: The instrumented instruction's index among the function's instructions, and text.
    index: int
    instruction: str
    message: str

    def __str__(self) -> str:
        where = format_point(self.hook, self.function, self.instruction, self.index)
        return f"verify-payloads: {where}: {self.message}"


@dataclass
class _Point:
    function: str
    index: int
    #: The instruction's text, or the instruction (its text is made only for a finding).
    instruction: str | InstructionOpBase

    def violation(self, payload: PayloadOp, message: str) -> Violation:
        text = self.instruction if isinstance(self.instruction, str) \
            else instruction_text(self.instruction)
        return Violation(payload.hook.string_value(), self.function, self.index, text,
                         message)


def _live_state(liveness: Liveness, op: InstructionOpBase) -> int:
    """What the application has live before ``op``, in both parts (active lanes and
    scalars in the low ``UNIT_COUNT`` bits, switched-off lanes above). ``live_before`` folds
    the parts together, and telling them apart is the point here, so this reads the
    analysis' per-instruction state."""
    function, block, index = liveness._where(op)  # pyright: ignore[reportPrivateUsage]
    return liveness._block_before(function, block)[index]  # pyright: ignore[reportPrivateUsage]


def _both_parts(live: int) -> int:
    """``live`` with every vector unit needed in both parts."""
    units = any_lane(live)
    return units | ((units & VECTOR_MASK) << UNIT_COUNT)


def _writes(payload: PayloadOp) -> tuple[int, list[str]]:
    """The units of the payload's ``writes`` list (both parts of vector units)."""
    attr: Attribute | None = payload.properties.get("writes", payload.attributes.get("writes"))
    if attr is None:
        return 0, []
    if not isinstance(attr, ArrayAttr):
        return 0, ["'writes' is not an array of register names"]
    mask, problems = 0, list[str]()
    for name in cast(ArrayAttr[Attribute], attr).data:
        if not isinstance(name, StringAttr):
            problems.append(f"'writes' holds {name}, not a register name")
            continue
        try:
            mask |= units_of(name.data)
        except UnknownRegisterError as error:
            problems.append(f"'writes': {error}")
    return mask | ((mask & VECTOR_MASK) << UNIT_COUNT), problems


def _describe(mask: int) -> tuple[str, str]:
    """(active or scalar units, switched-off units) of a two-part mask, as text."""
    return format_units(mask & ALL_UNITS), format_units(mask >> UNIT_COUNT)


def _clobber_messages(bad: int, app: int, later: list[tuple[str, int]]) -> list[str]:
    if not bad:
        return []
    messages: list[str] = []
    active, inactive = _describe(bad & app)
    if active:
        messages.append(f"writes {active}, live there")
    if inactive:
        messages.append(f"writes {inactive} in lanes EXEC has switched off, live there")
    rest = bad & ~app
    for hook, exposed in later:
        mine = rest & _both_parts(exposed)
        if mine:
            messages.append(f"writes {format_units(any_lane(mine))}, read by @{hook} after it")
            rest &= ~mine
    if rest:  # cannot happen: need is app | the later exposures
        messages.append(f"writes {format_units(any_lane(rest))}, needed after it")
    return messages


@dataclass(frozen=True, slots=True)
class _Execution:
    """A payload body's machine-code problems and what its symbolic execution found
    (``summary`` is None when the body is not machine code or the execution failed with
    ``error``)."""

    is_machine_code: bool
    problems: list[str]
    summary: Summary | None
    error: str | None


@dataclass
class BodyCache:
    """Payloads known to have equal bodies (``keys``: payload -> a key its equals share,
    given by whoever copied the bodies) and the executions found so far per key. The
    point-specific check still runs for every payload; only the symbolic execution of a
    body already seen is reused."""

    keys: dict[PayloadOp, Hashable] = field(default_factory=dict[PayloadOp, Hashable])
    #: The application's liveness per code object, when the caller has it already (it
    #: does not depend on the payloads).
    liveness: dict[CodeObjectOp, Liveness] = field(
        default_factory=dict[CodeObjectOp, Liveness])
    executions: dict[Hashable, _Execution] = field(default_factory=dict[Hashable, _Execution])
    #: Per class of bodies equal up to their general-purpose registers
    #: (:mod:`.verify_renaming`): the execution of the first body seen and its units.
    classes: dict[Hashable, tuple[_Execution, tuple[int, ...]]] = field(
        default_factory=dict[Hashable, tuple[_Execution, tuple[int, ...]]])


class _PointChecker:
    """Checks the payloads in front of one instrumented instruction, last first: what a
    later payload reads is what the earlier ones must leave alone."""

    def __init__(self, liveness: Liveness, effects: EffectTable, point: _Point,
                 op: InstructionOpBase, bodies: BodyCache) -> None:
        self.effects = effects
        self.point = point
        self.app = _live_state(liveness, op)
        self.isa = effects.isa
        self.bodies = bodies

    def _execute(self, payload: PayloadOp) -> _Execution:
        """The payload's symbolic execution, shared by payloads of the same body, and
        renamed from a body of the same class (:mod:`.verify_renaming`)."""
        key = self.bodies.keys.get(payload)
        if key is not None and (known := self.bodies.executions.get(key)) is not None:
            return known
        packed = _packed_code(payload)
        kind = None if packed is None else renamable(packed, self.effects)
        class_key = None if kind is None else (self.effects, kind.signature)
        leader = None if class_key is None else self.bodies.classes.get(class_key)
        if leader is not None and kind is not None:
            first, units = leader
            assert first.summary is not None
            execution = _Execution(first.is_machine_code, first.problems,
                                   rename(first.summary, units, kind.units), None)
        else:
            execution = self._run(payload)
            if class_key is not None and kind is not None and execution.summary is not None:
                self.bodies.classes[class_key] = (execution, kind.units)
        if key is not None:
            self.bodies.executions[key] = execution
        return execution

    def _run(self, payload: PayloadOp) -> _Execution:
        code, problems = payload_code(payload, self.isa)
        summary: Summary | None = None
        error: str | None = None
        if code is not None:
            try:
                summary = summarize(run(code, self.effects))
            except EffectError as failure:
                error = str(failure)
        return _Execution(code is not None, problems, summary, error)

    def check(self, payloads: list[PayloadOp]) -> list[Violation]:
        found: list[list[Violation]] = []
        later: list[tuple[str, int]] = []
        later_all = 0
        exec_written = False
        for payload in reversed(payloads):
            mine: list[Violation] = []
            writes, problems = _writes(payload)
            exec_written |= bool(writes & EXEC_MASK)
            execution = self._execute(payload)
            problems += execution.problems
            mine += [self.point.violation(payload, problem) for problem in problems]
            if not execution.is_machine_code:
                found.append(mine)
                later.insert(0, (payload.hook.string_value(), 0))
                continue
            app, reads = self.app, later_all
            if exec_written or (app | reads) & EXEC_MASK != EXEC_MASK:
                # EXEC changes before the application (or a later payload) runs: which lanes
                # will be switched off then is not known, so both parts must survive.
                app, reads = _both_parts(app), _both_parts(reads)
            need = (app | reads) & ~writes
            summary = execution.summary
            if summary is None:
                mine.append(self.point.violation(payload, execution.error or ""))
                found.append(mine)
                continue
            if not summary.reaches_exit:
                mine.append(self.point.violation(payload, "never reaches instr.return"))
            bad = 0
            exposed = summary.exposed
            checked = need | writes
            for changed in summary.changed:
                # Only the slots the payload changed can differ from their entry content:
                # the check is linear in the payload, not in what is live at the point.
                for slot, origin in changed:
                    if checked >> slot & 1:
                        bad |= (1 << slot) & need
                        exposed |= origin
            mine += [self.point.violation(payload, message)
                     for message in _clobber_messages(bad, app, later)]
            found.append(mine)
            later.insert(0, (payload.hook.string_value(), exposed))
            later_all |= exposed
        return [violation for group in reversed(found) for violation in group]


def _packed_code(payload: PayloadOp) -> PackedCode | None:
    """The code of a body that is one packed op and its ``instr.return``, else None."""
    block = payload.body.first_block
    if block is None or block.next_block is not None:
        return None
    first = block.first_op
    if type(first) is not PackedCodeOp or first.next_op is not block.last_op \
            or type(block.last_op) is not ReturnOp:
        return None
    return first.code.data


def _check_function(function: FunctionLikeOp, liveness: Liveness,
                    bodies: BodyCache) -> list[Violation]:
    name = function.sym_name.data
    index_of = {id(op): index for index, op in enumerate(instructions(function))}
    violations: list[Violation] = []
    for block in function.body.blocks:
        pending: list[PayloadOp] = []
        for op in block_ops(block):
            if isinstance(op, PayloadOp):
                pending.append(op)
                continue
            if not pending:
                continue
            if isinstance(op, InstructionOpBase):
                point = _Point(name, index_of[id(op)], op)
                violations += _PointChecker(liveness, liveness.effects, point,
                                            op, bodies).check(pending)
            else:
                point = _Point(name, -1, op.name)
                violations += [point.violation(payload, "not before an instruction")
                               for payload in pending]
            pending = []
        violations += [_Point(name, -1, "end of block").violation(
            payload, "not before an instruction") for payload in pending]
    return violations


def verify_payloads(target: ModuleOp | CodeObjectOp,
                    bodies: BodyCache | None = None) -> list[Violation]:
    """Every violation of the payloads in ``target`` (a module or one code object);
    ``bodies`` shares the execution of equal bodies between points."""
    bodies = BodyCache() if bodies is None else bodies
    code_objects = [target] if isinstance(target, CodeObjectOp) else \
        [op for op in target.ops if isinstance(op, CodeObjectOp)]
    violations: list[Violation] = []
    for code_object in code_objects:
        if code_object.processor not in SUPPORTED_TARGETS:
            continue
        load_target(*code_object.target_key)
        liveness = bodies.liveness.get(code_object) or Liveness(code_object)
        functions = [op for op in code_object.body.ops if isinstance(op, FunctionLikeOp)]
        for function in over("verify-payloads", functions, "function"):
            violations += _check_function(function, liveness, bodies)
    return violations


@dataclass(frozen=True)
class VerifyPayloadsPass(ModulePass):
    """Fail, with one line per finding, if a payload is not machine code or clobbers a
    register the application or a later payload needs; change nothing."""

    name = "verify-payloads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_payloads(op)


def check_payloads(module: ModuleOp, bodies: BodyCache | None = None) -> None:
    """Raise, with one line per finding, unless every payload of ``module`` is sound."""
    try:
        violations = verify_payloads(module, bodies)
    except EffectError as error:
        raise PassFailedException(f"verify-payloads: {error}") from None
    if violations:
        raise PassFailedException("; ".join(str(violation) for violation in violations))
