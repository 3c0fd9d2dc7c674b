"""Free registers: what instrumentation may write at a point, and for a whole kernel.

The queries the instrumentation passes ask, answered from :mod:`.liveness` and
:mod:`.register_usage`:

* ``dead_before(op)``: units no lane may read again from just before ``op`` (writing one
  there cannot change what the application computes);
* ``free_before(op, "s")``: the dead generic registers of one file, limited to the budget
  of every kernel that may run ``op`` (so using them keeps each kernel's allocation and
  occupancy), lowest first, as the allocator wants them;
* ``never_used(kernel, "v")``: the registers of a file no instruction of the kernel or of
  its callees touches, inside its budget: where state that lives for the whole kernel (the
  State Value Array) can stay.

Only generic registers are handed out by file: ``s0``-``s101`` (``s102``-``s105`` name
FLAT_SCRATCH and XNACK_MASK on GFX9; from GFX10 they are generic, ``s0``-``s105``),
``v0``-``v255``, ``a0``-``a255`` where the target has AGPRs (RDNA has none). Special
registers (SCC, VCC, EXEC, M0; ``exec_hi``/``vcc_hi`` in wave32) are asked for by name with
``is_dead_before``; trap-handler registers (TTMP) are never free.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    ALL_UNITS,
    file_range,
    unit_names,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.passes.analysis.callgraph import CallGraph
from luthier.passes.analysis.liveness import Liveness
from luthier.passes.analysis.register_usage import (
    ADDRESSABLE,
    KernelRegisterUsage,
    RegisterUsage,
    addressable_registers,
)

#: Files whose registers are handed out by number, and how many are addressable.
FILES = ADDRESSABLE


def _file_mask(prefix: str, count: int) -> int:
    if prefix not in FILES:
        raise ValueError(f"unknown register file '{prefix}' (one of s, v, a)")
    return file_range(prefix, 0, count)


class FreeRegisters:
    """Free-register queries over one code object (one liveness and usage computation)."""

    def __init__(self, code_object: CodeObjectOp, liveness: Liveness | None = None) -> None:
        self.code_object = code_object
        self.liveness = liveness if liveness is not None else Liveness(code_object)
        self.graph = CallGraph(code_object, self.liveness.cfgs)
        self.usage = RegisterUsage(code_object, self.graph, self.liveness.effects)
        #: Registers of each file this target has and instructions can name.
        self.files = addressable_registers(code_object.processor)
        self._limits = self._function_limits()

    # -- per point -------------------------------------------------------------------------

    def dead_before(self, op: InstructionOpBase) -> int:
        """Units no lane may read again from just before ``op``."""
        return ~self.liveness.live_before(op) & ALL_UNITS

    def dead_after(self, op: InstructionOpBase) -> int:
        return ~self.liveness.live_after(op) & ALL_UNITS

    def is_dead_before(self, op: InstructionOpBase, register: str) -> bool:
        """Whether every unit of ``register`` (``scc``, ``vcc``, ``s[4:5]``...) is dead."""
        units = units_of(register)
        return self.dead_before(op) & units == units

    def free_before(self, op: InstructionOpBase, prefix: str,
                    within_budget: bool = True) -> list[str]:
        """Dead registers of file ``prefix`` before ``op``, lowest first; by default only
        those inside the budget of every kernel that may run ``op``."""
        return unit_names(self.dead_before(op) & self.allocatable(op, prefix, within_budget))

    def free_after(self, op: InstructionOpBase, prefix: str,
                   within_budget: bool = True) -> list[str]:
        return unit_names(self.dead_after(op) & self.allocatable(op, prefix, within_budget))

    def allocatable(self, op: InstructionOpBase, prefix: str, within_budget: bool = True) -> int:
        """The registers of file ``prefix`` the allocator may consider at ``op``."""
        function = _enclosing_function(op)
        count = self.files.get(prefix, 0)
        if within_budget:
            count = self._limits.get(function, {}).get(prefix, count)
        return _file_mask(prefix, count)

    # -- per kernel ------------------------------------------------------------------------

    def kernel_usage(self, kernel: str) -> KernelRegisterUsage:
        return self.usage.kernel(kernel)

    def never_used(self, kernel: str, prefix: str, within_budget: bool = True) -> list[str]:
        """Registers of file ``prefix`` no instruction the kernel may run touches."""
        usage = self.usage.kernel(kernel)
        count = self.files.get(prefix, 0)
        budget = usage.budget
        if within_budget and budget is not None:
            count = min(count, budget.limit(prefix))
        return unit_names(_file_mask(prefix, count) & ~usage.touched)

    def _function_limits(self) -> dict[str, dict[str, int]]:
        """Per function, the smallest budget of the kernels that may run it: a device
        function is shared, so a register is free in it only if every caller kernel has
        it. Functions no kernel is known to reach get no limit from a budget."""
        limits: dict[str, dict[str, int]] = {}
        for kernel, usage in self.usage.kernels.items():
            budget = usage.budget
            if budget is None:
                continue
            for function in usage.functions or (kernel,):
                current = limits.setdefault(function, dict(self.files))
                for prefix in FILES:
                    current[prefix] = min(current[prefix], budget.limit(prefix))
        return limits


def _enclosing_function(op: InstructionOpBase) -> str:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FunctionLikeOp):
        parent = parent.parent_op()
    if parent is None:
        raise ValueError(f"{op.mnemonic} is not inside a kernel or device function")
    return parent.sym_name.data
