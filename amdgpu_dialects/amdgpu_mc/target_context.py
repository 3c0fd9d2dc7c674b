"""Which target an ``amdgpu_mc`` instruction belongs to, while parsing and afterwards.

An instruction's text (``v_add_f32_e64 v0, v1, v2``) names its encoding only together with
a processor and a wave size (``vcc`` is an SGPR pair in wave64, ``vcc_lo`` one SGPR in
wave32), and both are properties of the enclosing ``amdgpu_mc.code_object``. The code
object's parser publishes its target while it parses its region; printers and verifiers
walk up to the code object.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

from luthier.amdgpu_dialects.target.subtarget import subtarget_for

CODE_OBJECT_OP_NAME = "amdgpu_mc.code_object"

#: A code object's target as the MC layer's ``load_target``/``printer_for``/... take it:
#: the processor and the wave size, None for the processor's default (so that one target
#: is one key, and one set of tables, however it was spelt).
TargetKey = tuple[str, int | None]

_parsing: ContextVar[TargetKey | None] = ContextVar("amdgpu_mc_parsing_target", default=None)


def target_key(processor: str, wavefront_size: int | None) -> TargetKey:
    """The key of ``processor`` in ``wavefront_size`` lanes (None: its default)."""
    if wavefront_size == subtarget_for(processor).default_wave_size:
        wavefront_size = None
    return processor, wavefront_size


@contextmanager
def parsing_target(processor: str, wavefront_size: int | None = None) -> Generator[None]:
    """Instructions parsed inside the block belong to ``processor`` in ``wavefront_size``
    lanes (None: the processor's default)."""
    token = _parsing.set(target_key(processor, wavefront_size))
    try:
        yield
    finally:
        _parsing.reset(token)


def current_parsing_target() -> TargetKey | None:
    return _parsing.get()


def processor_of_target_id(target_id: str) -> str:
    """``gfx90a`` of ``gfx90a:sramecc+:xnack-`` (or of ``amdgcn-amd-amdhsa--gfx90a``)."""
    return target_id.rsplit("--", 1)[-1].split(":", 1)[0]


def enclosing_target(op: Operation) -> TargetKey | None:
    """The target of the code object ``op`` is in, or None when it is in none."""
    current: Operation | None = op
    while current is not None:
        if current.name == CODE_OBJECT_OP_NAME:
            target = current.properties.get("target")
            if not isinstance(target, StringAttr):
                return None
            wave = current.properties.get("wavefront_size")
            processor = processor_of_target_id(target.data)
            if not isinstance(wave, IntegerAttr):
                return processor, None
            try:
                return target_key(processor, wave.value.data)
            except ValueError:  # an unknown processor: the code object's verifier says so
                return processor, None
        current = current.parent_op()
    return None


def enclosing_processor(op: Operation) -> str | None:
    """The processor of the code object ``op`` is in, or None when it is in none."""
    key = enclosing_target(op)
    return None if key is None else key[0]


def print_properties(printer: Printer, properties: Mapping[str, Attribute]) -> None:
    """``<{name = value, ...}>``, the properties syntax of MLIR's generic form."""
    printer.print_string("<")
    printer.print_attr_dict(properties)
    printer.print_string(">")
