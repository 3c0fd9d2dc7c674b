"""luthier-xdsl: instrument AMD GPU code objects from Python.

    import luthier

    module = luthier.lift("kernels.gfx90a.co")                  # amdgpu_mc IR
    data = luthier.instrument("kernels.gfx90a.co", "examples/hooks/instr_count.mlir")
    result = luthier.run(data, "vector_add", grid=4, block=256, args=[a, b, c, 1000])
    result.global_values("instr_count_wave")

The functions are those of :mod:`luthier.drivers.api` (see docs/python-api.md); hooks
written in Python use :class:`HookModule` (:mod:`luthier.frontend.hooks`). They are
imported on first use, so that ``import luthier.<subpackage>`` (every tool does) costs
nothing more.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from luthier.amdgpu_dialects.errors import LuthierError
    from luthier.drivers.api import instrument, instrument_library, lift, load_hooks, run
    from luthier.emulator.api import RunResult
    from luthier.frontend.hooks import HookModule

#: Each name this package gives, and the module that defines it.
_EXPORTS = {
    "LuthierError": "luthier.amdgpu_dialects.errors",
    "instrument": "luthier.drivers.api",
    "instrument_library": "luthier.drivers.api",
    "lift": "luthier.drivers.api",
    "load_hooks": "luthier.drivers.api",
    "run": "luthier.drivers.api",
    "RunResult": "luthier.emulator.api",
    "HookModule": "luthier.frontend.hooks",
}

__all__ = ["HookModule", "LuthierError", "RunResult", "instrument", "instrument_library", "lift",
           "load_hooks", "run"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'luthier' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
