"""Shared fixtures: paths of the bundled scenarios."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"


@pytest.fixture
def marines_vs_boyz() -> Path:
    return SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml"
