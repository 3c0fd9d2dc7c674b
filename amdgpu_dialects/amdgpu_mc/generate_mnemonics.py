"""Generate :mod:`.mnemonics`: every printed mnemonic of every supported target, and its kind.

The dialect has one op per printed mnemonic (``amdgpu_mc.v_add_f32_e64``). xDSL loads every
op of a dialect when the dialect is first used, so the list of names must be known without
loading the ISA tables of all targets (a fifth of a second each): it is generated from them
once and committed, and ``--check`` (run by a test) says when it is stale.

    python -m luthier.amdgpu_dialects.amdgpu_mc.generate_mnemonics [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from luthier.amdgpu_dialects.isa.target import TABLE_TARGETS, InstrDef, load_target
from luthier.amdgpu_dialects.mc.printer import printer_for

OUTPUT = Path(__file__).resolve().parent / "mnemonics.py"

_HEADER = '''"""Printed mnemonic -> instruction kind, for every supported target (generated).

Written by ``python -m luthier.amdgpu_dialects.amdgpu_mc.generate_mnemonics`` from the ISA
tables; do not edit. Kinds: ``branch`` (a terminator with a PC-relative target: its targets
are block successors), ``terminator`` (ends a block without a successor: ``s_endpgm``,
``s_setpc_b64``), ``call``, or ``""``.
"""

INSTRUCTION_KINDS: dict[str, str] = {
'''


def instruction_kind(desc: InstrDef) -> str:
    """The role an instruction plays in the control flow graph."""
    flags = desc.flags
    has_target = any(slot.kind.operand_type == "OPERAND_PCREL" for slot in desc.operands)
    if "isTerminator" in flags:
        return "branch" if has_target else "terminator"
    if "isCall" in flags:
        return "call"
    return ""


_RANK = {"": 0, "call": 1, "terminator": 2, "branch": 3}


def collect() -> dict[str, str]:
    """Mnemonic -> kind over all targets (the strongest kind where records disagree)."""
    kinds: dict[str, str] = {}
    for target in TABLE_TARGETS:
        printer = printer_for(target)
        for desc in load_target(target).instructions:
            mnemonic = printer.mnemonic(desc)
            kind = instruction_kind(desc)
            if _RANK[kind] >= _RANK[kinds.get(mnemonic, "")]:
                kinds[mnemonic] = kind
    return dict(sorted(kinds.items()))


def render(kinds: dict[str, str]) -> str:
    lines = [_HEADER]
    lines.extend(f"    {mnemonic!r}: {kind!r},\n" for mnemonic, kind in kinds.items())
    lines.append("}\n")
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the committed module differs from a fresh one")
    args = parser.parse_args(argv)
    text = render(collect())
    if args.check:
        current = OUTPUT.read_text() if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.name} is stale: run python -m {__spec__.name}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
