"""The bundled data tables (``data/`` in the source tree, installed as ``odds.data``)."""
from __future__ import annotations

import tomllib
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from odds.errors import ScenarioError

BOM = b"\xef\xbb\xbf"  # the UTF-8 byte-order mark
_READ: ContextVar[set[Path] | None] = ContextVar("odds_files_read", default=None)


@contextmanager
def files_read():
    """Inside the block, every file odds reads (scenarios, bases, weapons files, packs,
    rosters, ``*_from`` files) is added, resolved, to the set it yields: the inputs an
    output must not overwrite."""
    seen: set[Path] = set()
    token = _READ.set(seen)
    try:
        yield seen
    finally:
        _READ.reset(token)


def note_read(path: str | Path) -> None:
    """Count ``path`` as read by the run being recorded (:func:`files_read`), if any."""
    seen = _READ.get()
    if seen is not None:
        seen.add(Path(path).resolve())


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
    """A TOML file's data; a missing, unreadable, non-UTF-8 or malformed file is a ScenarioError.

    A UTF-8 byte-order mark at the start (some Windows editors write one) is skipped.
    """
    path = Path(path)
    note_read(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError("no such file", str(path)) from None
    except OSError as e:
        raise ScenarioError(f"cannot read: {e.strerror}", str(path)) from None
    try:
        text = raw.removeprefix(BOM).decode("utf-8")
    except UnicodeDecodeError as e:
        at = e.start + (len(BOM) if raw.startswith(BOM) else 0)
        line = raw.count(b"\n", 0, at) + 1
        raise ScenarioError(f"is not UTF-8 text: byte 0x{raw[at]:02x} at position {at} (line "
                            f"{line}); save the file as UTF-8", str(path)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"malformed TOML: {e}", str(path)) from None


def beside(source: str, path: str) -> Path:
    """``path`` made absolute: relative to the folder of the file ``source`` (or the working
    folder for data that is not a file, such as ``<python>``)."""
    path = Path(path).expanduser()
    folder = Path.cwd() if source.startswith("<") else Path(source).parent
    return (folder / path).resolve()


@lru_cache(maxsize=None)
def load_table(*parts: str) -> dict:
    """A bundled TOML table, read once."""
    return read_toml(data_path(*parts))
