"""A visitor's files, untrusted: each upload is size-capped, written into the page's own
private folder (removed when the page closes) and read there with
:func:`odds.core.data.only_files`, so a file naming another file (``weapons = "..."``,
``packs = [...]``, a comparison's ``base`` or ``*_from``) can name only what the same page
uploaded, never a file of the server's; nothing is written anywhere else. Messages name
the file as the visitor called it, never the server's folder."""
from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from odds.core.data import only_files
from odds.errors import ScenarioError

MOST_TOML = 1 * 2**20   # bytes of an uploaded scenario, comparison, roster or pack
MOST_LIST = 8 * 2**20   # bytes of an uploaded army list (a 2,000-point list is ~0.1-0.5 MB)
KINDS = ("scenario", "comparison", "roster", "pack", "army list")
_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


@dataclass
class Upload:
    """One uploaded file: its ``name`` (as the visitor called it), ``kind`` (one of
    :data:`KINDS`), ``ruleset`` and ``value``: a Scenario, a Roster (a roster or an army
    list), a comparison's path in the folder, or a pack's unit names."""

    name: str
    kind: str
    ruleset: str
    value: Any
    path: Path


class Folder:
    """A page's uploads, in a private temporary folder."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="odds-serve-")).resolve()
        self.uploads: dict[str, Upload] = {}

    def reading(self):
        """The context in which this page's files are read (only its own uploads)."""
        return only_files(u.path for u in self.uploads.values())

    def add(self, filename: str, data: bytes) -> Upload:
        """Read an uploaded file (a ScenarioError in the visitor's words if it is refused);
        a second file of the same name replaces the first."""
        name = _UNSAFE.sub("_", Path(str(filename)).name).strip(" .") or "upload"
        suffix = Path(name).suffix.lower()
        if suffix not in (".toml", ".ros", ".rosz"):
            raise ScenarioError("is not a file odds reads: upload a scenario, comparison, "
                                "roster or pack (.toml) or an exported army list (.ros, "
                                ".rosz)", name)
        most = MOST_TOML if suffix == ".toml" else MOST_LIST
        if len(data) > most:
            raise ScenarioError(f"is {len(data):,} bytes; an upload of this kind is at most "
                                f"{most:,}", name)
        path = self.root / name
        path.write_bytes(data)
        allowed = [u.path for n, u in self.uploads.items() if n != name] + [path]
        try:
            with only_files(allowed):
                upload = _read(name, path)
        except ScenarioError as error:
            path.unlink()
            self.uploads.pop(name, None)
            raise ScenarioError(self.shown(error.message), self.shown(error.source),
                                error.field) from None
        self.uploads[name] = upload
        return upload

    def shown(self, text: str) -> str:
        """``text`` with this folder's path taken out (files named as uploaded)."""
        return text.replace(f"{self.root}/", "").replace(str(self.root), "(uploads)")

    def of(self, kind: str, ruleset: str) -> list[Upload]:
        return [u for u in self.uploads.values() if u.kind == kind and u.ruleset == ruleset]

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _read(name: str, path: Path) -> Upload:
    from odds.analysis.comparison_file import load_comparison
    from odds.analysis.roster_file import as_roster
    from odds.analysis.roster_file import file_kind
    from odds.lists import import_list, is_army_list
    from odds.packs import read_pack
    from odds.core import schema as s
    from odds.core.data import read_toml
    from odds.scenario import load

    if is_army_list(path):
        imported = import_list(path)
        return Upload(name, "army list", imported.roster.ruleset, imported.roster, path)
    kind = file_kind(str(path))
    if kind == "scenario":
        scenario = load(path)
        return Upload(name, kind, scenario.ruleset, scenario, path)
    if kind == "comparison":
        return Upload(name, kind, load_comparison(path)["base"].ruleset, path, path)
    if kind == "roster":
        roster = as_roster(path)
        return Upload(name, kind, roster.ruleset, roster, path)
    ruleset = s.text(read_toml(path).get("ruleset"), s.Where(str(path), "ruleset"))
    units = read_pack(str(path), ruleset, s.Where(str(path), ""))
    return Upload(name, "pack", ruleset, sorted(units), path)
