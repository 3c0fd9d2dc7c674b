"""Mutation fuzzing: damaged real code objects parse or raise CodeObjectError, nothing else.

Real inputs (the committed code objects, and a bundle holding two of them) are damaged by
the fuzz campaigns' ELF mutators (``test/fuzz/mutators.py``): seeded byte flips, truncations,
and overwrites of the fields a parser trusts most (header offsets and counts, section and
program headers, symbol, note, relocation, dynamic and program-bits bodies), with boundary
values as well as random ones. The budget is a fixed number of
mutations per input, a few seconds in all; ``LUTHIER_FUZZ_MUTATIONS`` raises it for a longer
local run, and ``LUTHIER_FUZZ_SEED`` reproduces a CI failure.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from luthier.frontend.codeobj import CodeObjectError, read_code_object

from .conftest import COMMITTED, Compiled
from .test_bundle import make_bundle

MUTATIONS = int(os.environ.get("LUTHIER_FUZZ_MUTATIONS", "200"))
SEED = int(os.environ.get("LUTHIER_FUZZ_SEED", "20261122"))



def _mutators() -> ModuleType:
    """The campaign's mutators (``test/fuzz/mutators.py``, not a package: loaded by path),
    so this short run and the long campaigns damage inputs the same way."""
    path = Path(__file__).resolve().parents[3] / "fuzz" / "mutators.py"
    spec = importlib.util.spec_from_file_location("fuzz_mutators", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fuzz_mutators", module)
    spec.loader.exec_module(module)
    return module


MUTATORS = _mutators()


def _inputs() -> list[tuple[str, bytes]]:
    inputs = [(path.name, path.read_bytes()) for path in COMMITTED]
    by_name = dict(inputs)
    bundle = make_bundle(
        [
            ("host-x86_64-unknown-linux--", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a", by_name["vector_add.gfx90a.co"]),
            ("hipv4-amdgcn-amd-amdhsa--gfx942", by_name["vector_add.gfx942.co"]),
        ]
    )
    return [*inputs, ("two-target.bundle", bundle)]


def _exercise(data: bytes, name: str) -> str:
    """Parse and touch what a user would; 'ok' or 'error'. Any other exception escapes."""
    try:
        code_object = read_code_object(data, name=name, offload_arch="gfx90a")
    except CodeObjectError as error:
        assert "\n" not in str(error) and str(error).startswith(name)
        return "error"
    for kernel in code_object.kernels:
        assert kernel.descriptor.to_bytes()
        code_object.kernel(kernel.name)
    if code_object.metadata is not None:
        code_object.metadata.to_msgpack()
    return "ok"


INPUTS = _inputs()


@pytest.mark.parametrize(("name", "original"), INPUTS, ids=[name for name, _ in INPUTS])
def test_mutations_never_escape(name: str, original: bytes) -> None:
    _fuzz(name, original, MUTATIONS)


def test_compiled_mutations_never_escape(compiled: Compiled) -> None:
    """The same on an ET_REL with relocations and on a host object's .hip_fatbin."""
    for path in (compiled.relocatable, compiled.host):
        _fuzz(path.name, path.read_bytes(), MUTATIONS // 2)


def _fuzz(name: str, original: bytes, mutations: int) -> None:
    rng = random.Random(f"{SEED}:{name}")
    outcomes = {"ok": 0, "error": 0}
    started = time.perf_counter()
    for round_index in range(mutations):
        data = MUTATORS.mutate_elf(rng, original)
        try:
            outcomes[_exercise(data, name)] += 1
        except Exception as error:  # the failure this test exists to find
            dump = Path(os.environ.get("LUTHIER_FUZZ_DUMP", "/tmp")) / f"fuzz-{name}-{round_index}"
            dump.write_bytes(data)
            raise AssertionError(
                f"{name} mutation {round_index} (seed {SEED}) raised {type(error).__name__}: "
                f"{error}; input saved to {dump}"
            ) from error
    assert outcomes["error"] > 0, "the mutations never broke anything: the fuzzer is too weak"
    assert time.perf_counter() - started < 30
