"""docs/emulator.md states the emulator's constants as the code has them.

Each documented figure is spelled here the way the page spells it, computed from the
constant in the code, so a change of either side fails this test; and a run checks that
the addresses the page promises are where buffers and globals really land.
"""

from __future__ import annotations

import numpy as np
import pytest

from luthier.emulator import api, memory
from luthier.emulator.api import run_kernel

from .common import ROOT, program

#: The page with its line breaks and indentation collapsed to single spaces (it is wrapped).
DOC = " ".join((ROOT / "docs" / "emulator.md").read_text().split())


def _address(value: int) -> str:
    """``0x1000_0000_0000``: hex in groups of four digits, as the page writes addresses."""
    digits = f"{value:x}"
    groups = [digits[max(0, end - 4):end] for end in range(len(digits), 0, -4)]
    return "0x" + "_".join(reversed(groups))


def _words(count: int) -> str:
    """``50 million``, ``1 billion``."""
    for size, word in ((10**9, "billion"), (10**6, "million")):
        if count % size == 0:
            return f"{count // size} {word}"
    return f"{count:,}"


@pytest.mark.parametrize(("spelling", "meaning"), [
    (_address(memory.GLOBAL_BASE), "base of the launch's buffers"),
    (_address(memory.TEXT_BASE), "base of the text and globals"),
    (f"{memory.GUARD // 1024} KiB unmapped", "guard after each buffer"),
    (f"`{memory.SHARED_APERTURE_HI:#x}`", "shared aperture (high half)"),
    (f"`{memory.PRIVATE_APERTURE_HI:#x}`", "private aperture (high half)"),
    (f"default {_words(api.MAX_INSTRUCTIONS)}", "per-wave instruction limit"),
    (f"default {_words(api.MAX_LAUNCH_INSTRUCTIONS)}", "launch instruction budget"),
    (f"{api.DYNAMIC_STACK_BYTES // 1024} KiB for kernels with a dynamic stack",
     "default scratch of a dynamic stack"),
    (f"more than {api.MAX_LDS_BYTES // 1024} KiB of LDS", "LDS a workgroup has"),
    (f"more than {api.MAX_SCRATCH_PER_LANE:,} scratch bytes per lane", "scratch per lane"),
    (f"at most {api.MAX_WORKGROUP_ITEMS})", "work-items per workgroup"),
])
def test_documented_constant(spelling: str, meaning: str) -> None:
    assert " ".join(spelling.split()) in DOC, \
        f"docs/emulator.md does not say {spelling!r} ({meaning})"


def test_buffers_and_globals_land_where_the_page_says() -> None:
    out = np.zeros(64, np.float32)
    result = run_kernel(program("globals", "gfx90a"), "read_global", 1, 64,
                        [np.zeros(64, np.float32), out])
    assert result.memory is not None
    bases = {buffer.name: buffer.base for buffer in result.memory.buffers}
    assert bases["arg0"] == memory.GLOBAL_BASE
    assert all(memory.GLOBAL_BASE <= bases[name] < memory.TEXT_BASE
               for name in ("arg1", "queue", "kernarg", "dispatch_packet"))
    assert memory.TEXT_BASE < bases["scale_factor"] < memory.TEXT_BASE + (1 << 32)
