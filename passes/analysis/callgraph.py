"""The call graph of a code object: kernels and device functions, and who calls whom.

Inter-procedural analyses (liveness across calls, register usage per kernel) need three
things from it: the callees of each function with every call site's resolution (see
:mod:`.calls`), an order that visits callees before callers (strongly connected components
grouped, so a recursive cycle is solved as one unit), and, for each kernel, everything its
code can reach. A call whose target is unknown (through a table, a select, a function
pointer argument) could go anywhere: the kernel's reach then says ``reaches_unknown`` rather
than pretend the known part is all, so that liveness assumes the calling convention's
clobbers there.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    GlobalOp,
)
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.passes.analysis.calls import CallSite
from luthier.passes.analysis.cfg import FunctionCFG, isa_of, may_call


@dataclass(frozen=True, slots=True)
class Reach:
    """What the code of one function (a kernel, usually) can execute."""

    #: Functions of the code object reachable through resolved calls, the start included.
    functions: frozenset[str]
    #: Resolved callees that are not functions of this code object (an undefined symbol
    #: in a relocatable object, a variable): their code is not here.
    external: frozenset[str]
    #: Reachable call sites whose target is unknown.
    unknown_calls: tuple[CallSite, ...]

    @property
    def reaches_unknown(self) -> bool:
        """Some reachable call has an unknown target: assume any code runs there."""
        return bool(self.unknown_calls)

    @property
    def complete(self) -> bool:
        """All the code this function can run is in :attr:`functions`."""
        return not self.unknown_calls and not self.external


class CallGraph:
    """Kernels and device functions as nodes, resolved call sites as edges."""

    def __init__(self, code_object: CodeObjectOp, cfgs: dict[str, FunctionCFG]) -> None:
        self.code_object = code_object
        #: Every kernel and device function, in layout order, with its CFG.
        self.cfgs = cfgs
        self.kernels: tuple[str, ...] = tuple(name for name, cfg in cfgs.items()
                                              if cfg.is_kernel)
        self.variables = frozenset(op.sym_name.data for op in code_object.body.ops
                                   if isinstance(op, GlobalOp))
        self._callees: dict[str, tuple[str, ...]] = {}
        callers: dict[str, list[str]] = {name: [] for name in cfgs}
        for name, cfg in cfgs.items():
            callees: list[str] = []
            for site in cfg.call_sites:
                if site.callee is not None and site.callee not in callees:
                    callees.append(site.callee)
            self._callees[name] = tuple(callees)
            for callee in callees:
                if callee in callers and name not in callers[callee]:
                    callers[callee].append(name)
        self._callers = {name: tuple(found) for name, found in callers.items()}
        self.sccs: tuple[tuple[str, ...], ...] = self._strongly_connected()
        self._scc_of = {name: index for index, scc in enumerate(self.sccs) for name in scc}
        #: Problems, one line each, function by function: the CFG's, then the calls'.
        self.warnings: list[str] = []
        for cfg in cfgs.values():
            self.warnings.extend(cfg.warnings)
            for site in cfg.call_sites:
                if site.callee is None and site.op is not cfg.blocks[site.block].last_op:
                    self.warnings.append(f"{cfg.where(site.block)}: {site.op.mnemonic} "
                                         f"{site.target} has an unknown target: {site.reason}")
                elif site.callee is not None and site.callee not in cfgs:
                    what = "a variable" if site.callee in self.variables \
                        else "not a function of this code object"
                    self.warnings.append(f"{cfg.where(site.block)}: {site.op.mnemonic} "
                                         f"calls {site.callee}, {what}")

    @classmethod
    def build(cls, code_object: CodeObjectOp) -> CallGraph:
        """The call graph of every kernel and device function in ``code_object``."""
        isa = isa_of(code_object)
        cfgs: dict[str, FunctionCFG] = {}
        for op in code_object.body.ops:
            if isinstance(op, FunctionLikeOp):
                cfgs[op.sym_name.data] = FunctionCFG.build(op, isa)
        return cls(code_object, cfgs)

    # -- edges ---------------------------------------------------------------------------

    def callees(self, name: str) -> tuple[str, ...]:
        """Resolved callees of ``name`` (functions or external symbols), first call first."""
        return self._callees[name]

    def callers(self, name: str) -> tuple[str, ...]:
        """Functions with a resolved call to ``name``, in layout order."""
        return self._callers[name]

    def call_sites(self, name: str) -> tuple[CallSite, ...]:
        return self.cfgs[name].call_sites

    def unknown_call_sites(self, name: str) -> tuple[CallSite, ...]:
        """Call sites of ``name`` whose target is unknown."""
        return tuple(site for site in self.cfgs[name].call_sites if site.callee is None)

    # -- recursion and order -------------------------------------------------------------

    def _strongly_connected(self) -> tuple[tuple[str, ...], ...]:
        """Tarjan's algorithm, iteratively; it emits a component after every component it
        reaches, which is the bottom-up order."""
        layout = {name: index for index, name in enumerate(self.cfgs)}
        index_of: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        result: list[tuple[str, ...]] = []
        for root in self.cfgs:
            if root in index_of:
                continue
            work: list[tuple[str, Iterator[str]]] = [(root, iter(self._edges(root)))]
            index_of[root] = low[root] = len(index_of)
            stack.append(root)
            on_stack.add(root)
            while work:
                name, pending = work[-1]
                callee = next(pending, None)
                if callee is not None:
                    if callee not in index_of:
                        index_of[callee] = low[callee] = len(index_of)
                        stack.append(callee)
                        on_stack.add(callee)
                        work.append((callee, iter(self._edges(callee))))
                    elif callee in on_stack:
                        low[name] = min(low[name], index_of[callee])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[name])
                if low[name] == index_of[name]:
                    members: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == name:
                            break
                    result.append(tuple(sorted(members, key=layout.__getitem__)))
        return tuple(result)

    def _edges(self, name: str) -> tuple[str, ...]:
        return tuple(callee for callee in self._callees[name] if callee in self.cfgs)

    @property
    def bottom_up(self) -> tuple[tuple[str, ...], ...]:
        """Strongly connected components, callees' before callers'."""
        return self.sccs

    def scc_of(self, name: str) -> tuple[str, ...]:
        return self.sccs[self._scc_of[name]]

    def is_recursive(self, name: str) -> bool:
        """``name`` can call itself, directly or through other functions."""
        return len(self.scc_of(name)) > 1 or name in self._callees[name]

    # -- reach ---------------------------------------------------------------------------

    def reach(self, name: str) -> Reach:
        """Everything the code of ``name`` can execute, ``name`` included."""
        seen = [name]
        found = {name}
        external: set[str] = set()
        unknown: list[CallSite] = []
        for current in seen:
            for site in self.cfgs[current].call_sites:
                callee = site.callee
                if callee is None:
                    unknown.append(site)
                elif callee not in self.cfgs:
                    external.add(callee)
                elif callee not in found:
                    found.add(callee)
                    seen.append(callee)
        return Reach(frozenset(found), frozenset(external), tuple(unknown))


def _may_call_anything(function: FunctionLikeOp) -> bool:
    """Whether an application instruction of ``function`` could be a call site."""
    for block in function.body.blocks:
        for op in block.ops:
            if is_instruction_class(type(op)) and may_call(cast(InstructionOpBase, op)):
                return True
    return False


@contextmanager
def payloads_set_aside(code_object: CodeObjectOp) -> Generator[None]:
    """Inside the block, ``code_object``'s functions hold their application code alone.

    Call resolution follows the application's own address arithmetic (``s_getpc_b64``,
    then the adds of the symbol's PC-relative offset), whose offsets a payload between
    them would change; payloads keep every register the application needs
    (``verify-payloads``), so the calls' targets are those of the application. Analyses
    that ask what the application may call (the stack's base, the register counts a
    kernel's callees need) build their call graph in here. The payloads go back where they
    were, in order, whatever happens inside. Functions without a call site keep theirs:
    there is nothing to resolve (compiled kernels mostly; instrumenting every instruction
    of a library puts tens of thousands of payloads there)."""
    moved: list[tuple[PayloadOp, Block, Operation | None]] = []
    for function in code_object.body.ops:
        if not isinstance(function, FunctionLikeOp) or not _may_call_anything(function):
            continue
        for block in function.body.blocks:
            for op in list(block.ops):
                if type(op) is PayloadOp:  # by class: ``isinstance`` goes through ABCMeta
                    moved.append((op, block, op.next_op))
                    op.detach()
    try:
        yield
    finally:
        for op, block, following in reversed(moved):
            if following is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, following)
