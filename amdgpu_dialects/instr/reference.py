"""``docs/instr-reference.md``: every ``instr`` op, argument attribute and selector value,
written from the dialect's own definitions (IRDL operands, results, properties, regions,
syntax and docstrings, and the tables the verifiers check against), so the reference cannot
drift from what the parser and verifier accept.

    python -m luthier.amdgpu_dialects.instr.reference           # rewrite the file
    python -m luthier.amdgpu_dialects.instr.reference --check   # exit 1 when it is stale

``test/unit/amdgpu_dialects/instr/test_reference.py`` runs the check.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    OptOperandDef,
    OptPropertyDef,
    OptResultDef,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    VarConstraint,
    VarOperandDef,
    VarResultDef,
)

from luthier.amdgpu_dialects.instr.attributes import SITE_FACTS
from luthier.amdgpu_dialects.instr.dialect import INSTR
from luthier.amdgpu_dialects.instr.ops import ATOMIC_KINDS, INSERTION_POINTS
from luthier.amdgpu_dialects.isa.target import (
    SUPPORTED_TARGETS,
    instruction_classes,
    load_target,
)
from luthier.amdgpu_dialects.target.generated_doc import generated_doc_main

#: Where the reference is committed, from the checkout's root.
REFERENCE = Path("docs") / "instr-reference.md"


def _plain(text: str) -> str:
    """A docstring's reStructuredText as Markdown: ``x`` and :role:`~.x` as `x`."""
    text = re.sub(r":[a-z]+:`~?\.?([^`]*)`", lambda m: f"`{m.group(1).split('.')[-1]}`", text)
    return text.replace("``", "`")


def _doc(item: type) -> str:
    doc = inspect.getdoc(item) or ""
    return _plain(" ".join(line.strip() for line in doc.split("\n\n")[0].splitlines()))


def _rest_of_doc(item: type) -> list[str]:
    doc = inspect.getdoc(item) or ""
    return [_plain(" ".join(line.strip() for line in paragraph.splitlines()))
            for paragraph in doc.split("\n\n")[1:] if paragraph.strip()]


def _constraint(constraint: AttrConstraint | RangeConstraint) -> str:
    """A constraint as a reader would write it: ``i64``, ``integer``, ``a or b``."""
    if isinstance(constraint, RangeLengthConstraint):
        return _constraint(constraint.constraint)
    if isinstance(constraint, RangeOf):
        return _constraint(constraint.constr)
    if isinstance(constraint, VarConstraint):
        return f"{_constraint(constraint.constraint)} `{constraint.name}`"
    if isinstance(constraint, EqAttrConstraint):
        return f"`{constraint.attr}`"
    if isinstance(constraint, BaseAttr):
        attr_type: type[Attribute] = constraint.attr
        names = {"IntegerType": "integer type", "StringAttr": "string",
                 "SymbolRefAttr": "symbol (`@name`)", "IntegerAttr": "integer",
                 "ArrayAttr": "array", "FunctionType": "function type"}
        return names.get(attr_type.__name__, f"`{attr_type.__name__}`")
    if isinstance(constraint, AnyOf):
        return " or ".join(_constraint(choice) for choice in constraint.attr_constrs)
    if isinstance(constraint, AnyAttr):
        return "any"
    if type(constraint).__name__ == "SymbolNameConstraint":
        return "symbol name"
    return f"`{constraint}`"


def _op_section(op: type[IRDLOperation]) -> list[str]:
    definition = op.get_irdl_definition()
    lines = [f"### `{definition.name}`", "", _doc(op), ""]
    lines += [paragraph + "\n" for paragraph in _rest_of_doc(op)]
    rows: list[tuple[str, str, str]] = []
    for name, operand in definition.operands:
        many = " (variadic)" if isinstance(operand, VarOperandDef) else ""
        optional = " (optional)" if isinstance(operand, OptOperandDef) else ""
        rows.append(("operand", f"`{name}`", _constraint(operand.constr) + optional + many))
    for name, result in definition.results:
        many = " (variadic)" if isinstance(result, VarResultDef) else ""
        optional = " (optional)" if isinstance(result, OptResultDef) else ""
        rows.append(("result", f"`{name}`", _constraint(result.constr) + optional + many))
    for name, prop in definition.properties.items():
        optional = " (optional)" if isinstance(prop, OptPropertyDef) else ""
        rows.append(("property", f"`{name}`", _constraint(prop.constr) + optional))
    for name, _ in definition.regions:
        rows.append(("region", f"`{name}`", "one block"))
    if rows:
        lines += ["| kind | name | constraint |", "|---|---|---|"]
        lines += [f"| {kind} | {name} | {what} |" for kind, name, what in rows]
        lines.append("")
        if any(re.search(r"`[A-Z]`$", what) for _, _, what in rows):
            lines += ["Operands and results marked with the same letter have one type.", ""]
    if definition.assembly_format is not None:
        lines += [f"Syntax: `` {definition.assembly_format} ``", ""]
    return lines


def _attribute_section(attr: type[Attribute]) -> list[str]:
    return [f"### `#{attr.name}`", "", _doc(attr), ""] + \
        [paragraph + "\n" for paragraph in _rest_of_doc(attr)]


def reference(dialect: Dialect = INSTR) -> str:
    """The reference's Markdown text."""
    lines = [
        "# `instr` dialect reference",
        "",
        "<!-- Generated by `python -m luthier.amdgpu_dialects.instr.reference` from the "
        "dialect's definitions; do not edit. -->",
        "",
        "Every op, argument attribute and selector value the `instr` dialect accepts, from "
        "its definitions (operands, results, properties, regions, syntax, documentation). "
        "The constraint column is what the parser accepts; each op's verifier checks more "
        "(the widths and values its description gives). How hooks are written and "
        "lowered: [hooks.md](hooks.md).",
        "",
        "## Selectors of `instr.insert`",
        "",
        f"- `at`: {', '.join(f'`{point}`' for point in INSERTION_POINTS)}.",
        "- `kernel`: a kernel's name (every kernel when absent); `mnemonic`: a shell-style "
        "pattern (`global_load_*`); `first`/`last`: instruction indexes within the "
        "function, inclusive.",
        "- `class`: a class of the target's instruction records. Per target:",
        "",
    ]
    for target in SUPPORTED_TARGETS:
        names = ", ".join(f"`{name}`" for name in sorted(instruction_classes(
            load_target(target))))
        lines.append(f"  - {target}: {names}")
    lines += ["",
              f"`#instr.site` facts: {', '.join(f'`{fact}`' for fact in SITE_FACTS)}. "
              f"`instr.atomic` kinds: {', '.join(f'`{kind}`' for kind in ATOMIC_KINDS)}.",
              "", "## Ops", ""]
    for op in sorted(dialect.operations, key=lambda op: op.name):
        if issubclass(op, IRDLOperation):
            lines += _op_section(op)
    lines += ["## Argument attributes", ""]
    for attr in sorted(dialect.attributes, key=lambda attr: attr.name):
        lines += _attribute_section(attr)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    return generated_doc_main(argv, (__doc__ or "").splitlines()[0], REFERENCE, reference,
                              "luthier.amdgpu_dialects.instr.reference")


if __name__ == "__main__":
    sys.exit(main())
