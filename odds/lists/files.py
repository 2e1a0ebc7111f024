"""Reading an exported army list safely: a BattleScribe / New Recruit roster, ``.ros`` (XML)
or ``.rosz`` (a zip holding one ``.ros``).

The file is untrusted input. XML is parsed by ``defusedxml``, which refuses document types
and entities (no entity expansion, no external files); a zip is read in memory, never
written out, one member only, and its unzipped size is counted while it is read, not taken
from the archive's own header. Every problem is a :class:`~odds.errors.ScenarioError` naming
the file.
"""
from __future__ import annotations

import io
import lzma
import zipfile
import zlib
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from odds.core.data import note_read
from odds.errors import ScenarioError

MAX_FILE = 20 * 2**20      # bytes of the file as given (a 2,000-point list is ~0.1-0.5 MB)
MAX_XML = 64 * 2**20       # bytes of roster XML once unzipped
MAX_MEMBERS = 16           # files in a .rosz (BattleScribe writes one)
MAX_ELEMENTS = 500_000     # XML elements in a roster (a 2,000-point list has ~5,000-20,000)
SCHEMA = "http://www.battlescribe.net/schema/rosterSchema"
SUFFIXES = (".ros", ".rosz")


def is_army_list(path) -> bool:
    """Whether a path names an exported roster (by its suffix)."""
    return isinstance(path, (str, Path)) and Path(path).suffix.lower() in SUFFIXES


def read_roster_xml(path: str | Path) -> Element:
    """The ``<roster>`` element of an exported list, namespace removed from every tag."""
    path = Path(path)
    source = str(path)
    note_read(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE:
            raise ScenarioError(f"is {size:,} bytes; an exported army list is at most "
                                f"{MAX_FILE:,}", source)
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError("no such file", source) from None
    except IsADirectoryError:
        raise ScenarioError("is a folder, not an exported army list", source) from None
    except OSError as e:
        raise ScenarioError(f"cannot read: {e.strerror}", source) from None
    if raw.startswith(b"PK"):
        raw = _unzipped(raw, source)
    elif path.suffix.lower() == ".rosz":
        raise ScenarioError("is not a zip file: a .rosz is a zipped BattleScribe roster "
                            "(export it again, or name an unzipped roster .ros)", source)
    return _parsed(raw, source)


def _unzipped(raw: bytes, source: str) -> bytes:
    """The one ``.ros`` inside a zip, read at most :data:`MAX_XML` bytes."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        members = archive.infolist()
    except (zipfile.BadZipFile, EOFError, ValueError) as e:
        raise ScenarioError(f"is a damaged zip file ({e}): export the list again", source) \
            from None
    if len(members) > MAX_MEMBERS:
        raise ScenarioError(f"holds {len(members)} files; a .rosz holds one roster", source)
    rosters = [m for m in members if m.filename.lower().endswith(".ros")]
    if len(rosters) != 1:
        found = ", ".join(repr(m.filename) for m in members[:5]) or "nothing"
        what = "no .ros roster" if not rosters else f"{len(rosters)} .ros rosters"
        raise ScenarioError(f"is a zip with {what} in it (found {found}); a .rosz holds "
                            "exactly one", source)
    member = rosters[0]
    name = member.filename.replace("\\", "/")
    if name.startswith("/") or ".." in name.split("/") or ":" in name:
        raise ScenarioError(f"holds a file with a path out of the archive ({name!r}): not "
                            "an exported roster", source)
    try:
        with archive.open(member) as stream:
            data = stream.read(MAX_XML + 1)
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError,
            zlib.error, lzma.LZMAError, ValueError) as e:
        raise ScenarioError(f"cannot unzip {name!r} ({e}): export the list again", source) \
            from None
    if len(data) > MAX_XML:
        raise ScenarioError(f"unzips to more than {MAX_XML:,} bytes ({name!r}): not an "
                            "army list (a zip bomb?)", source)
    return data


def _parsed(raw: bytes, source: str) -> Element:
    try:
        root = fromstring(raw, forbid_dtd=True)
    except DefusedXmlException as e:
        raise ScenarioError(f"holds XML that odds refuses to read ({type(e).__name__}: "
                            "document types and entities are not allowed in a roster)",
                            source) from None
    except LookupError as e:  # <?xml encoding="..."?> names no encoding Python has
        raise ScenarioError(f"declares an encoding Python does not know ({e}): export the "
                            "list again", source) from None
    except ParseError as e:
        line, column = e.position
        raise ScenarioError(f"is not well-formed XML (line {line}, column {column}): a "
                            "truncated or damaged file? export the list again", source) \
            from None
    count = 0
    for element in root.iter():
        count += 1
        if count > MAX_ELEMENTS:
            raise ScenarioError(f"has more than {MAX_ELEMENTS:,} XML elements: not an army "
                                "list", source)
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = element.tag.split("}", 1)[1]
    if root.tag != "roster":
        raise ScenarioError(f"is XML but not a BattleScribe roster (its root is <{root.tag}>, "
                            "not <roster>): export the list from BattleScribe or New Recruit "
                            "as .ros or .rosz", source)
    return root
