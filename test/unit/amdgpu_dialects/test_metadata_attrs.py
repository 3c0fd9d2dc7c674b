"""The metadata note as attributes and back (amdgpu_mc.metadata): every msgpack value kind
survives, nil included (a YAML metadata block with an empty value gives one; found by the
fuzz campaign, it was an internal error), and what has no attribute form is a one-line
user error."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import DictionaryAttr

from luthier.amdgpu_dialects.amdgpu_mc.metadata import (
    MetadataConversionError,
    attr_to_metadata,
    kernel_entries,
    metadata_to_attr,
    with_kernel_entries,
)
from luthier.amdgpu_dialects.errors import LuthierError


def test_every_value_kind_round_trips() -> None:
    value = {"amdhsa.version": [1, 2], "flag": True, "ratio": 0.5, "name": "k",
             "empty": None, "nested": [{"x": None, "y": -3}]}
    assert attr_to_metadata(metadata_to_attr(value)) == value


def test_equal_leaves_share_an_attribute_but_keep_their_kind() -> None:
    # 1 == True and 0 == False in Python: shared leaves must still keep each one's type.
    value = {"a": 1, "b": True, "c": [1, True, 0, False, "1"], "d": 0.0, "e": -0.0}
    attr = metadata_to_attr(value)
    assert isinstance(attr, DictionaryAttr)
    back = attr_to_metadata(attr)
    assert back == value
    kinds: list[type] = [type(item) for item in back["c"]]
    assert kinds == [int, bool, int, bool, str]
    assert type(back["a"]) is int and type(back["b"]) is bool
    assert str(back["e"]) == "-0.0"  # floats are not shared: 0.0 == -0.0


def test_what_has_no_form_is_a_user_error() -> None:
    with pytest.raises(MetadataConversionError, match="key 1 is not a string") as raised:
        metadata_to_attr({1: "x"})
    assert isinstance(raised.value, LuthierError)
    with pytest.raises(MetadataConversionError, match="no attribute form"):
        metadata_to_attr(b"bytes")


def _note() -> DictionaryAttr:
    note = metadata_to_attr({
        "amdhsa.version": [1, 2],
        "amdhsa.kernels": [{".name": "a", ".sgpr_count": 8}, 7, {".sgpr_count": 1},
                           {".name": 5}, {".name": "b", ".sgpr_count": 9},
                           {".name": "a", ".sgpr_count": 10}],
    })
    assert isinstance(note, DictionaryAttr)
    return note


def test_kernel_entries_are_found_by_name_with_their_index() -> None:
    entries = kernel_entries(_note())
    # Entries that are no map or have no string name name no kernel; the last "a" wins.
    assert {name: (index, attr_to_metadata(entry)) for name, (index, entry)
            in entries.items()} == {"a": (5, {".name": "a", ".sgpr_count": 10}),
                                    "b": (4, {".name": "b", ".sgpr_count": 9})}
    assert kernel_entries(None) == {}
    assert kernel_entries(metadata_to_attr({"amdhsa.kernels": 3})) == {}


def test_replacing_kernel_entries_keeps_the_rest_of_the_note() -> None:
    note = _note()
    assert with_kernel_entries(note, {}) is note
    replaced = with_kernel_entries(note, {4: metadata_to_attr({".name": "b", ".sgpr_count": 16})})
    value = attr_to_metadata(note)
    value["amdhsa.kernels"][4][".sgpr_count"] = 16
    assert attr_to_metadata(replaced) == value
    assert list(replaced.data) == list(note.data)  # the key order of the note is kept
