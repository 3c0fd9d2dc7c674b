"""The metadata note as attributes and back (amdgpu_mc.metadata): every msgpack value kind
survives, nil included (a YAML metadata block with an empty value gives one; found by the
fuzz campaign, it was an internal error), and what has no attribute form is a one-line
user error."""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.metadata import (
    MetadataConversionError,
    attr_to_metadata,
    metadata_to_attr,
)
from luthier.amdgpu_dialects.errors import LuthierError


def test_every_value_kind_round_trips() -> None:
    value = {"amdhsa.version": [1, 2], "flag": True, "ratio": 0.5, "name": "k",
             "empty": None, "nested": [{"x": None, "y": -3}]}
    assert attr_to_metadata(metadata_to_attr(value)) == value


def test_what_has_no_form_is_a_user_error() -> None:
    with pytest.raises(MetadataConversionError, match="key 1 is not a string") as raised:
        metadata_to_attr({1: "x"})
    assert isinstance(raised.value, LuthierError)
    with pytest.raises(MetadataConversionError, match="no attribute form"):
        metadata_to_attr(b"bytes")
