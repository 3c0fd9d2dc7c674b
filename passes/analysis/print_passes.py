"""``-p print-cfg`` and ``-p print-callgraph``: the analyses as text, for lit and for people.

Like MLIR's ``-test-print-dominance`` and ``-test-print-callgraph``, these passes leave the
IR unchanged and write a report to stderr, so a test checks the report with
``2>&1 >/dev/null | filecheck`` and the IR on stdout stays byte-identical. Blocks are named
``^bbN`` by layout index (what the lifted IR prints) and carry their byte offset from the
function's first instruction (``+0x1c``), which is where ``llvm-objdump -d`` shows them
relative to the function symbol. Lines come in layout order, so reports are deterministic.
The format is documented in docs/analyses.md.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    code_objects_in,
)
from luthier.passes.analysis.callgraph import CallGraph
from luthier.passes.analysis.calls import CallSite
from luthier.passes.analysis.cfg import FunctionCFG, block_name, isa_of


def _names(blocks: Iterable[int]) -> str:
    text = ", ".join(block_name(block) for block in blocks)
    return text or "none"


def _edges(edges: Iterable[tuple[int, int]]) -> str:
    text = ", ".join(f"{block_name(a)}->{block_name(b)}" for a, b in edges)
    return text or "none"


def _at(cfg: FunctionCFG, block: int) -> str:
    offsets = cfg.block_offsets
    return block_name(block) if offsets is None else f"{block_name(block)} +{offsets[block]:#x}"


def format_call_site(cfg: FunctionCFG, site: CallSite) -> str:
    """``call ^bb0 +0x5c: s_swappc_b64 s[4:5] -> @callee via <how>`` or ``... -> unknown:
    <why>``."""
    offsets = cfg.instruction_offsets
    where = block_name(site.block)
    if offsets is not None:
        where += f" +{offsets[site.op]:#x}"
    target = f"@{site.callee} via" if site.callee is not None else "unknown:"
    return f"{site.kind} {where}: {site.op.mnemonic} {site.target} -> {target} {site.reason}"


def format_cfg(cfg: FunctionCFG) -> list[str]:
    """The report of one function (see docs/analyses.md)."""
    kind = "kernel" if cfg.is_kernel else "function"
    lines = [f"cfg @{cfg.name} ({kind}): {len(cfg.blocks)} blocks, "
             f"{len(cfg.loops)} loops, {len(cfg.unreachable)} unreachable"]
    for block in range(len(cfg.blocks)):
        if cfg.reachable[block]:
            idom = cfg.idom[block]
            dominator = "none" if idom is None else block_name(idom)
        else:
            dominator = "unreachable"
        loop = cfg.innermost_loop[block]
        where = "none" if loop is None else block_name(cfg.loops[loop].header)
        fields = [f"preds {_names(cfg.predecessors[block])}",
                  f"succs {_names(cfg.successors[block])}",
                  f"idom {dominator}", f"loop {where}"]
        exit_kind = cfg.exits.get(block)
        if exit_kind is not None:
            fields.append(f"exit {exit_kind}")
        lines.append(f"  {_at(cfg, block)}: " + "; ".join(fields))
    for loop in cfg.loops:
        parent = "none" if loop.parent is None else block_name(cfg.loops[loop.parent].header)
        lines.append(f"  loop {block_name(loop.header)}: depth {loop.depth}; parent {parent}; "
                     f"blocks {_names(sorted(loop.blocks))}; "
                     f"back edges {_edges(loop.back_edges)}; exits {_edges(loop.exit_edges)}")
    for site in cfg.call_sites:
        lines.append("  " + format_call_site(cfg, site))
    lines.extend(f"  warning: {warning}" for warning in cfg.warnings)
    return lines


def format_callgraph(graph: CallGraph) -> list[str]:
    """The report of one code object (see docs/analyses.md)."""
    lines = [f'callgraph "{graph.code_object.target.data}": {len(graph.cfgs)} functions, '
             f"{len(graph.kernels)} kernels, {len(graph.sccs)} components"]
    for name, cfg in graph.cfgs.items():
        kind = "kernel" if cfg.is_kernel else "function"
        recursive = ", recursive" if graph.is_recursive(name) else ""
        lines.append(f"  @{name} ({kind}{recursive})")
        callers = ", ".join(f"@{caller}" for caller in graph.callers(name)) or "none"
        lines.append(f"    callers {callers}")
        for site in cfg.call_sites:
            lines.append("    " + format_call_site(cfg, site))
        if cfg.is_kernel:
            lines.append("    " + _reach_line(graph, name))
    lines.append("  bottom-up:")
    for scc in graph.sccs:
        members = ", ".join(f"@{member}" for member in scc)
        recursive = " (recursive)" if graph.is_recursive(scc[0]) else ""
        lines.append(f"    {members}{recursive}")
    lines.extend(f"  warning: {warning}" for warning in graph.warnings)
    return lines


def _reach_line(graph: CallGraph, name: str) -> str:
    reach = graph.reach(name)
    others = sorted(reach.functions - {name}, key=list(graph.cfgs).index)
    parts = [", ".join(f"@{other}" for other in others) or "no other function"]
    if reach.external:
        parts.append("external " + ", ".join(f"@{symbol}" for symbol in sorted(reach.external)))
    if reach.reaches_unknown:
        parts.append(f"unknown ({len(reach.unknown_calls)} unknown-target call sites)")
    return "reaches " + "; ".join(parts)


def _code_objects(module: ModuleOp) -> list[CodeObjectOp]:
    return code_objects_in(module)


def _write(lines: list[str], stream: TextIO) -> None:
    stream.write("".join(line + "\n" for line in lines))
    stream.flush()


@dataclass(frozen=True)
class PrintCFGPass(ModulePass):
    """Print each kernel's and device function's CFG to stderr; the IR is unchanged."""

    name = "print-cfg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in _code_objects(op):
            isa = isa_of(code_object)
            for function in code_object.body.ops:
                if isinstance(function, FunctionLikeOp):
                    _write(format_cfg(FunctionCFG.build(function, isa)), sys.stderr)


@dataclass(frozen=True)
class PrintCallGraphPass(ModulePass):
    """Print each code object's call graph to stderr; the IR is unchanged."""

    name = "print-callgraph"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in _code_objects(op):
            _write(format_callgraph(CallGraph.build(code_object)), sys.stderr)
