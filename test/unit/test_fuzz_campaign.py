"""A short fuzz campaign over every input surface (test/fuzz/campaign.py): mutants of real
inputs are accepted or refused in one line (exit 1, no output file, input untouched),
never a traceback, a hang, a memory blow-up or a crash. The long campaign runs on demand
(``python test/fuzz/campaign.py --count 10000``); ``LUTHIER_FUZZ_COUNT`` raises this one."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
COUNT = int(os.environ.get("LUTHIER_FUZZ_COUNT", "25"))


def _campaign() -> ModuleType:
    path = ROOT / "test" / "fuzz" / "campaign.py"
    spec = importlib.util.spec_from_file_location("fuzz_campaign", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_campaign"] = module
    spec.loader.exec_module(module)
    return module


def test_short_campaign_finds_nothing() -> None:
    campaign = _campaign()
    surfaces = [*campaign.SURFACES, "lifted-ir"]
    tallies = campaign.campaign(surfaces, COUNT, 20261126, 120.0, 4096, keep=True)
    print(campaign.table(tallies))
    assert set(tallies) == set(surfaces)
    for surface, tally in tallies.items():
        assert tally.runs == COUNT
        failures = {kind: tally.outcomes[kind] for kind in campaign.FAILURES
                    if tally.outcomes[kind]}
        assert not failures, f"{surface}: {failures} (reproducers in build/fuzz/{surface})"
        assert tally.outcomes["refused"], f"{surface}: no mutant was refused"
