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
_ONLY: ContextVar[frozenset[Path] | None] = ContextVar("odds_only_files", default=None)
REFUSED = ("a file uploaded to odds serve may not name other files (the server's own): "
           "write its entries inline, or upload that file instead")


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


@contextmanager
def only_files(allowed):
    """Inside the block odds reads no file but those ``allowed`` and its bundled data: a
    file named by another (a weapons file, a pack, a base or ``*_from`` scenario) is refused
    where it is named (:func:`beside`), and any other read is refused by :func:`note_read`.
    For files from someone else: ``odds serve``'s uploads."""
    token = _ONLY.set(frozenset(Path(p).resolve() for p in allowed))
    try:
        yield
    finally:
        _ONLY.reset(token)


def _refused(path: Path) -> bool:
    allowed = _ONLY.get()
    return allowed is not None and path not in allowed \
        and not path.is_relative_to(data_path().resolve())


def note_read(path: str | Path) -> None:
    """Count ``path`` as read by the run being recorded (:func:`files_read`), if any; inside
    :func:`only_files` a file not allowed is a ScenarioError instead."""
    if _refused(Path(path).resolve()):
        raise ScenarioError(f"may not be read: {REFUSED}", str(path))
    seen = _READ.get()
    if seen is not None:
        seen.add(Path(path).resolve())


def data_path(*parts: str) -> Path:
    """Path of a bundled data file, e.g. ``data_path("wh40k3", "weapons.toml")``.

    An installed odds has it as the package ``odds.data``; a source checkout imported from its
    root (``python -m odds`` there) reads ``data/`` beside the ``odds`` folder.
    """
    return _root().joinpath(*parts)


@lru_cache(maxsize=1)
def _root() -> Path:
    """The folder of the bundled data (found once: importlib's lookup is slow)."""
    try:
        return Path(str(files("odds.data")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "data"


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


def beside(source: str, path: str, where) -> Path:
    """``path`` made absolute: relative to the folder of the file ``source`` (or the working
    folder for data that is not a file, such as ``<python>``); inside :func:`only_files` a
    file not allowed is an error at ``where`` (a :class:`~odds.core.schema.Where`)."""
    written = path
    folder = Path.cwd() if source.startswith("<") else Path(source).parent
    path = (folder / Path(path).expanduser()).resolve()
    if _refused(path):
        raise where.error(f"names the file {written!r}: {REFUSED}")
    return path


@lru_cache(maxsize=None)
def load_table(*parts: str) -> dict:
    """A bundled TOML table, read once."""
    return read_toml(data_path(*parts))
