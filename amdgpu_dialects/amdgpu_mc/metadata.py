"""The AMDGPU metadata note (a msgpack map) as builtin attributes, and back.

Maps become ``DictionaryAttr`` (key order kept), arrays ``ArrayAttr``, strings
``StringAttr``, booleans ``i1`` integers, integers ``i64`` integers, floats ``f64`` and nil
``unit``: the note is then ordinary IR that passes can read and rewrite (register counts,
segment sizes) and that any MLIR tool prints. Converting back gives the same Python
values, so packing them gives back an equivalent note.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute

from luthier.amdgpu_dialects.errors import LuthierError


class MetadataConversionError(LuthierError, ValueError):
    """A value the attribute form cannot carry (a map with non-string keys, bytes)."""


def metadata_to_attr(value: object) -> Attribute:
    """The attribute form of a decoded msgpack value (msgpack's nil, or YAML's empty value,
    is ``unit``).

    Equal integers, booleans and strings share one attribute (attributes are immutable): a
    library's note repeats a few values across hundreds of kernels' argument lists (sizes,
    offsets, ``by_value``), and building an ``IntegerAttr`` costs xDSL's checks each
    time."""
    return _to_attr(value, {})


def _to_attr(value: object, leaves: dict[tuple[type, object], Attribute]) -> Attribute:
    if value is None:
        return UnitAttr()
    kind = type(value)
    if kind is int or kind is bool or kind is str:
        key = (kind, value)  # the type too: True == 1, and the two differ here
        found = leaves.get(key)
        if found is None:
            found = leaves[key] = (BoolAttr.from_bool(cast(bool, value)) if kind is bool
                                   else IntegerAttr(cast(int, value), i64) if kind is int
                                   else StringAttr(cast(str, value)))
        return found
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, list | tuple):
        items = cast(list[object], value)
        return ArrayAttr([_to_attr(item, leaves) for item in items])
    if isinstance(value, Mapping):
        mapping = cast(Mapping[object, object], value)
        entries: dict[str, Attribute] = {}
        for key, item in mapping.items():
            if not isinstance(key, str):
                raise MetadataConversionError(f"metadata map key {key!r} is not a string")
            entries[key] = _to_attr(item, leaves)
        return DictionaryAttr(entries)
    raise MetadataConversionError(f"metadata value {value!r} has no attribute form")


def attr_to_metadata(attr: Attribute) -> Any:
    """The msgpack value of an attribute made by :func:`metadata_to_attr`."""
    if isinstance(attr, IntegerAttr):
        integer = cast(IntegerAttr[IntegerType], attr)
        value = integer.value.data
        return bool(value) if integer.type.width.data == 1 else value
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, ArrayAttr):
        return [attr_to_metadata(item) for item in cast(ArrayAttr[Attribute], attr).data]
    if isinstance(attr, DictionaryAttr):
        return {key: attr_to_metadata(item) for key, item in attr.data.items()}
    if isinstance(attr, UnitAttr):
        return None
    raise MetadataConversionError(f"{attr} is not a metadata value")


#: The metadata map's key for the list of kernel entries.
KERNELS_KEY = "amdhsa.kernels"


def kernel_entries(metadata: Attribute | None) -> dict[str, tuple[int, DictionaryAttr]]:
    """Each kernel's entry in ``metadata``, by its ``.name``: the entry's index in the
    kernel list and its fields, as attributes (the last entry, if several share a name).

    Passes read and rebuild single entries through this instead of converting the whole
    note to Python values: a library's note holds every kernel's entry, and a ``--jobs``
    worker's chunk changes a few of them. Entries that are not maps or have no string
    ``.name`` name no kernel and are left out."""
    kernels = metadata.data.get(KERNELS_KEY) if isinstance(metadata, DictionaryAttr) else None
    if not isinstance(kernels, ArrayAttr):
        return {}
    found: dict[str, tuple[int, DictionaryAttr]] = {}
    for index, entry in enumerate(cast(ArrayAttr[Attribute], kernels).data):
        if isinstance(entry, DictionaryAttr):
            name = entry.data.get(".name")
            if isinstance(name, StringAttr):
                found[name.data] = (index, entry)
    return found


def with_kernel_entries(metadata: DictionaryAttr,
                        replaced: Mapping[int, Attribute]) -> DictionaryAttr:
    """``metadata`` with the kernel entries at the indices of ``replaced`` replaced (the
    indices :func:`kernel_entries` gives); ``metadata`` itself when there are none."""
    kernels = metadata.data.get(KERNELS_KEY)
    if not replaced or not isinstance(kernels, ArrayAttr):
        return metadata
    entries = list(cast(ArrayAttr[Attribute], kernels).data)
    for index, entry in replaced.items():
        entries[index] = entry
    return DictionaryAttr({key: ArrayAttr(entries) if key == KERNELS_KEY else value
                           for key, value in metadata.data.items()})
