"""Every value of a hook defined before it is used, checked before anything reads the IR.

xDSL's parser accepts a use ahead of its definition in a block (a forward reference the
block resolves later), and its verifier does not check dominance; a hook whose lines were
moved would then reach instruction selection with a value it cannot place. Hook bodies are
straight-line blocks with nested ``scf.if`` regions, so the rule is simple: an operand is a
block argument of an enclosing block, or the result of an earlier op of this block or of an
enclosing one.
"""

from __future__ import annotations

from xdsl.ir import Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a value"


def _check_region(region: Region, visible: set[SSAValue], where: str) -> None:
    for block in region.blocks:
        scope = set(visible)
        scope.update(block.args)
        for op in block.ops:
            for operand in op.operands:
                if operand not in scope:
                    raise VerifyException(f"{where}: '{op.name}' uses {_name(operand)} "
                                          "before it is defined (or where it is not visible)")
            for nested in op.regions:
                _check_region(nested, scope, where)
            scope.update(op.results)


def check_defined_before_use(op: Operation, where: str) -> None:
    """Raise :class:`VerifyException` (naming ``where``) at the first use in ``op``'s
    regions of a value not defined before it."""
    for region in op.regions:
        _check_region(region, set(), where)
