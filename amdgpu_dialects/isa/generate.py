"""Generate the per-target AMDGPU instruction tables from LLVM's TableGen records.

The tables are the single source of truth for the decoder, encoder, printer and parser.
They are derived from ``llvm-tblgen -dump-json`` over LLVM 19's ``AMDGPU.td`` so that every
encoding fact (fixed bits, operand fields, operand classes, implicit registers, flags and
predicates) comes from the same records LLVM's own MC layer is generated from.

Run it as ``python -m luthier.amdgpu_dialects.isa.generate --llvm-src third_party/llvm-19``;
it writes ``amdgpu_dialects/isa/tables/<target>.json``. ``--check`` compares instead of
writing and exits non-zero on a difference (the CI check that the committed tables are
current).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

SCHEMA_VERSION = 4

#: Targets we generate tables for, by LLVM processor name.
TARGETS = ("gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200")
#: Processors served by another's table (``target.SHARED_TABLES``): LLVM gives them the same
#: features, which the generator verifies on every run (so ``--check`` catches a change).
SHARED_TABLES = {"gfx1201": "gfx1200"}

#: Decoder namespaces whose instructions the disassembler of each encoding family considers
#: (see ``amdgpu_dialects/mc/decoder.py`` for the order in which they are tried), keyed by
#: the generation feature that selects the family. The ``_FAKE16`` namespaces hold the
#: 16-bit instructions that use 32-bit registers (LLVM 19's default, "fake" True16); the
#: ``W64`` ones the wave64-only encodings, whose predicates keep them out of wave32 tables.
FAMILY_NAMESPACES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("FeatureGFX12", ("AMDGPU", "GFX12", "GFX12_FAKE16", "GFX12W64")),
    ("FeatureGFX11", ("AMDGPU", "GFX11", "GFX11_FAKE16", "GFX11W64")),
    ("FeatureGFX10", ("AMDGPU", "GFX10", "GFX10_B")),
    ("FeatureGFX9", ("AMDGPU", "GFX8", "GFX9", "GFX9_DL", "GFX90A", "GFX940")),
)

#: Record fields carried as instruction classes in addition to the ``TSFlags`` bits (they
#: are not target flags in LLVM but per-instruction properties the printer needs).
EXTRA_CLASS_FIELDS = ("IsSingle",)

#: Generic ``Instruction`` flags that matter to analyses and CFG recovery.
INSTRUCTION_FLAGS = (
    "isBranch", "isIndirectBranch", "isTerminator", "isBarrier", "isCall", "isReturn",
    "mayLoad", "mayStore", "isMoveImm", "isMoveReg", "isCompare", "isConvergent", "isTrap",
    "hasSideEffects", "isCommutable",
)


# ---------------------------------------------------------------------------------------
# Reading the records
# ---------------------------------------------------------------------------------------

Record = dict[str, Any]


class Records:
    """The TableGen record dump, with helpers to follow ``def`` references."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.instanceof: dict[str, list[str]] = raw["!instanceof"]

    def __getitem__(self, name: str) -> Record:
        return cast(Record, self.raw[name])

    def instances(self, cls: str) -> list[str]:
        return self.instanceof.get(cls, [])

    def is_a(self, name: str, cls: str) -> bool:
        return cls in self[name]["!superclasses"]


def def_name(value: Any) -> str:
    """The record name a ``def`` value refers to."""
    return cast(str, value["def"])


def dag_args(dag: Any) -> list[tuple[Any, str | None]]:
    return [(arg, name) for arg, name in dag["args"]]


def run_tblgen(llvm_src: Path, tblgen: str, out: Path) -> None:
    amdgpu = llvm_src / "llvm" / "lib" / "Target" / "AMDGPU"
    include = llvm_src / "llvm" / "include"
    if not (amdgpu / "AMDGPU.td").exists():
        raise SystemExit(f"error: {amdgpu / 'AMDGPU.td'}: not found (run scripts/setup.sh)")
    subprocess.run(
        [tblgen, "-dump-json", "-I", str(include), "-I", str(amdgpu), str(amdgpu / "AMDGPU.td"),
         "-o", str(out)],
        check=True,
    )


def load_records(path: Path) -> Records:
    data = path.read_bytes()
    try:
        import orjson  # pyright: ignore[reportMissingImports]

        raw = cast(dict[str, Any], orjson.loads(data))  # pyright: ignore[reportUnknownMemberType]
    except ImportError:
        raw = cast(dict[str, Any], json.loads(data))
    return Records(raw)


# ---------------------------------------------------------------------------------------
# Target features and predicates
# ---------------------------------------------------------------------------------------


def processor_features(records: Records, processor: str) -> frozenset[str]:
    """The transitive closure of a processor's features (``Implies`` followed).

    GFX10 and later processors run wave32 unless asked otherwise: like LLVM's subtarget
    set-up, a processor that names neither wave size gets ``FeatureWavefrontSize32`` on
    those generations (the ``isWave32`` predicates of VOPC/VOPD/... test it)."""
    for name in records.instances("Processor"):
        rec = records[name]
        if rec["Name"] == processor:
            pending = [def_name(f) for f in rec["Features"]]
            break
    else:
        raise SystemExit(f"error: unknown processor {processor!r}")
    seen: set[str] = set()
    while pending:
        feature = pending.pop()
        if feature in seen:
            continue
        seen.add(feature)
        pending.extend(def_name(f) for f in records[feature]["Implies"])
    if "FeatureGFX10Insts" in seen and not seen & {"FeatureWavefrontSize32",
                                                    "FeatureWavefrontSize64"}:
        seen.add("FeatureWavefrontSize32")
    return frozenset(seen)


def eval_cond_dag(dag: Any, features: frozenset[str]) -> bool:
    """Evaluate an ``AssemblerCondDag`` (``all_of``/``any_of``/``not``) over features."""
    op = def_name(dag["operator"])
    values: list[bool] = []
    for arg, _ in dag_args(dag):
        if isinstance(arg, dict) and cast(Record, arg).get("kind") == "dag":
            values.append(eval_cond_dag(arg, features))
        else:
            values.append(def_name(arg) in features)
    if op == "all_of":
        return all(values)
    if op == "any_of":
        return any(values)
    if op == "not":
        return not values[0]
    raise ValueError(f"unknown predicate operator {op}")


def predicates_hold(records: Records, inst: Record, features: frozenset[str]) -> bool:
    """Whether every assembler predicate of an instruction (or alias) holds on the target."""
    for pred in inst["Predicates"]:
        rec = records[def_name(pred)]
        if not rec.get("AssemblerMatcherPredicate"):
            continue
        if not eval_cond_dag(rec["AssemblerCondDag"], features):
            return False
    return True


# ---------------------------------------------------------------------------------------
# Operand kinds and register classes
# ---------------------------------------------------------------------------------------


def normalize_method(method: str) -> str:
    """Name a print or parser method; lambdas around ``printNamedBit`` become ``named_bit:X``."""
    if "printNamedBit" in method:
        start = method.index('"') + 1
        return "printNamedBit:" + method[start : method.index('"', start)]
    return method


class OperandKinds:
    """Collects the operand kinds and register classes the target's instructions use."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.kinds: dict[str, dict[str, Any]] = {}
        self.register_classes: dict[str, dict[str, Any]] = {}
        self._names: dict[str, str] = {}

    def kind_of(self, record_name: str) -> str:
        if record_name in self._names:
            return self._names[record_name]
        rec = self.records[record_name]
        supers = rec["!superclasses"]
        info: dict[str, Any]
        if "RegisterClass" in supers:
            self.register_class(record_name)
            info = {"class": "reg", "rc": record_name, "print": "printOperand", "decode": "",
                    "type": "OPERAND_REGISTER"}
        elif "RegisterOperand" in supers:
            rc = def_name(rec["RegClass"])
            self.register_class(rc)
            info = {"class": "reg", "rc": rc, "print": normalize_method(rec["PrintMethod"]),
                    "decode": rec["DecoderMethod"], "type": rec["OperandType"]}
            info["match"] = self._match_class(rec)
        elif "Operand" in supers:
            info = {"class": "imm", "print": normalize_method(rec["PrintMethod"]),
                    "decode": rec["DecoderMethod"], "type": rec["OperandType"],
                    "vt": def_name(rec["Type"]), "encoder": rec.get("EncoderMethod", "")}
            info["match"] = self._match_class(rec)
            if rec.get("ImmTy"):
                info["imm_ty"] = rec["ImmTy"]
            if rec.get("DefaultValue") is not None and "CustomOperandProps" in supers:
                info["default"] = rec["DefaultValue"]
            sub_ops = dag_args(rec["MIOperandInfo"])
            if sub_ops:
                info["sub_operands"] = [self.kind_of(def_name(a)) for a, _ in sub_ops]
        else:
            raise ValueError(f"{record_name}: not an operand ({supers})")
        name = record_name
        if record_name.startswith("anonymous_"):
            # Anonymous records get a content-derived name so regenerated tables are stable.
            parts = [info.get("rc", info.get("vt", "")), info["print"], info["decode"]]
            name = "anon:" + ":".join(p for p in parts if p)
        existing = self.kinds.get(name)
        if existing is not None and existing != info:
            name = f"{name}#{len([k for k in self.kinds if k.startswith(name)])}"
        self.kinds[name] = info
        self._names[record_name] = name
        return name

    def _match_class(self, rec: Record) -> dict[str, Any] | None:
        pmc = rec.get("ParserMatchClass")
        if not pmc:
            return None
        cls = self.records[def_name(pmc)]
        out: dict[str, Any] = {"name": cls["Name"], "optional": bool(cls.get("IsOptional"))}
        for field in ("PredicateMethod", "ParserMethod", "RenderMethod"):
            value = cls.get(field)
            if isinstance(value, str) and value and len(value) < 120:
                out[field] = value
        return out

    def register_class(self, name: str) -> None:
        if name in self.register_classes:
            return
        rec = self.records[name]
        members = MemberEvaluator(self.records).names(name)
        width = int(self.records[def_name(rec["RegTypes"][0])]["Size"])
        files = "".join(
            tag for tag, field in (("s", "HasSGPR"), ("v", "HasVGPR"), ("a", "HasAGPR"))
            if rec.get(field)
        )
        self.register_classes[name] = {
            "width": width,
            "files": files,
            "align2": "Align2" in name,
            "members": compress_members(members),
        }


class MemberEvaluator:
    """Evaluates register-class member lists (``add``, ``sequence``, ``decimate``...) to the
    assembler names of their registers, so the printer can flag registers outside a class
    exactly as LLVM's ``MCRegisterClass::contains`` does."""

    def __init__(self, records: Records) -> None:
        self.records = records

    def names(self, class_name: str) -> list[str]:
        return self._eval(self.records[class_name]["MemberList"])

    def _eval(self, value: Any) -> list[str]:
        if isinstance(value, dict) and cast(Record, value).get("kind") == "def":
            return self._def(def_name(value))
        dag = cast(Record, value)
        op = def_name(dag["operator"])
        args = [a for a, _ in dag_args(dag)]
        if op == "add":
            out: list[str] = []
            for arg in args:
                out.extend(n for n in self._eval(arg) if n not in out)
            return out
        if op == "sequence":
            fmt, lo, hi = cast(str, args[0]), int(args[1]), int(args[2])
            step = 1 if hi >= lo else -1
            return [n for i in range(lo, hi + step, step)
                    for n in self._def(fmt.replace("%u", str(i)))]
        if op == "decimate":
            return self._eval(args[0])[:: int(args[1])]
        if op == "trunc":
            return self._eval(args[0])[: int(args[1])]
        if op == "shl":
            return self._eval(args[0])[int(args[1]) :]
        if op == "rotl":
            items = self._eval(args[0])
            n = int(args[1]) % max(1, len(items))
            return items[n:] + items[:n]
        if op == "interleave":
            lists = [self._eval(a) for a in args]
            return [x for group in zip(*lists, strict=False) for x in group]
        raise ValueError(f"unsupported register set operator {op}")

    def _def(self, name: str) -> list[str]:
        rec = self.records[name]
        supers = rec["!superclasses"]
        if "RegisterClass" in supers:
            return self.names(name)
        if "RegisterTuples" in supers:
            return list(cast(list[str], rec["RegAsmNames"]))
        return [cast(str, rec["AsmName"])]


_MEMBER_NAME = re.compile(r"^([a-z]+)(?:(\d+)|\[(\d+):(\d+)\])$")


def compress_members(names: list[str]) -> dict[str, Any]:
    """``{"v:2": [[first, last, step], ...], "special": [...]}``: runs of tuple starts."""
    starts: dict[str, list[int]] = {}
    special: list[str] = []
    for name in names:
        match = _MEMBER_NAME.match(name)
        if match is None or match.group(1) not in ("s", "v", "a", "ttmp"):
            special.append(name)
            continue
        prefix, single, lo, hi = match.groups()
        if single is not None:
            starts.setdefault(f"{prefix}:1", []).append(int(single))
        else:
            starts.setdefault(f"{prefix}:{int(hi) - int(lo) + 1}", []).append(int(lo))
    out: dict[str, Any] = {}
    for key, values in sorted(starts.items()):
        runs: list[list[int]] = []
        for v in sorted(set(values)):
            last = runs[-1] if runs else None
            if last is not None and last[0] == last[1]:
                last[1], last[2] = v, v - last[0]
            elif last is not None and v - last[1] == last[2]:
                last[1] = v
            else:
                runs.append([v, v, 1])
        out[key] = runs
    if special:
        out["special"] = sorted(set(special))
    return out


# ---------------------------------------------------------------------------------------
# Instructions
# ---------------------------------------------------------------------------------------


_COMPLEX_IF = re.compile(r"^!if\(!and\((\w+), ([01])\), \{ (.*) \}, \?\)\{(\d+)\}$")
_VARBIT = re.compile(r"^(\w+)\{(\d+)\}$")


def resolve_complex_bit(rec: Record, printable: str) -> Any:
    """Resolve the one unevaluated bit expression shape the AMDGPU records contain.

    SMEM encodings select the ``soffset`` field with
    ``!if(!and(IsGFX9SpecificEncoding, N), { soffset{6}, ... }, ?){K}``; TableGen leaves it
    unresolved in the dump, so evaluate it against the record's own field here.
    """
    match = _COMPLEX_IF.match(printable)
    if match is None:
        raise ValueError(f"{rec['!name']}: unsupported encoding expression {printable}")
    flag, operand, bits, index = match.groups()
    if not (int(rec[flag]) and int(operand)):
        return None
    elements = [b.strip() for b in bits.split(",")]
    element = elements[len(elements) - 1 - int(index)]
    var = _VARBIT.match(element)
    if var is None:
        raise ValueError(f"{rec['!name']}: unsupported encoding element {element}")
    return {"kind": "varbit", "var": var.group(1), "index": int(var.group(2))}


def encoding_fields(inst_bits: list[Any]) -> tuple[int, int, int, dict[str, list[list[int]]]]:
    """Split ``Inst`` into fixed bits (mask, value), unknown bits and operand fields.

    Fields are ``[inst_lo, var_lo, width]`` runs: bits ``inst_lo..inst_lo+width-1`` of the
    instruction word hold bits ``var_lo..`` of the variable.
    """
    mask = value = unknown = 0
    bit_refs: dict[str, list[tuple[int, int]]] = {}
    for pos, bit in enumerate(inst_bits):
        if bit is None:
            unknown |= 1 << pos
        elif isinstance(bit, int):
            mask |= 1 << pos
            value |= bit << pos
        else:
            ref = cast(Record, bit)
            index = int(ref["index"]) if ref["kind"] == "varbit" else 0
            bit_refs.setdefault(ref["var"], []).append((pos, index))
    fields: dict[str, list[list[int]]] = {}
    for var, refs in bit_refs.items():
        runs: list[list[int]] = []
        for pos, index in sorted(refs):
            if runs and runs[-1][0] + runs[-1][2] == pos and runs[-1][1] + runs[-1][2] == index:
                runs[-1][2] += 1
            else:
                runs.append([pos, index, 1])
        fields[var] = runs
    return mask, value, unknown, fields


_TSFLAG_LET = re.compile(r"^\s*let TSFlags\{(\d+)\} = (\w+);", re.MULTILINE)


def tsflag_layout(llvm_src: Path) -> dict[int, str]:
    """Bit -> name of ``InstSI``'s ``TSFlags`` as ``SIInstrFormats.td`` assigns them.

    Real instructions copy ``TSFlags`` from their pseudo while some of their own class
    fields (``IsPacked``, ``FlatGlobal``...) keep defaults, so the bits are the truth.
    """
    td = llvm_src / "llvm" / "lib" / "Target" / "AMDGPU" / "SIInstrFormats.td"
    layout = {int(bit): name for bit, name in _TSFLAG_LET.findall(td.read_text())
              if not name.isdigit()}
    if not layout:
        raise SystemExit(f"error: {td}: no TSFlags layout found")
    return layout


def bits_value(bits: Any) -> int:
    """The integer value of a TableGen ``bits<N>`` (a little-endian list of 0/1)."""
    return sum(int(b) << i for i, b in enumerate(cast(list[int], bits)))


def mnemonic_of(asm: str) -> str:
    return asm.split(" ", 1)[0].split("$", 1)[0].strip()


def operand_list(kinds: OperandKinds, dag: Any) -> list[list[str]]:
    return [[name or "", kinds.kind_of(def_name(arg))] for arg, name in dag_args(dag)]


def instruction_entry(
    records: Records,
    kinds: OperandKinds,
    name: str,
    namespaces: frozenset[str],
    tsflags: dict[int, str],
) -> dict[str, Any]:
    rec = records[name]
    size = int(rec["Size"])
    entry: dict[str, Any] = {"name": name, "asm": rec["AsmString"], "size": size}
    entry["mnemonic"] = mnemonic_of(rec["AsmString"])
    ns = rec["DecoderNamespace"]
    entry["ns"] = ns
    entry["variant"] = rec["AsmVariantName"]
    decodable = bool(ns in namespaces and not rec["isAsmParserOnly"] and rec.get("Inst"))
    entry["decodable"] = decodable
    entry["asm_parser_only"] = bool(rec["isAsmParserOnly"])
    # Disassembler-only alternatives (such as GFX9's second SMEM soffset position) are
    # decoded but never matched by the assembler.
    entry["parsable"] = rec["AsmVariantName"] != "NonParsable"
    if rec.get("Inst"):
        bits: list[Any] = []
        for bit in cast(list[Any], rec["Inst"]):
            if isinstance(bit, dict) and cast(Record, bit)["kind"] == "complex":
                bit = resolve_complex_bit(rec, cast(str, cast(Record, bit)["printable"]))
            bits.append(bit)
        mask, value, unknown, fields = encoding_fields(bits)
        entry["mask"] = f"{mask:#x}"
        entry["value"] = f"{value:#x}"
        entry["unknown"] = f"{unknown:#x}"
        entry["fields"] = fields
        soft = cast(list[Any], rec.get("SoftFail") or [])
        soft_mask = sum(1 << i for i, b in enumerate(soft) if b == 1)
        if soft_mask:
            entry["soft_fail"] = f"{soft_mask:#x}"
    entry["outs"] = operand_list(kinds, rec["OutOperandList"])
    entry["ins"] = operand_list(kinds, rec["InOperandList"])
    for field in ("Constraints", "DisableEncoding", "DecoderMethod", "AsmMatchConverter",
                  "PseudoInstr"):
        if rec.get(field):
            entry[field[0].lower() + field[1:]] = rec[field]
    entry["defs"] = [def_name(r) for r in rec["Defs"]]
    entry["uses"] = [def_name(r) for r in rec["Uses"]]
    bits = cast(list[Any], rec["TSFlags"])
    classes = [tsflags[i] for i, b in enumerate(bits) if b == 1 and i in tsflags]
    entry["class"] = sorted(classes + [f for f in EXTRA_CLASS_FIELDS if rec.get(f) == 1])
    entry["flags"] = [f for f in INSTRUCTION_FLAGS if rec.get(f) == 1]
    if rec.get("MIMGEncoding") is not None and rec.get("BaseOpcode") is not None:
        # The disassembler decodes one MIMG variant and then picks the sibling whose data
        # and address widths match dmask/d16/tfe; these name the family and the widths.
        entry["mimg"] = {
            "base": def_name(rec["BaseOpcode"]),
            "encoding": def_name(rec["MIMGEncoding"]),
            "vdata_dwords": bits_value(rec["VDataDwords"]),
            "vaddr_dwords": bits_value(rec["VAddrDwords"]),
        }
    if not rec.get("hasCompleteDecoder", 1):
        entry["incomplete_decoder"] = True
    return entry


def wave_variants(features: frozenset[str]) -> dict[int, frozenset[str]]:
    """The feature sets of the wave sizes a processor runs: GFX10+ processors run wave32
    (their default) or wave64 (``-mattr=+wavefrontsize64``); older ones only wave64."""
    if "FeatureGFX10Insts" not in features:
        return {64 if "FeatureWavefrontSize64" in features else 32: features}
    base = features - {"FeatureWavefrontSize32", "FeatureWavefrontSize64"}
    return {32: base | {"FeatureWavefrontSize32"}, 64: base | {"FeatureWavefrontSize64"}}


def wave_of(records: Records, rec: Record, variants: dict[int, frozenset[str]]) -> int | None:
    """Which wave size an instruction or alias exists for: 0 for every one the processor
    runs, the one wave size whose predicates it needs, or None when it does not exist."""
    holds = [wave for wave, features in variants.items()
             if predicates_hold(records, rec, features)]
    if not holds:
        return None
    return 0 if len(holds) == len(variants) else holds[0]


def alias_entries(
    records: Records, kinds: OperandKinds, variants: dict[int, frozenset[str]], known: set[str]
) -> Iterator[dict[str, Any]]:
    for name in records.instances("InstAlias"):
        rec = records[name]
        wave = wave_of(records, rec, variants)
        if wave is None:
            continue
        result = rec["ResultInst"]
        target = def_name(result["operator"])
        if target not in known:
            continue
        operands: list[list[Any]] = []
        for arg, arg_name in dag_args(result):
            if isinstance(arg, dict):
                operands.append([arg_name or "", kinds.kind_of(def_name(arg))])
            else:
                operands.append([arg_name or "", arg])
        alias: dict[str, Any] = {
            "asm": rec["AsmString"],
            "inst": target,
            "operands": operands,
            "priority": rec["EmitPriority"],
            "variant": rec["AsmVariantName"],
        }
        if wave:
            alias["wave"] = wave
        yield alias
    for name in records.instances("MnemonicAlias"):
        rec = records[name]
        if wave_of(records, rec, variants) is not None:
            yield {"from": rec["FromMnemonic"], "to": rec["ToMnemonic"]}


def registers_used(records: Records, entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Facts about the named registers that appear as implicit defs and uses."""
    out: dict[str, Any] = {}
    for entry in entries:
        for reg in entry["defs"] + entry["uses"]:
            if reg in out:
                continue
            rec = records[reg]
            out[reg] = {
                "asm": rec.get("AsmName", ""),
                "subregs": [def_name(s) for s in rec.get("SubRegs", [])],
            }
    return out


_TUPLE_NAME = re.compile(r"^([a-z]+)\[(\d+):(\d+)\]$")


def register_tuples(records: Records) -> dict[str, dict[str, list[int]]]:
    """Register tuple classes as ``{prefix: {dwords: [count, stride]}}``.

    ``s[4:7]`` is tuple 1 of the 4-dword SGPR tuples, whose starts advance by the stride; the
    decoder indexes tuples exactly as LLVM's register classes do (including their quirks,
    such as 3-dword TTMP tuples advancing by 3).
    """
    out: dict[str, dict[str, list[int]]] = {}
    for name in records.instances("RegisterTuples"):
        names = cast(list[str], records[name]["RegAsmNames"])
        first = _TUPLE_NAME.match(names[0])
        if first is None:
            continue
        prefix, lo, hi = first.group(1), int(first.group(2)), int(first.group(3))
        stride = 0
        if len(names) > 1:
            second = _TUPLE_NAME.match(names[1])
            assert second is not None
            stride = int(second.group(2)) - lo
        out.setdefault(prefix, {})[str(hi - lo + 1)] = [len(names), stride]
    return {p: dict(sorted(t.items(), key=lambda kv: int(kv[0]))) for p, t in sorted(out.items())}


#: ``MIMGBaseOpcode`` fields that size an image instruction's address (LLVM's
#: ``getAddrSizeMIMGOp``), in the order the table lists them.
MIMG_BASE_FIELDS = ("NumExtraArgs", "Gradients", "G16", "Coordinates", "LodOrClampOrMip",
                    "BVH", "A16")


def mimg_facts(records: Records, instructions: list[dict[str, Any]]) -> dict[str, Any]:
    """What the disassembler needs to pick an image instruction's address width: per base
    opcode the ``MIMGBaseOpcode`` fields, per ``dim`` encoding its coordinate and gradient
    counts (``AMDGPUDimProps``)."""
    bases: dict[str, list[int]] = {}
    for entry in instructions:
        mimg = entry.get("mimg")
        if mimg is None or mimg["base"] in bases:
            continue
        rec = records[mimg["base"]]
        bases[mimg["base"]] = [
            bits_value(rec[f]) if isinstance(rec[f], list) else int(rec[f])
            for f in MIMG_BASE_FIELDS]
    dims: dict[str, list[Any]] = {}
    for name in records.instances("AMDGPUDimProps"):
        rec = records[name]
        dims[str(bits_value(rec["Encoding"]))] = [
            rec["AsmSuffix"], bits_value(rec["NumCoords"]), bits_value(rec["NumGradients"])]
    return {"bases": dict(sorted(bases.items())), "dims": dict(sorted(dims.items()))}


def build_target_table(
    records: Records, processor: str, tsflags: dict[int, str]
) -> dict[str, Any]:
    features = processor_features(records, processor)
    family = [ns for feature, ns in FAMILY_NAMESPACES if feature in features]
    if not family:
        raise SystemExit(f"error: {processor}: no decoder namespaces for its ISA family")
    namespaces = frozenset(family[0])
    kinds = OperandKinds(records)
    variants = wave_variants(features)
    instructions: list[dict[str, Any]] = []
    for name in sorted(records.instances("Instruction")):
        rec = records[name]
        if rec["isPseudo"] or rec["isCodeGenOnly"] or not rec["AsmString"]:
            continue
        if rec["Namespace"] != "AMDGPU":
            continue
        wave = wave_of(records, rec, variants)
        if wave is None:
            continue
        entry = instruction_entry(records, kinds, name, namespaces, tsflags)
        if wave:
            # Exists only in this wave size (the _w32/_w64 forms of VOPC, VOP2 carries...).
            entry["wave"] = wave
        instructions.append(entry)
    known = {e["name"] for e in instructions}
    real_true16 = real_true16_entries(records, kinds, instructions, variants) \
        if "FeatureTrue16BitInsts" in features else []
    aliases = list(alias_entries(records, kinds, variants, known))
    own_mnemonics = {mnemonic_of(e["asm"]).lower() for e in instructions if e["parsable"]}
    return {
        "schema": SCHEMA_VERSION,
        "target": processor,
        "features": sorted(features),
        "wavefront_size": 64 if "FeatureWavefrontSize64" in features else 32,
        # Every wave size the processor runs; instructions and aliases of only one say so.
        "wave_sizes": sorted(variants),
        "register_classes": dict(sorted(kinds.register_classes.items())),
        "operand_kinds": dict(sorted(kinds.kinds.items())),
        "registers": dict(sorted(registers_used(records, instructions).items())),
        "register_tuples": register_tuples(records),
        "instructions": instructions,
        # The real-true16 forms of the 16-bit VOP1/VOP2/VOPC encodings (see
        # real_true16_entries): decoded and parsed only when the default ones refuse.
        "real_true16": real_true16,
        "aliases": aliases,
        "mimg": mimg_facts(records, instructions),
        # Mnemonics of other processors, so the parser can say "not supported on this GPU"
        # rather than "invalid instruction", as llvm-mc does.
        "foreign_mnemonics": sorted(all_mnemonics(records) - own_mnemonics),
    }


#: Operand kinds of LLVM 19's default ("fake") True16 records that hold a 16-bit value in a
#: 32-bit VGPR below v128 (an 8-bit VGPR field, or a 9-bit source field), and the kinds
#: LLVM's real-true16 records of the same encodings give them: a 16-bit half, whose
#: field holds the VGPR in bits 6:0 and the half (1: ``.h``) in bit 7.
REAL_TRUE16_KINDS = {
    "anon:VGPR_32_Lo128:printVOPDst": "VOPDstOperand_t16Lo128",
    "VGPRSrc_32_Lo128": "VGPRSrc_16_Lo128",
    "VGPR_32_Lo128": "VGPRSrc_16_Lo128",
    "anon:VGPR_32_Lo128:printOperand": "VGPRSrc_16_Lo128",
    "VSrcFake16_f16_Lo128": "VSrcT_f16_Lo128",
    "VSrcFake16_b16_Lo128": "VSrcT_b16_Lo128",
    "VSrcFake16_bf16_Lo128": "VSrcT_bf16_Lo128",
    "VSrcFake16_f16_Lo128_Deferred": "VSrcT_f16_Lo128_Deferred",
}
#: Suffix of a real-true16 entry's name: its default record's name plus this.
REAL_TRUE16_SUFFIX = "_real16"


def _real_true16_kind(kinds: OperandKinds, fake: str) -> str:
    """The name of the real-true16 kind of ``fake`` (a key of :data:`REAL_TRUE16_KINDS`),
    registered in ``kinds``. LLVM 19 has no record for a deferred 16-bit source (``src0`` of
    ``v_fmamk_f16``/``v_fmaak_f16``, whose literal is the K operand's): it is made from
    ``VSrcT_f16_Lo128`` as LLVM's deferred fake16 kind is made from its plain one."""
    real = REAL_TRUE16_KINDS[fake]
    if real in kinds.kinds:
        return real
    if real.endswith("_Deferred"):
        plain = dict(kinds.kinds[_real_true16_kind(kinds, real.removesuffix("_Deferred")
                                                       .replace("VSrcT", "VSrcFake16"))])
        plain["decode"] = "decodeOperand_VSrcT16_Lo128_Deferred"
        plain["type"] = kinds.kinds[fake]["type"]
        kinds.kinds[real] = plain
        return real
    return kinds.kind_of(real)


def real_true16_entries(
    records: Records, kinds: OperandKinds, instructions: list[dict[str, Any]],
    variants: dict[int, frozenset[str]],
) -> list[dict[str, Any]]:
    """The real-true16 twin of every decodable instruction whose operands include a 16-bit
    value in a 32-bit VGPR below v128 (VOP1/VOP2/VOPC and their DPP forms).

    LLVM compiles GFX11 code as real true16 from LLVM 21 on (GFX12 since 2026): the 16-bit
    VGPR fields of these encodings then name halves, ``v_add_f16_e32 v1.h, v2.l, v3.h``,
    and a field with bit 7 set, which LLVM 19's default records refuse (``VGPR_32_Lo128``
    has no v128), is the high half of a VGPR below v128. LLVM 19 has real-true16 records
    for a few of them only (behind ``-mattr=+real-true16``), so each twin is derived: the
    same encoding and fields with the operand kinds of :data:`REAL_TRUE16_KINDS`; the
    derivation is checked against every such record LLVM 19 has (:func:`_check_twins`).
    A twin names its default record (``fake16``), whose opcode it is."""
    twins: list[dict[str, Any]] = []
    for entry in instructions:
        slots = entry["outs"] + entry["ins"]
        if not entry["decodable"] or not any(k in REAL_TRUE16_KINDS for _, k in slots):
            continue
        twin = dict(entry)
        twin["name"] = entry["name"] + REAL_TRUE16_SUFFIX
        twin["fake16"] = entry["name"]
        for side in ("outs", "ins"):
            twin[side] = [[name, _real_true16_kind(kinds, k) if k in REAL_TRUE16_KINDS else k]
                          for name, k in entry[side]]
        twins.append(twin)
    _check_twins(records, twins, variants)
    return twins


def _check_twins(records: Records, twins: list[dict[str, Any]],
                 variants: dict[int, frozenset[str]]) -> None:
    """Every real-true16 record of LLVM 19 whose 16-bit operands are Lo128 VGPR fields
    (its VOP1/VOP2 forms behind ``-mattr=+real-true16``) must equal the twin derived for
    its encoding, operand kind for operand kind. (The records' kinds are named apart, so
    that the table lists only the kinds its instructions use.)"""
    kinds = OperandKinds(records)
    by_encoding = {(t["ns"], t["mask"], t["value"], t["size"]): t for t in twins}
    real = {wave: features | {"FeatureRealTrue16Insts"} for wave, features in variants.items()}
    for name in sorted(records.instances("Instruction")):
        rec = records[name]
        if rec["isPseudo"] or rec["isCodeGenOnly"] or not rec.get("Inst") \
                or rec["Namespace"] != "AMDGPU" or wave_of(records, rec, variants) is not None \
                or wave_of(records, rec, real) is None:
            continue
        outs = operand_list(kinds, rec["OutOperandList"])
        ins = operand_list(kinds, rec["InOperandList"])
        if not any(k.endswith("Lo128") for _, k in outs + ins):
            continue
        bits: list[Any] = [resolve_complex_bit(rec, cast(str, cast(Record, b)["printable"]))
                           if isinstance(b, dict) and cast(Record, b)["kind"] == "complex"
                           else b for b in cast(list[Any], rec["Inst"])]
        mask, value, _, _ = encoding_fields(bits)
        key = (rec["DecoderNamespace"].replace("_FAKE16", ""), f"{mask:#x}", f"{value:#x}",
               int(rec["Size"]))
        twin = next((t for (ns, *rest), t in by_encoding.items()
                     if (ns.replace("_FAKE16", ""), *rest) == key), None)
        if twin is None or [k for _, k in twin["outs"] + twin["ins"]] != \
                [k for _, k in outs + ins]:
            raise SystemExit(f"error: LLVM's real-true16 record {name} is not the twin "
                             f"derived for its encoding ({twin and twin['name']})")


def all_mnemonics(records: Records) -> set[str]:
    """Every AMDGPU instruction mnemonic of any processor (``_e32``... suffixes removed)."""
    names: set[str] = set()
    for name in records.instances("Instruction"):
        rec = records[name]
        if rec["isPseudo"] or rec["isCodeGenOnly"] or not rec["AsmString"]:
            continue
        if rec["Namespace"] != "AMDGPU":
            continue
        names.add(mnemonic_of(str(rec["AsmString"])).lower())
    for name in records.instances("InstAlias"):
        names.add(mnemonic_of(str(records[name]["AsmString"] or "")).lower())
    for name in records.instances("MnemonicAlias"):
        names.add(str(records[name]["FromMnemonic"] or "").lower())
    stripped: set[str] = set()
    for mnemonic in names:
        for suffix in ("_e64_dpp", "_e32", "_e64", "_sdwa", "_dpp8", "_dpp"):
            if mnemonic.endswith(suffix):
                stripped.add(mnemonic[: -len(suffix)])
                break
    return (names | stripped) - {""}


def render(table: dict[str, Any]) -> str:
    """Serialize a table as JSON with one instruction per line, so diffs stay readable."""
    lines = ["{"]
    items = list(table.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if isinstance(value, list) and key in ("instructions", "real_true16", "aliases"):
            rows = [json.dumps(v, sort_keys=True, separators=(",", ":")) for v in
                    cast(list[Any], value)]
            lines.append(f"{json.dumps(key)}: [")
            lines.extend(f"  {row}{',' if j + 1 < len(rows) else ''}" for j, row in
                         enumerate(rows))
            lines.append(f"]{comma}")
        elif isinstance(value, dict):
            entries = list(cast(dict[str, Any], value).items())
            lines.append(f"{json.dumps(key)}: {{")
            lines.extend(
                f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                f"{',' if j + 1 < len(entries) else ''}"
                for j, (k, v) in enumerate(entries)
            )
            lines.append(f"}}{comma}")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def default_tables_dir() -> Path:
    return Path(__file__).resolve().parent / "tables"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--llvm-src", type=Path, default=Path("third_party/llvm-19"),
                        help="LLVM 19 source tree (from the llvm-toolchain-19 source package)")
    parser.add_argument("--tblgen", default=shutil.which("llvm-tblgen-19") or "llvm-tblgen")
    parser.add_argument("--records-json", type=Path,
                        help="reuse an existing llvm-tblgen -dump-json output")
    parser.add_argument("--out", type=Path, default=default_tables_dir())
    parser.add_argument("--target", action="append", choices=TARGETS)
    parser.add_argument("--check", action="store_true",
                        help="compare with the tables in --out instead of writing them")
    args = parser.parse_args(argv)
    targets: list[str] = args.target or list(TARGETS)

    with tempfile.TemporaryDirectory() as tmp:
        records_json: Path | None = args.records_json
        if records_json is None:
            records_json = Path(tmp) / "amdgpu.json"
            run_tblgen(args.llvm_src, args.tblgen, records_json)
        records = load_records(records_json)

    out_dir: Path = args.out
    stale: list[str] = []
    for shared, served_by in SHARED_TABLES.items():
        if processor_features(records, shared) != processor_features(records, served_by):
            stale.append(f"{shared} (its features differ from {served_by}'s: it needs a "
                         "table of its own)")
    tsflags = tsflag_layout(args.llvm_src)
    for target in targets:
        text = render(build_target_table(records, target, tsflags))
        path = out_dir / f"{target}.json"
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            out_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print("error: stale ISA tables (regenerate with "
              "python -m luthier.amdgpu_dialects.isa.generate): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
