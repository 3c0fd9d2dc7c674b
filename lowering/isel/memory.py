"""``instr.load``/``store``/``atomic`` to global-memory instructions.

A memory operation whose operands are all uniform happens once per wave (unless marked
``per_lane``: SIMT, once per active lane, as HIP code is): loads use the
scalar unit (``s_load_*`` with ``glc``, so a counter other waves update is read from L2,
not a stale scalar cache line); stores and atomics run as one lane of a vector memory
instruction with EXEC set to lane 0 for it (saved and restored around it), which also runs
when the point's EXEC is empty. Per-lane operations use the active lanes: the ``saddr``
form when the address is uniform, a 64-bit VGPR address otherwise.

Stores and atomics whose result is unused are not waited for: the hardware completes
vector memory operations in order, so the application's own ``s_waitcnt`` only waits
longer. A load or a returning atomic waits (``s_waitcnt``) before its result is used.
"""

from __future__ import annotations

from collections.abc import Callable

from luthier.amdgpu_dialects.amdgpu_mc.builder import OFF, Keyword
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.instr.ops import AtomicOp, LoadOp, StoreOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.lowering.isel.selector import Selector
from luthier.lowering.isel.values import SGPR_CLASS, VGPR_CLASS, Value, width_of

#: instr.atomic kinds -> the global_atomic_* operation names.
_ATOMIC_NAMES = {"add": "add", "sub": "sub", "min": "smin", "max": "smax", "umin": "umin",
                 "umax": "umax", "and": "and", "or": "or", "xor": "xor", "swap": "swap"}


def _suffix(width: int, kind: str) -> str:
    if kind == "load":
        return "dwordx2" if width == 64 else "dword"
    return "_x2" if width == 64 else ""


def single_lane(sel: Selector, body: Callable[[], None]) -> None:
    """Run ``body``'s vector instructions once for the wave: EXEC = lane 0 around it."""
    saved = sel.new(sel.lane_mask_class)
    mov = sel.mask_op("s_mov")
    sel.emit(mov, [saved, sel.exec_mask])
    sel.emit(mov, [sel.exec_mask, 1])
    body()
    sel.emit(mov, [sel.exec_mask, saved])


def _address_operands(sel: Selector, address: Value,
                      ) -> tuple[list[VirtRegAttr], Keyword | None]:
    """The address operands of a global instruction (after vdst/vdata) and the ``off``
    keyword when the address is a VGPR pair."""
    if address.uniform:
        offset = sel.new(VGPR_CLASS[32])
        sel.emit("v_mov_b32_e32", [offset, 0])
        return [offset, sel.sreg(address)], None
    return [sel.vreg(address)], OFF


def lower_load(sel: Selector, op: LoadOp) -> None:
    address = sel.value(op.address)
    width = width_of(op.result)
    if address.uniform:
        dest = sel.new(SGPR_CLASS[width])
        sel.emit(f"s_load_{_suffix(width, 'load')}", [dest, sel.sreg(address), 0],
                 flags=[_coherent_scalar_load(sel)])
        sel.add(sel.builder.wait_scalar_loads())
        sel.define(op.result, Value(width, True, reg=dest))
        return
    dest = sel.new(VGPR_CLASS[width])
    sel.emit(f"global_load_{_suffix(width, 'load')}", [dest, sel.vreg(address), OFF])
    sel.add(sel.builder.wait_vector_loads())
    sel.define(op.result, Value(width, False, reg=dest))


def lower_store(sel: Selector, op: StoreOp) -> None:
    address, value = sel.value(op.address), sel.value(op.value)
    width = width_of(op.value)
    mnemonic = f"global_store_{_suffix(width, 'load')}"

    def store() -> None:
        operands, off = _address_operands(sel, address)
        data = sel.vreg(value)
        if off is not None:
            sel.emit(mnemonic, [operands[0], data, off])
        else:
            sel.emit(mnemonic, [operands[0], data, operands[1]])

    if address.uniform and value.uniform and op.per_lane is None:
        single_lane(sel, store)
    else:
        store()


def lower_atomic(sel: Selector, op: AtomicOp) -> None:
    address, value = sel.value(op.address), sel.value(op.value)
    width = width_of(op.value)
    mnemonic = f"global_atomic_{_ATOMIC_NAMES[op.kind.data]}{_suffix(width, 'atomic')}"
    returns = bool(op.result.uses)
    uniform = address.uniform and value.uniform and op.per_lane is None
    old = sel.new(VGPR_CLASS[width]) if returns else None

    def atomic() -> None:
        operands, off = _address_operands(sel, address)
        data = sel.vreg(value)
        dest = [old] if old is not None else []
        sources = [operands[0], data, off] if off is not None \
            else [operands[0], data, operands[1]]
        sel.emit(mnemonic, [*dest, *sources], flags=[_returning(sel)] if returns else [])
        if old is None:
            return
        sel.add(sel.builder.wait_vector_loads())
        if uniform:
            _read_first_lane(sel, op, old, width)

    if uniform:
        single_lane(sel, atomic)
    else:
        atomic()
    if old is not None and not uniform:
        sel.define(op.result, Value(width, False, reg=old))


def _coherent_scalar_load(sel: Selector) -> str:
    """The cache-policy bit that makes a scalar load read what other waves wrote (L2, not
    this unit's scalar cache): GLC, ``scope:SCOPE_DEV`` from GFX12 on."""
    return "scope:SCOPE_DEV" if load_target(sel.processor).subtarget.major >= 12 else "glc"


def _returning(sel: Selector) -> str:
    """The cache-policy bit that makes an atomic return its old value: GLC, named SC0
    from gfx940 on, a temporal hint from GFX12 on."""
    isa = load_target(sel.processor)
    if isa.subtarget.major >= 12:
        return "th:TH_ATOMIC_RETURN"
    return "sc0" if isa.has_feature("FeatureGFX940Insts") else "glc"


def _read_first_lane(sel: Selector, op: AtomicOp, old: VirtRegAttr, width: int) -> None:
    """A once-per-wave atomic's old value, from lane 0 (the only lane that ran it)."""
    dest = sel.new(SGPR_CLASS[width])
    halves = [(dest, old)] if width == 32 else [(dest.part(i), old.part(i)) for i in (0, 1)]
    for scalar, vector in halves:
        sel.emit("v_readfirstlane_b32", [scalar, vector])
    sel.define(op.result, Value(width, True, reg=dest))
