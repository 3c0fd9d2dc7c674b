"""luthier's dialects by name, for contexts that load them on first use.

xdsl-opt, ``luthier-opt`` and the emulator register these factories; nothing is imported until
a dialect is parsed or printed. The passes are registered beside them, in
:mod:`luthier.passes.registry`, which also builds the ``xdsl.universe`` entry point.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect

from luthier.amdgpu_dialects import xdsl_fixes

xdsl_fixes.apply()  # every tool that parses MLIR looks these dialects up first


def _amdgpu_mc() -> Dialect:
    from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect

    return make_dialect()


def _instr() -> Dialect:
    from luthier.amdgpu_dialects.instr.dialect import INSTR

    return INSTR


LUTHIER_DIALECTS: dict[str, Callable[[], Dialect]] = {"amdgpu_mc": _amdgpu_mc, "instr": _instr}
