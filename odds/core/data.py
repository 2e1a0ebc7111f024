"""The bundled data tables (``data/`` in the source tree, installed as ``odds.data``)."""
from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from odds.errors import ScenarioError


def data_path(*parts: str) -> Path:
    """Path of a bundled data file, e.g. ``data_path("wh40k3", "weapons.toml")``.

    An installed odds has it as the package ``odds.data``; a source checkout imported from its
    root (``python -m odds`` there) reads ``data/`` beside the ``odds`` folder.
    """
    try:
        root = Path(str(files("odds.data")))
    except ModuleNotFoundError:
        root = Path(__file__).resolve().parents[2] / "data"
    return root.joinpath(*parts)


def read_toml(path: str | Path) -> dict:
    """A TOML file's data; a missing, unreadable or malformed file is a ScenarioError."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ScenarioError("no such file", str(path)) from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"malformed TOML: {e}", str(path)) from None
    except OSError as e:
        raise ScenarioError(f"cannot read: {e.strerror}", str(path)) from None


@lru_cache(maxsize=None)
def load_table(*parts: str) -> dict:
    """A bundled TOML table, read once."""
    return read_toml(data_path(*parts))
