"""Handles to what a :class:`HookModule` declares: its globals and its hooks.

They carry the owning module so a handle used with another module is an error at the
line that uses it, not a dangling ``@name`` found by ``insert-hooks`` later.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.frontend.hooks.values import HookType


@dataclass(frozen=True)
class Global:
    """A tool global (``instr.global @name``): ``size`` bytes, zero at load, exported
    under ``name`` so the host reads it back."""

    name: str
    size: int
    owner: object = field(repr=False, compare=False)


@dataclass(frozen=True)
class Hook:
    """A built hook (``instr.hook @name``) and the types of its parameters."""

    name: str
    arg_types: tuple[HookType, ...]
    owner: object = field(repr=False, compare=False)
