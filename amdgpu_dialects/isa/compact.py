"""The compact form of the ISA tables: what :func:`load_target` reads when a target is used.

The JSON tables (``tables/<target>.json``, made by ``generate.py`` from LLVM's TableGen
records) are the readable, reviewable source; parsing 3 MB of JSON and re-deriving every
field costs about 0.2 s per process, more than the rest of a one-instruction ``luthier-mc``
run. This module turns a JSON table into ``tables/<target>.compact``: the same facts,
already parsed (masks as integers, register runs expanded, tied-operand maps built) and
de-duplicated (the 22k operand slots of a target are 350 distinct ones; instruction
classes, flags and implicit registers are a few hundred distinct sets), serialized with
:mod:`marshal`, which loads plain tuples at C speed and cannot run code.

    python -m luthier.amdgpu_dialects.isa.compact           # rewrite every .compact file
    python -m luthier.amdgpu_dialects.isa.compact --check   # fail if one is not current

``test/unit/amdgpu_dialects/isa/test_compact_tables.py`` runs ``--check``, so a JSON table
regenerated without its compact form fails the tests. This module imports nothing of the
ISA model, so that ``target.py`` can import its layout constants.
"""

from __future__ import annotations

import argparse
import json
import marshal
import sys
from pathlib import Path
from typing import Any, cast

TABLES_DIR = Path(__file__).resolve().parent / "tables"
#: Bumped when the tuple layout below changes; the loader refuses another layout.
SCHEMA = 4
#: marshal's format version 4 (Python 3.4 and later), fixed so the bytes do not depend on
#: the interpreter that wrote them.
MARSHAL_VERSION = 4
SUFFIX = ".compact"


def compact_path(target: str, tables_dir: Path = TABLES_DIR) -> Path:
    return tables_dir / f"{target}{SUFFIX}"


def _expand_members(raw: dict[str, Any]) -> tuple[str, ...]:
    """Expand the JSON's compressed member runs back to register names, sorted."""
    names: set[str] = set(cast(list[str], raw.get("special", [])))
    for key, runs in raw.items():
        if key == "special":
            continue
        prefix, dwords_text = key.split(":")
        dwords = int(dwords_text)
        for first, last, step in cast(list[list[int]], runs):
            for start in range(first, last + 1, step or 1):
                names.add(f"{prefix}{start}" if dwords == 1
                          else f"{prefix}[{start}:{start + dwords - 1}]")
    return tuple(sorted(names))


def _fields(raw: Any) -> tuple[tuple[int, int, int], ...]:
    return tuple((int(a), int(b), int(c)) for a, b, c in cast(list[list[int]], raw))


def _tied_pairs(constraints: str) -> tuple[tuple[str, str], ...]:
    """``"$vdst = $src2"`` -> ``(("src2", "vdst"), ("vdst", "src2"))``: each operand's
    partner, in the order the loader's dict is filled."""
    tied: dict[str, str] = {}
    for part in constraints.split(","):
        if "=" not in part:
            continue
        lhs, rhs = (s.strip().lstrip("$") for s in part.split("=", 1))
        tied[rhs] = lhs
        tied[lhs] = rhs
    return tuple(tied.items())


class _Interner:
    """Numbers distinct values in first-seen order (the order is part of the output)."""

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}

    def __call__(self, value: Any) -> int:
        found = self.index.get(value)
        if found is None:
            found = self.index[value] = len(self.index)
        return found

    def values(self) -> tuple[Any, ...]:
        return tuple(self.index)


def compact_table(raw: dict[str, Any]) -> tuple[Any, ...]:
    """A JSON table as the tuple layout :func:`luthier.amdgpu_dialects.isa.target._load`
    reads (see there for the meaning of each position)."""
    classes = tuple(
        (name, int(rc["width"]), str(rc["files"]), bool(rc["align2"]),
         _expand_members(cast(dict[str, Any], rc["members"])))
        for name, rc in cast(dict[str, dict[str, Any]], raw["register_classes"]).items()
    )
    kind_names: list[str] = []
    kinds: list[tuple[Any, ...]] = []
    for name, k in cast(dict[str, dict[str, Any]], raw["operand_kinds"]).items():
        match = cast(dict[str, Any] | None, k.get("match")) or {}
        kind_names.append(name)
        kinds.append((name, k["class"] == "reg", str(k.get("rc", "")), str(k["print"]),
                      str(k["decode"]), str(k["type"]), str(k.get("vt", "")),
                      str(match.get("name", "")), bool(match.get("optional", False)),
                      k.get("default"), str(k.get("imm_ty", ""))))
    kind_index = {name: i for i, name in enumerate(kind_names)}
    slots, operand_lists, name_sets, field_maps, tied_maps = (
        _Interner(), _Interner(), _Interner(), _Interner(), _Interner())

    def instruction_row(e: dict[str, Any]) -> tuple[Any, ...]:
        fields = {str(n): _fields(f) for n, f in cast(dict[str, Any], e.get("fields", {})).items()}
        outs = cast(list[list[str]], e["outs"])
        operand_slots = tuple(
            slots((op_name, kind_index[kind], i < len(outs), fields.pop(op_name, ())))
            for i, (op_name, kind) in enumerate(outs + cast(list[list[str]], e["ins"]))
        )
        mimg = cast(dict[str, Any] | None, e.get("mimg"))
        return (
            e["name"], e["mnemonic"], e["asm"], int(e["size"]), e["ns"], e["variant"],
            bool(e["decodable"]), bool(e["parsable"]), int(e.get("mask", "0"), 16),
            int(e.get("value", "0"), 16), operand_lists(operand_slots), len(outs),
            tied_maps(_tied_pairs(e.get("constraints", ""))),
            name_sets(tuple(e["defs"])), name_sets(tuple(e["uses"])),
            name_sets(tuple(sorted(set(e["class"])))), name_sets(tuple(sorted(set(e["flags"])))),
            e.get("asmMatchConverter", ""), e.get("pseudoInstr", ""),
            field_maps(tuple(fields.items())),
            None if mimg is None else (str(mimg["base"]), str(mimg["encoding"]),
                                       int(mimg["vdata_dwords"]), int(mimg["vaddr_dwords"])),
            int(e.get("wave", 0)),
            int(e.get("unknown", "0"), 16),
        )

    instructions = [instruction_row(e) for e in cast(list[dict[str, Any]], raw["instructions"])]
    # A real-true16 twin is an instruction row and the name of its default record.
    real_true16 = [(*instruction_row(e), str(e["fake16"]))
                   for e in cast(list[dict[str, Any]], raw.get("real_true16", []))]
    aliases: list[tuple[Any, ...]] = []
    mnemonic_aliases: list[tuple[str, str]] = []
    for a in cast(list[dict[str, Any]], raw["aliases"]):
        if "from" in a:
            mnemonic_aliases.append((a["from"], a["to"]))
        else:
            aliases.append((a["asm"], a["inst"], tuple((str(n), v) for n, v in a["operands"]),
                            int(a["priority"]), a["variant"], int(a.get("wave", 0))))
    tuples = tuple(
        (prefix, tuple((int(n), int(c), int(s)) for n, (c, s) in sizes.items()))
        for prefix, sizes in cast(dict[str, dict[str, list[int]]], raw["register_tuples"]).items()
    )
    return (
        SCHEMA, raw["target"], tuple(raw["features"]), int(raw["wavefront_size"]), classes,
        tuple(kinds), slots.values(), operand_lists.values(), name_sets.values(),
        field_maps.values(), tied_maps.values(), tuple(instructions), tuple(aliases),
        tuple(mnemonic_aliases), tuples,
        tuple((name, str(r["asm"])) for name, r in
              cast(dict[str, dict[str, Any]], raw["registers"]).items()),
        tuple(cast(list[str], raw.get("foreign_mnemonics", []))),
        tuple((base, tuple(int(v) for v in values)) for base, values in
              cast(dict[str, list[int]], raw["mimg"]["bases"]).items()),
        tuple((int(encoding), str(suffix), int(coords), int(gradients))
              for encoding, (suffix, coords, gradients) in
              cast(dict[str, list[Any]], raw["mimg"]["dims"]).items()),
        tuple(int(w) for w in cast(list[int], raw["wave_sizes"])),
        tuple(real_true16),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=Path, default=TABLES_DIR,
                        help="the folder of <target>.json tables (and their .compact forms)")
    parser.add_argument("--check", action="store_true",
                        help="compare the compact tables with their JSON instead of writing")
    args = parser.parse_args(argv)
    tables: Path = args.tables
    stale: list[str] = []
    for json_path in sorted(tables.glob("*.json")):
        path = compact_path(json_path.stem, tables)
        expected = compact_table(cast(dict[str, Any], json.loads(json_path.read_text())))
        if args.check:
            if not path.exists() or marshal.loads(path.read_bytes()) != expected:
                stale.append(str(path))
            continue
        path.write_bytes(marshal.dumps(expected, MARSHAL_VERSION))
        print(f"wrote {path}")
    if stale:
        print("error: stale compact ISA tables (regenerate with "
              "python -m luthier.amdgpu_dialects.isa.compact): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
