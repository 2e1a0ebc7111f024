"""odds serve without a browser: the run queue, untrusted uploads, links, the trial budget
and errors placed under their controls (the pages themselves: tests/test_web_browser.py)."""
import threading
import time

import pytest

pytest.importorskip("panel")

import odds  # noqa: E402
from odds.cli import main  # noqa: E402
from odds.core.data import data_path  # noqa: E402
from odds.errors import ScenarioError  # noqa: E402
from odds.web import matchup  # noqa: E402
from odds.web.runs import Cancelled, Runs  # noqa: E402
from odds.web.uploads import MOST_TOML, Folder  # noqa: E402

MARINES = data_path("scenarios", "wh40k3_assault_marines_vs_boyz.toml")
BAD_WS = MARINES.read_text().replace("WS = 4, S = 4, T = 4, W = 1, I = 4, A = 1",
                                     "WS = 0, S = 4, T = 4, W = 1, I = 4, A = 1", 1)


def _wait(run, seconds=60):
    end = time.monotonic() + seconds
    while not run.finished and time.monotonic() < end:
        time.sleep(0.01)
    return run


def test_runs_are_played_one_at_a_time_in_order():
    runs, order, gate = Runs(), [], threading.Event()
    first = runs.submit(lambda watch: (gate.wait(5), order.append(1)))
    second = runs.submit(lambda watch: order.append(2))
    time.sleep(0.05)
    assert first.state == "running" and second.state == "queued"
    assert runs.ahead(second) == 1
    gate.set()
    _wait(second)
    assert order == [1, 2] and first.state == second.state == "done"


def test_a_queued_run_cancelled_is_never_played():
    runs, gate, played = Runs(), threading.Event(), []
    runs.submit(lambda watch: gate.wait(5))
    queued = runs.submit(lambda watch: played.append(1))
    queued.cancel()
    gate.set()
    time.sleep(0.1)
    assert queued.state == "cancelled" and played == []


def test_a_running_simulation_stops_at_its_next_chunk_when_cancelled():
    runs = Runs()

    def work(watch):
        return odds.simulate(MARINES, trials=50_000_000, progress=watch, quiet=True)

    run = runs.submit(work)
    while run.played == 0:
        time.sleep(0.01)
    run.cancel()
    assert _wait(run).state == "cancelled" and run.value is None
    assert run.played < 50_000_000


def test_a_bad_scenario_fails_in_words_and_a_bug_does_not_reach_the_page(capsys):
    runs = Runs()

    def refused(watch):
        raise ScenarioError("must be from 1 to 10, got 0", "mine.toml", "attacker.models[0].WS")

    failed = _wait(runs.submit(refused))
    assert failed.state == "failed"
    assert failed.error == "mine.toml: attacker.models[0].WS: must be from 1 to 10, got 0"
    broken = _wait(runs.submit(lambda watch: 1 / 0))
    assert broken.state == "failed"
    assert broken.error == "internal error (ZeroDivisionError: division by zero)"
    assert "Traceback" in capsys.readouterr().err  # on the server's stderr only


def test_watch_raises_cancelled_once_cancelled():
    run = Runs().submit(lambda watch: None)
    _wait(run)
    run.watch(5, 10)
    assert (run.played, run.planned) == (5, 10)
    run.cancel()
    with pytest.raises(Cancelled):
        run.watch(6, 10)


@pytest.fixture
def folder():
    folder = Folder()
    yield folder
    folder.close()


def test_an_uploaded_scenario_plays_as_the_file_does(folder):
    upload = folder.add("mine.toml", MARINES.read_bytes())
    assert (upload.kind, upload.ruleset) == ("scenario", "wh40k3")
    assert upload.value.to_dict() == odds.load(MARINES).to_dict() | {"name": upload.value.name}


@pytest.mark.parametrize("line, field", [
    ('weapons = "/etc/passwd"\n', "weapons"),
    ('weapons = "../../../../etc/hosts"\n', "weapons"),
    ('packs = ["/etc/hosts"]\n', "packs[0]"),
])
def test_an_upload_naming_a_server_file_is_refused_where_it_names_it(folder, line, field):
    with pytest.raises(ScenarioError) as refused:
        folder.add("sneaky.toml", (line + MARINES.read_text()).encode())
    assert refused.value.field == field
    assert "may not name other files" in refused.value.message
    assert str(folder.root) not in str(refused.value)  # the visitor's names only
    assert not (folder.root / "sneaky.toml").exists()


def test_a_comparison_may_name_only_an_upload_of_the_same_page(folder, tmp_path):
    comparison = b'base = "scenario.toml"\n[[variants]]\nname = "as is"\n'
    with pytest.raises(ScenarioError, match="base: names the file 'scenario.toml'"):
        folder.add("cmp.toml", comparison)
    folder.add("scenario.toml", MARINES.read_bytes())
    assert folder.add("cmp.toml", comparison).kind == "comparison"
    server_file = tmp_path / "server.toml"  # a file of the server's (bundled data may be read)
    server_file.write_bytes(MARINES.read_bytes())
    outside = b'base = "' + str(server_file).encode() + b'"\n[[variants]]\nname = "x"\n'
    with pytest.raises(ScenarioError, match="may not name other files"):
        folder.add("cmp2.toml", outside)


def test_an_uploaded_pack_is_found_by_a_scenario_of_the_page(folder):
    pack = (b'ruleset = "wh40k3"\n[[units]]\nname = "Big Boyz"\nsource = "mine"\n'
            b'[[units.models]]\nname = "Boy"\ncount = 30\n'
            b'profile = { WS = 4, S = 3, T = 4, W = 1, I = 2, A = 2, Ld = 7, Sv = 6 }\n'
            b'equipment = ["choppa"]\n')
    upload = folder.add("boyz.toml", pack)
    assert (upload.kind, upload.value) == ("pack", ["Big Boyz"])
    with folder.reading():
        scenario = matchup.picked("wh40k3", "Assault Squad", "Big Boyz", upload.path)
    assert scenario.defender.models[0].count == 30 and "packs" not in scenario.to_dict()


def test_uploads_are_size_capped_and_must_be_files_odds_reads(folder):
    with pytest.raises(ScenarioError, match=f"at most {MOST_TOML:,}"):
        folder.add("big.toml", b"#" * (MOST_TOML + 1))
    with pytest.raises(ScenarioError, match="is not a file odds reads"):
        folder.add("run.sh", b"rm -rf /")
    with pytest.raises(ScenarioError, match="is not UTF-8"):
        folder.add("latin.toml", b'name = "\xe9"')
    upload = folder.add("../../../etc/evil.toml", MARINES.read_bytes())
    assert upload.path.parent == folder.root  # the name without its folders


def test_an_uploaded_army_list_is_a_roster(folder):
    raw = data_path("army_lists", "wh40k3_orks_2000.rosz").read_bytes()
    upload = folder.add("orks.rosz", raw)
    assert (upload.kind, upload.ruleset, len(upload.value.units)) == ("army list", "wh40k3", 11)


def test_bad_field_of_an_upload_names_the_file_as_uploaded(folder):
    with pytest.raises(ScenarioError) as refused:
        folder.add("mine.toml", BAD_WS.encode())
    assert str(refused.value) == ("mine.toml: attacker.models[0].profile.WS: must be from 1 "
                                  "to 10, got 0")


def test_a_link_restores_the_matchup_and_a_bad_one_is_refused():
    scenario = odds.load(MARINES)
    assert matchup.from_link(matchup.link(scenario)).to_dict() == scenario.to_dict()
    for bad in ("", "not base64!", "AAAA", "x" * (matchup.MOST_LINK + 1)):
        with pytest.raises(ScenarioError, match="is not a link odds made"):
            matchup.from_link(bad)
    with_path = dict(scenario.to_dict(), weapons="/etc/passwd")  # a link made by hand
    import base64
    import zlib

    from odds.core.toml_text import dumps

    code = base64.urlsafe_b64encode(zlib.compress(dumps(with_path).encode())).decode()
    with pytest.raises(ScenarioError, match="may not name other files"):
        matchup.from_link(code.rstrip("="))


def test_the_trial_budget_bounds_every_request():
    assert matchup.trials_within(50_000, 1) == 50_000
    assert matchup.trials_within(1_000_000, 50) == matchup.MOST_FIGHTS // 50
    assert matchup.trials_within(10, 10 ** 9) == 1


def test_errors_are_placed_under_the_control_that_caused_them():
    scenario = odds.load(MARINES)
    from odds.analysis.knobs import default_knobs

    paths = {k.path: matchup.indexed(k.path, scenario.to_dict()) for k in default_knobs(scenario)}
    assert paths["defender.models[Boy].count"] == "defender.models[0].count"
    for change, blamed in (
            ({"attacker.models[Veteran Sergeant].profile.WS": 0},
             "attacker.models[Veteran Sergeant].profile.WS"),
            ({"attacker.models[Assault Marine].equipment": ["power fist", "lightning claw"]},
             "attacker.models[Assault Marine].count")):  # a group's error: its first control
        with pytest.raises(ScenarioError) as refused:
            matchup.changed(scenario, change)
        assert matchup.blamed(refused.value, paths) == blamed


def test_a_loadout_is_what_the_controls_changed():
    assert matchup.loadout({"a": 1, "b": [1]}, {"a": 1, "b": [1, 2]}) == {"b": [1, 2]}


def test_serve_refuses_a_bad_port(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port: must be a whole number from 0 to 65535" in capsys.readouterr().err


def test_a_progress_callable_sees_every_chunk_and_changes_no_number():
    seen = []
    watched = odds.simulate(MARINES, trials=600_000, progress=lambda d, t: seen.append((d, t)),
                            quiet=True)
    assert seen[-1] == (600_000, 600_000) and len(seen) == 3  # chunks of 2**18 fights
    assert watched.to_csv() == odds.simulate(MARINES, trials=600_000, quiet=True).to_csv()
    with pytest.raises(ScenarioError, match="progress"):
        odds.simulate(MARINES, trials=10, progress="yes")


def test_a_unit_of_an_uploaded_army_list_plays_as_its_round_robin_cell(folder):
    from odds.analysis.round_robin import cells

    lists = {name: data_path("army_lists", f"wh40k3_{name}") for name in
             ("orks_2000.rosz", "angels_2000.ros")}
    orks, angels = (folder.add(name, path.read_bytes()) for name, path in lists.items())
    with folder.reading():
        grid, _ = cells(angels.value, orks.value)
        first, other = angels.value.unit_names[0], orks.value.unit_names[1]
        scenario = matchup.picked("wh40k3", (angels.value, 0), (orks.value, 1))
        mixed = matchup.picked("wh40k3", "Assault Squad", (orks.value, 1))
    cell = grid[first, other].to_dict()
    for side in ("attacker", "defender"):
        assert scenario.to_dict()[side] == cell[side]
    assert scenario.name == f"{first} vs {other}"
    assert mixed.to_dict()["defender"] == cell["defender"]
