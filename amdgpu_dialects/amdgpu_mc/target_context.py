"""Which target an ``amdgpu_mc`` instruction belongs to, while parsing and afterwards.

An instruction's text (``v_add_f32_e64 v0, v1, v2``) names its encoding only together with
a processor, and the processor is a property of the enclosing ``amdgpu_mc.code_object``. The
code object's parser publishes its target while it parses its region; printers and verifiers
walk up to the code object.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

CODE_OBJECT_OP_NAME = "amdgpu_mc.code_object"

_parsing: ContextVar[str | None] = ContextVar("amdgpu_mc_parsing_target", default=None)


@contextmanager
def parsing_target(processor: str) -> Generator[None]:
    """Instructions parsed inside the block belong to ``processor``."""
    token = _parsing.set(processor)
    try:
        yield
    finally:
        _parsing.reset(token)


def current_parsing_target() -> str | None:
    return _parsing.get()


def processor_of_target_id(target_id: str) -> str:
    """``gfx90a`` of ``gfx90a:sramecc+:xnack-`` (or of ``amdgcn-amd-amdhsa--gfx90a``)."""
    return target_id.rsplit("--", 1)[-1].split(":", 1)[0]


def enclosing_processor(op: Operation) -> str | None:
    """The processor of the code object ``op`` is in, or None when it is in none."""
    current: Operation | None = op
    while current is not None:
        if current.name == CODE_OBJECT_OP_NAME:
            target = current.properties.get("target")
            return processor_of_target_id(target.data) if isinstance(target, StringAttr) \
                else None
        current = current.parent_op()
    return None


def print_properties(printer: Printer, properties: Mapping[str, Attribute]) -> None:
    """``<{name = value, ...}>``, the properties syntax of MLIR's generic form."""
    printer.print_string("<")
    printer.print_attr_dict(properties)
    printer.print_string(">")
