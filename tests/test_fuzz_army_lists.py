"""Fuzz tests for exported army lists (`odds import`): seeded mutants of the test lists of
every game (cut short, bytes flipped, elements dropped, counts, costs, names and stat texts
replaced, zipped or not, the zip's own bytes flipped). Each run exits 0 with a roster that
reads back as the same units, or exits 2 with `odds: error: FILE: ...` (and, for entries
odds cannot play, one indented line per entry), never a traceback."""
from __future__ import annotations

import contextlib
import io
import random
import tomllib
import xml.etree.ElementTree as ET

import pytest

import army_lists as lists
from odds.analysis.roster_file import from_dict
from odds.cli import main

SOURCES = {"wh40k3": lists.blood_angels, "whfb8": lists.empire, "mordheim": lists.reiklanders}
PER_GAME = 200
WEIRD = ["", "-", "0", "-3", "99", "D6", "4+", "3+/5+", "nan", "1e309", "As User", "User x2",
         "'+1", "x", "∞", "٣", " 4 ", "4.5", "1000000", "<", "&amp;", "Melee", "Combat"]
NS = "{http://www.battlescribe.net/schema/rosterSchema}"


def _mutant(xml: bytes, rng: random.Random) -> tuple[bytes, str]:
    kind = rng.choice(["cut", "flip", "drop", "number", "cost", "name", "stat", "game",
                       "kind", "type"])
    if kind == "cut":
        at = rng.randrange(len(xml))
        return xml[:at], f"cut at {at}"
    if kind == "flip":
        data = bytearray(xml)
        for _ in range(rng.randint(1, 5)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data), "bytes flipped"
    root = ET.fromstring(xml)
    everything = list(root.iter())
    if kind == "drop":
        parents = [(p, c) for p in everything for c in p]
        parent, child = rng.choice(parents)
        parent.remove(child)
        what = f"dropped <{child.tag.removeprefix(NS)}>"
    elif kind in ("number", "cost"):
        tag, attr = ("selection", "number") if kind == "number" else ("cost", "value")
        found = [e for e in everything if e.tag == NS + tag]
        element = rng.choice(found)
        element.set(attr, rng.choice(["0", "-1", "2", "7", "1e9", "abc", "", "100001", "3.0",
                                      "inf", "nan"]))
        what = f"{tag} {attr}={element.get(attr)!r}"
    elif kind == "name":
        element = rng.choice([e for e in everything if e.get("name") is not None])
        element.set("name", rng.choice(["", " ", "Power Fist", "Sword", "\u00e9\u00e9", '"q"',
                                        "Rhino", "Sergeant", "Champion", "Musician"]))
        what = f"name {element.get('name')!r}"
    elif kind == "stat":
        element = rng.choice([e for e in everything if e.tag == NS + "characteristic"])
        element.text = rng.choice(WEIRD)
        what = f"{element.get('name')} = {element.text!r}"
    elif kind == "game":
        root.set("gameSystemName", rng.choice(["", "Mordheim", "Warhammer Fantasy 8th ed",
                                               "Warhammer 40k 3rd Edition", "Necromunda"]))
        what = f"game {root.get('gameSystemName')!r}"
    elif kind == "kind":
        element = rng.choice([e for e in everything if e.tag == NS + "profile"])
        element.set("typeName", rng.choice(["Unit", "Model", "Weapon", "Armour", "Vehicle",
                                            "H-t-h Weapon", "Abilities", "Magic", ""]))
        what = f"profile typeName {element.get('typeName')!r}"
    else:
        element = rng.choice([e for e in everything if e.tag == NS + "selection"])
        element.set("type", rng.choice(["unit", "model", "upgrade", "", "weird"]))
        what = f"selection type {element.get('type')!r}"
    return ET.tostring(root, encoding="utf-8"), what


@pytest.mark.parametrize("game", sorted(SOURCES))
def test_import_of_mutated_lists(game, tmp_path):
    rng = random.Random(f"army-lists-{game}")
    failures = []
    for i in range(PER_GAME):
        xml, what = _mutant(SOURCES[game](), rng)
        zipped = rng.random() < 0.3
        path = tmp_path / f"list{i}.{'rosz' if zipped else 'ros'}"
        data = lists.rosz(xml) if zipped else xml
        if zipped and rng.random() < 0.3:  # the zip's own bytes damaged (deflate, CRC, headers)
            damaged = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            data, what = bytes(damaged), f"{what}, zip bytes flipped"
        path.write_bytes(data)
        argv = ["import", str(path)] + ["--skip-unknown"] * (rng.random() < 0.6)
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
        except BaseException as e:  # a traceback for the user
            failures.append(f"{i} {what}: {type(e).__name__}: {e}")
            continue
        lines = err.getvalue().splitlines()
        if code == 0:
            try:
                roster = from_dict(tomllib.loads(out.getvalue()), str(path))
            except Exception as e:
                failures.append(f"{i} {what}: exit 0 but the roster does not read back: {e}")
                continue
            if not roster.units:
                failures.append(f"{i} {what}: exit 0 with no unit")
        elif code == 2:
            if out.getvalue():
                failures.append(f"{i} {what}: exit 2 with output on stdout")
            if not lines or not lines[0].startswith(f"odds: error: {path}: "):
                failures.append(f"{i} {what}: error does not name the file: {lines[:1]}")
            elif any(not line.startswith("  ") for line in lines[1:]):
                failures.append(f"{i} {what}: error lines are not one per entry: {lines}")
        else:
            failures.append(f"{i} {what}: exit {code}")
        if any("Traceback" in line for line in lines):
            failures.append(f"{i} {what}: traceback on stderr")
    assert not failures, "\n".join(failures)
