"""Compare two code objects the way the round-trip promise is stated: per function, per
kernel descriptor, metadata, kernels and variables — not as whole files.

A code object linked by another toolchain (an older ld.lld, debug sections, a different
section order) cannot come back byte for byte from a relink, and need not: what must not
change is each function's instruction bytes, each kernel descriptor (its code entry offset
may move with the layout, but must still point at its kernel), the metadata, and the set of
kernels, functions and variables. :func:`compare_code_objects` checks exactly those and says
what differs; whole-file identity is a separate, stronger check (``cmp``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.amdgpu_dialects.target.kernel_descriptor import CODE_ENTRY_FIELD_OFFSET
from luthier.frontend.codeobj.model import CodeObject

_ENTRY_FIELD = slice(CODE_ENTRY_FIELD_OFFSET, CODE_ENTRY_FIELD_OFFSET + 8)


@dataclass(frozen=True)
class Difference:
    """One thing that differs: its kind (``function``, ``descriptor``, ``metadata``,
    ``kernels``, ``functions``, ``variables``), the name it concerns, and how."""

    kind: str
    name: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} {self.name}: {self.detail}"


@dataclass
class Comparison:
    """Counts of what was compared and the differences found."""

    functions: int = 0
    identical_functions: int = 0
    descriptors: int = 0
    identical_descriptors: int = 0
    metadata_equivalent: bool = True
    differences: list[Difference] = field(default_factory=list[Difference])

    @property
    def identical(self) -> bool:
        return not self.differences


def _function_code(code_object: CodeObject) -> dict[str, bytes]:
    code = {kernel.name: kernel.code for kernel in code_object.kernels}
    code.update((function.name, function.code) for function in code_object.device_functions)
    return code


def _first_difference(left: bytes, right: bytes) -> str:
    if len(left) != len(right):
        return f"{len(left)} bytes, now {len(right)}"
    first = next(index for index, (a, b) in enumerate(zip(left, right, strict=True)) if a != b)
    words = sum(left[i:i + 4] != right[i:i + 4] for i in range(0, len(left), 4))
    return f"{words} of {len(left) // 4} words differ, the first at +{first & ~3:#x}"


def _compare_names(kind: str, left: set[str], right: set[str], out: list[Difference]) -> None:
    for name in sorted(left - right):
        out.append(Difference(kind, name, "missing from the rewritten object"))
    for name in sorted(right - left):
        out.append(Difference(kind, name, "not in the original object"))


def compare_code_objects(original: CodeObject, rewritten: CodeObject) -> Comparison:
    """What differs between ``original`` and ``rewritten`` (see the module docstring)."""
    result = Comparison()
    differences = result.differences
    before, after = _function_code(original), _function_code(rewritten)
    _compare_names("functions", set(before), set(after), differences)
    for name in sorted(before.keys() & after.keys()):
        result.functions += 1
        if before[name] == after[name]:
            result.identical_functions += 1
        else:
            differences.append(Difference("function", name,
                                          _first_difference(before[name], after[name])))
    old_kernels = {kernel.name: kernel for kernel in original.kernels}
    new_kernels = {kernel.name: kernel for kernel in rewritten.kernels}
    _compare_names("kernels", set(old_kernels), set(new_kernels), differences)
    for name in sorted(old_kernels.keys() & new_kernels.keys()):
        result.descriptors += 1
        old, new = old_kernels[name], new_kernels[name]
        old_bytes, new_bytes = old.descriptor.to_bytes(), new.descriptor.to_bytes()
        if new.entry_address != new.function.value:
            differences.append(Difference(
                "descriptor", name, f"code entry points at {new.entry_address:#x}, the "
                f"kernel is at {new.function.value:#x}"))
        elif (old_bytes[:_ENTRY_FIELD.start] + old_bytes[_ENTRY_FIELD.stop:]
              != new_bytes[:_ENTRY_FIELD.start] + new_bytes[_ENTRY_FIELD.stop:]):
            differences.append(Difference("descriptor", name, "fields differ"))
        else:
            result.identical_descriptors += 1
    old_metadata = original.metadata.raw if original.metadata is not None else None
    new_metadata = rewritten.metadata.raw if rewritten.metadata is not None else None
    if old_metadata != new_metadata:
        result.metadata_equivalent = False
        differences.append(Difference("metadata", "note", "the metadata maps differ"))
    old_variables = {symbol.name: symbol.size for symbol in original.variables}
    new_variables = {symbol.name: symbol.size for symbol in rewritten.variables}
    _compare_names("variables", set(old_variables), set(new_variables), differences)
    for name in sorted(old_variables.keys() & new_variables.keys()):
        if old_variables[name] != new_variables[name]:
            differences.append(Difference("variables", name, f"size {old_variables[name]}, "
                                          f"now {new_variables[name]}"))
    return result


#: Section header fields a file comparison reports (where a section lies in the file, and
#: ``sh_link``/``sh_info`` indices, follow from the sections before it: not differences of
#: their own).
_SECTION_FIELDS = ("type", "flags", "address", "size", "alignment", "entry_size")
#: Program header fields a file comparison reports.
_SEGMENT_FIELDS = ("type", "flags", "offset", "virtual_address", "file_size", "memory_size",
                   "alignment")


def _section_bytes(code_object: CodeObject, name: str) -> bytes:
    section = code_object.section(name)
    if section is None or not section.has_file_bytes:
        return b""
    return code_object.data[section.offset:section.offset + section.size]


def file_differences(original: CodeObject, rewritten: CodeObject) -> list[Difference]:
    """Every difference between two files, section by section, segment by segment and
    symbol by symbol: what ``luthier-opt --report`` lists for an identity round trip that
    is not byte-identical (``file``, ``section``, ``segment`` and ``symbol`` differences),
    so that each one can be told apart from the layout changes it causes."""
    differences: list[Difference] = []
    if len(original.data) != len(rewritten.data):
        differences.append(Difference("file", "size", f"{len(original.data)} bytes, now "
                                      f"{len(rewritten.data)}"))
    before = {section.name: section for section in original.sections[1:]}
    after = {section.name: section for section in rewritten.sections[1:]}
    _compare_names("section", set(before), set(after), differences)
    for name in [name for name in before if name in after]:
        old, new = before[name], after[name]
        changed = [f"{field} {getattr(old, field):#x}, now {getattr(new, field):#x}"
                   for field in _SECTION_FIELDS if getattr(old, field) != getattr(new, field)]
        if _section_bytes(original, name) != _section_bytes(rewritten, name) \
                and old.size == new.size:
            changed.append("bytes differ")
        if changed:
            differences.append(Difference("section", name, "; ".join(changed)))
    for index in range(max(len(original.segments), len(rewritten.segments))):
        if index >= len(rewritten.segments) or index >= len(original.segments):
            where = "original" if index >= len(rewritten.segments) else "rewritten"
            differences.append(Difference("segment", str(index), f"only in the {where} object"))
            continue
        old_segment, new_segment = original.segments[index], rewritten.segments[index]
        changed = [f"{field} {getattr(old_segment, field):#x}, now "
                   f"{getattr(new_segment, field):#x}" for field in _SEGMENT_FIELDS
                   if getattr(old_segment, field) != getattr(new_segment, field)]
        if changed:
            differences.append(Difference("segment", str(index), "; ".join(changed)))
    differences += _symbol_differences(original, rewritten)
    return differences


def _symbol_facts(code_object: CodeObject) -> dict[str, dict[str, object]]:
    """``table:name`` -> what a symbol says (its section by name: indices shift)."""
    facts: dict[str, dict[str, object]] = {}
    for symbol in code_object.symbols:
        if not symbol.name:
            continue
        index = symbol.section_index
        section = code_object.sections[index].name \
            if isinstance(index, int) and 0 < index < len(code_object.sections) else index
        facts[f"{symbol.table}:{symbol.name}"] = {
            "value": symbol.value, "size": symbol.size, "type": symbol.type,
            "binding": symbol.binding, "visibility": symbol.visibility, "section": section}
    return facts


def _symbol_differences(original: CodeObject, rewritten: CodeObject) -> list[Difference]:
    differences: list[Difference] = []
    before, after = _symbol_facts(original), _symbol_facts(rewritten)
    _compare_names("symbol", set(before), set(after), differences)
    for name in sorted(before.keys() & after.keys()):
        changed = [f"{key} {value}, now {after[name][key]}"
                   for key, value in before[name].items() if after[name][key] != value]
        if changed:
            differences.append(Difference("symbol", name, "; ".join(changed)))
    return differences
