"""One ISA, decoder, printer, encoder and parser per (processor, wave size), however a caller
spells the arguments: two objects for one target would make a monkeypatch, a memo or an
identity comparison of instruction definitions see only one of them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.asm_parser import parser_for
from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

FACTORIES: list[Callable[..., object]] = [load_target, decoder_for, printer_for, encoder_for,
                                          parser_for]


@pytest.mark.parametrize("factory", FACTORIES, ids=lambda factory: factory.__name__)
def test_one_object_per_target_and_wave_size(factory: Callable[..., object]) -> None:
    default = factory("gfx90a")
    assert factory("gfx90a", None) is default
    assert factory("gfx90a", wavefront_size=None) is default
    assert factory("gfx1100", 64) is factory("gfx1100", wavefront_size=64)
    assert factory("gfx1100", 64) is not factory("gfx1100")
