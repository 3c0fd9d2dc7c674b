"""The symbolic execution of one payload: a forward fixpoint over its blocks.

Payload code is usually a DAG (a divergent ``if`` at most), but nothing stops a lowering
from emitting a loop, so the states at block entries are joined and iterated until they no
longer change. Each out-state is also joined with the previous one, which keeps every
sequence of states rising in the lattice of :mod:`.verify_symbolic` (height three per slot,
lane maps only shrink): the loop ends on any CFG.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.passes.analysis.effects import EffectTable
from luthier.passes.instrument.verify_machine_code import Intrinsic, PayloadCode
from luthier.passes.instrument.verify_symbolic import State
from luthier.passes.instrument.verify_transfer import read_origin, step, write_units

#: An intrinsic's reads and writes may touch any lane.
_ANY_LANE = ("some", "some")


@dataclass
class FlowResult:
    """The state at each reachable ``instr.return`` and the entry content the payload reads
    (see :mod:`.verify_symbolic` for *exposed*)."""

    exit_states: list[State]
    exposed: int
    #: Whether some ``instr.return`` is reachable from the entry.
    reaches_exit: bool


def _run_block(state: State, items: list[InstructionOpBase | Intrinsic],
               effects: EffectTable) -> int:
    exposed = 0
    for item in items:
        if isinstance(item, Intrinsic):
            exposed |= read_origin(state, item.uses, _ANY_LANE)
            # Whether an intrinsic writes all of a register is not known: keep the origin.
            write_units(state, item.defs, _ANY_LANE, whole=False)
        else:
            exposed |= step(state, item, effects.of(item))
    return exposed


def run(code: PayloadCode, effects: EffectTable) -> FlowResult:
    """Iterate the payload's blocks from the entry state (every slot its own content)."""
    count = len(code.blocks)
    ins: list[State | None] = [None] * count
    outs: list[State | None] = [None] * count
    ins[0] = State(wave32=effects.isa.wavefront_size == 32)
    work = deque([0])
    queued = {0}
    exposed = 0
    while work:
        index = work.popleft()
        queued.discard(index)
        entry = ins[index]
        assert entry is not None
        state = entry.copy()
        exposed |= _run_block(state, code.ops[index], effects)
        previous = outs[index]
        out = state if previous is None else previous.join(state)
        if previous is not None and out == previous:
            continue
        outs[index] = out
        for successor in code.successors[index]:
            current = ins[successor]
            joined = out if current is None else current.join(out)
            if current is None or joined != current:
                ins[successor] = joined
                if successor not in queued:
                    queued.add(successor)
                    work.append(successor)
    exits = [state for index in code.exits if (state := outs[index]) is not None]
    return FlowResult(exits, exposed, bool(exits))
