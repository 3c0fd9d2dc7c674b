"""The AMDGPU metadata note (``NT_AMDGPU_METADATA``): msgpack, typed where we use it.

The map has ``amdhsa.version``, ``amdhsa.target`` and ``amdhsa.kernels`` (one map per kernel:
``.name``, ``.symbol``, ``.args``, segment sizes, register counts...); see "Code Object V3/V4/V5
Metadata" in AMDGPUUsage.rst. Later passes read and rewrite a handful of keys (register counts,
scratch size), while the runtime needs every key kept, including ones this version of the
reader has never heard of. So each typed view keeps its ``raw`` dict, and :meth:`to_msgpack`
serializes the raw map: reading and writing back gives equivalent metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

import msgpack  # pyright: ignore[reportMissingTypeStubs]

#: msgpack has no type stubs; its two functions are used through this untyped handle.
_msgpack = cast(Any, msgpack)


class MetadataFormatError(ValueError):
    """The note's bytes are not a metadata map of the documented shape."""


def _as_map(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MetadataFormatError(f"{what} is a {type(value).__name__}, expected a map")
    mapping = cast(dict[object, Any], value)
    for key in mapping:
        if not isinstance(key, str):
            raise MetadataFormatError(f"{what} has a non-string key {key!r}")
    return cast(dict[str, Any], mapping)


def _opt_int(mapping: dict[str, Any], key: str, what: str) -> int | None:
    value = mapping.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise MetadataFormatError(f"{what} {key} is {value!r}, expected an integer")
    return value


def _opt_str(mapping: dict[str, Any], key: str, what: str) -> str | None:
    value = mapping.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise MetadataFormatError(f"{what} {key} is {value!r}, expected a string")
    return value


@dataclass(frozen=True)
class KernelArgMetadata:
    """One entry of a kernel's ``.args``: where it sits in the kernarg segment and what it is."""

    offset: int
    size: int
    value_kind: str
    name: str | None
    address_space: str | None
    raw: dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def from_raw(raw: object, what: str) -> KernelArgMetadata:
        mapping = _as_map(raw, what)
        offset = _opt_int(mapping, ".offset", what)
        size = _opt_int(mapping, ".size", what)
        kind = _opt_str(mapping, ".value_kind", what)
        if offset is None or size is None or kind is None:
            raise MetadataFormatError(f"{what} lacks .offset, .size or .value_kind")
        return KernelArgMetadata(
            offset,
            size,
            kind,
            _opt_str(mapping, ".name", what),
            _opt_str(mapping, ".address_space", what),
            mapping,
        )


@dataclass(frozen=True)
class KernelMetadata:
    """One ``amdhsa.kernels`` entry; keys that are optional in the spec are ``None`` if absent."""

    name: str
    symbol: str
    args: tuple[KernelArgMetadata, ...]
    kernarg_segment_size: int
    kernarg_segment_align: int | None
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    wavefront_size: int | None
    sgpr_count: int | None
    vgpr_count: int | None
    agpr_count: int | None
    sgpr_spill_count: int | None
    vgpr_spill_count: int | None
    max_flat_workgroup_size: int | None
    uses_dynamic_stack: bool | None
    raw: dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def from_raw(raw: object, index: int) -> KernelMetadata:
        what = f"amdhsa.kernels[{index}]"
        mapping = _as_map(raw, what)
        name = _opt_str(mapping, ".name", what)
        symbol = _opt_str(mapping, ".symbol", what)
        if name is None or symbol is None:
            raise MetadataFormatError(f"{what} lacks .name or .symbol")
        raw_args = mapping.get(".args", [])
        if not isinstance(raw_args, list):
            raise MetadataFormatError(f"{what} .args is not an array")
        args = tuple(
            KernelArgMetadata.from_raw(arg, f"{what}.args[{i}]")
            for i, arg in enumerate(cast(list[object], raw_args))
        )
        dynamic = mapping.get(".uses_dynamic_stack")
        return KernelMetadata(
            name=name,
            symbol=symbol,
            args=args,
            kernarg_segment_size=_opt_int(mapping, ".kernarg_segment_size", what) or 0,
            kernarg_segment_align=_opt_int(mapping, ".kernarg_segment_align", what),
            group_segment_fixed_size=_opt_int(mapping, ".group_segment_fixed_size", what) or 0,
            private_segment_fixed_size=_opt_int(mapping, ".private_segment_fixed_size", what) or 0,
            wavefront_size=_opt_int(mapping, ".wavefront_size", what),
            sgpr_count=_opt_int(mapping, ".sgpr_count", what),
            vgpr_count=_opt_int(mapping, ".vgpr_count", what),
            agpr_count=_opt_int(mapping, ".agpr_count", what),
            sgpr_spill_count=_opt_int(mapping, ".sgpr_spill_count", what),
            vgpr_spill_count=_opt_int(mapping, ".vgpr_spill_count", what),
            max_flat_workgroup_size=_opt_int(mapping, ".max_flat_workgroup_size", what),
            uses_dynamic_stack=dynamic if isinstance(dynamic, bool) else None,
            raw=mapping,
        )


@dataclass(frozen=True)
class CodeObjectMetadata:
    """The whole metadata map: version, target ID, kernels, and the raw map for round trips."""

    version: tuple[int, ...]
    target: str | None
    kernels: tuple[KernelMetadata, ...]
    raw: dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def from_msgpack(data: bytes) -> CodeObjectMetadata:
        """Decode the note's descriptor; MetadataFormatError says what is malformed."""
        try:
            unpacked: object = _msgpack.unpackb(
                data,
                raw=False,
                strict_map_key=False,
                use_list=True,
            )
        except Exception as error:  # msgpack raises many types on corrupt input
            raise MetadataFormatError(
                f"malformed metadata msgpack ({type(error).__name__}: {error})"
            ) from error
        return CodeObjectMetadata.from_raw(unpacked)

    @staticmethod
    def from_raw(raw: object) -> CodeObjectMetadata:
        mapping = _as_map(raw, "metadata")
        version = mapping.get("amdhsa.version")
        if not isinstance(version, list) or not all(
            isinstance(part, int) and not isinstance(part, bool)
            for part in cast(list[object], version)
        ):
            raise MetadataFormatError(f"amdhsa.version is {version!r}, expected [major, minor]")
        kernels = mapping.get("amdhsa.kernels", [])
        if not isinstance(kernels, list):
            raise MetadataFormatError("amdhsa.kernels is not an array")
        return CodeObjectMetadata(
            version=tuple(cast(list[int], version)),
            target=_opt_str(mapping, "amdhsa.target", "metadata"),
            kernels=tuple(
                KernelMetadata.from_raw(kernel, i)
                for i, kernel in enumerate(cast(list[object], kernels))
            ),
            raw=mapping,
        )

    def to_msgpack(self) -> bytes:
        """Serialize the raw map (strings as msgpack str, as LLVM writes them)."""
        return bytes(_msgpack.packb(self.raw, use_bin_type=True))

    def kernel(self, name: str) -> KernelMetadata | None:
        """The first entry whose ``.name`` or ``.symbol`` (``name.kd``) is ``name``."""
        return self._by_name.get(name)

    @cached_property
    def _by_name(self) -> dict[str, KernelMetadata]:
        """Each entry by its names (the reader asks once per kernel: a library has
        hundreds)."""
        found: dict[str, KernelMetadata] = {}
        for kernel in self.kernels:
            for key in (kernel.name, kernel.symbol, kernel.symbol.removesuffix(".kd")):
                found.setdefault(key, kernel)
        return found
