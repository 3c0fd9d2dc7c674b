"""Where a kernel keeps the entry state its payloads read: the names ``place-sva`` records.

A home is a register (``"v9"``, ``"a0"``) or, when no vector register is free in the whole
kernel, a slot of the instrumentation stack (``"stack:48"``: per-lane scratch memory at
byte 48 of each lane's private segment). The stack homes take the first
:data:`HOME_AREA_BYTES` above the application's private segment (the SVA at +0, the
work-item ids at +4); payload spill slots start above them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionLikeOp

#: The kernel attributes naming the homes, and the entry state they keep.
SVA_ATTR = "instr.sva"
WORKITEM_HOME_ATTR = "instr.workitem_home"
ENTRY_STATE_ATTR = "instr.entry_state"
#: A home in the instrumentation stack: this prefix and the slot's byte offset.
STACK_HOME_PREFIX = "stack:"
#: Bytes the stack homes reserve above the application's private segment (16: the
#: stack's alignment).
HOME_AREA_BYTES = 16


def home(function: FunctionLikeOp, attribute: str) -> str | None:
    attr = function.attributes.get(attribute)
    return attr.data if isinstance(attr, StringAttr) else None


def stack_slot(name: str) -> int | None:
    """The byte offset of a stack home (``"stack:48"`` -> 48); None for a register."""
    if name.startswith(STACK_HOME_PREFIX):
        return int(name[len(STACK_HOME_PREFIX):])
    return None


def has_homes(function: FunctionLikeOp) -> bool:
    return any(home(function, attribute) is not None
               for attribute in (SVA_ATTR, WORKITEM_HOME_ATTR))


def has_stack_homes(function: FunctionLikeOp) -> bool:
    return any(name is not None and stack_slot(name) is not None
               for name in (home(function, SVA_ATTR), home(function, WORKITEM_HOME_ATTR)))
