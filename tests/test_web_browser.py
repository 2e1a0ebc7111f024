"""odds serve in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright pointed at it; nothing downloads a browser of its own). Every page is checked to
fetch nothing from another host. .ci/run installs Chromium; without it these are skipped."""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("panel")
sync_api = pytest.importorskip("playwright.sync_api")

import odds  # noqa: E402
from odds.cli import main  # noqa: E402
from odds.core.data import data_path  # noqa: E402

CHROMIUM = os.environ.get("ODDS_CHROMIUM") or shutil.which("chromium")
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install "
                                                          "chromium; .ci/run does)"),
              pytest.mark.xdist_group("browser")]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FIRST = 900_000  # ms: a first answer may compile a kernel (cold cache, busy machine)
MARINES = data_path("scenarios", "wh40k3_assault_marines_vs_boyz.toml")


@pytest.fixture(scope="module")
def address():
    server = subprocess.Popen([sys.executable, "-m", "odds", "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line, started = "", time.monotonic()
    while "serving at" not in line and time.monotonic() - started < 120:
        line = server.stdout.readline()
        if not line and server.poll() is not None:
            break
    found = re.search(r"http://[\d.]+:\d+/", line)
    assert found, f"odds serve did not start: {line!r}"
    yield found[0]
    server.terminate()
    server.wait(30)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def pages(browser, address):
    """New pages (each in a browser context of its own), every request of theirs recorded:
    none may go to another host."""
    contexts, requests = [], []

    def new(path: str = ""):
        context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                      accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.goto(address + path)
        page.get_by_role("button", name="Get the odds").wait_for(timeout=60_000)
        return page

    yield new
    for context in contexts:
        context.close()
    foreign = [url for url in requests if not url.startswith(address.rstrip("/"))
               and not url.startswith(("ws://127.0.0.1", "data:", "blob:"))]
    assert requests and not foreign


def _choose(page, label: str, option: str) -> None:
    page.get_by_label(label, exact=True).select_option(label=option)


def _checkbox(page, label: str):
    return page.locator("div.bk-label").filter(has_text=re.compile(f"^{re.escape(label)}$")) \
        .locator("xpath=preceding-sibling::input[@type='checkbox']")


def _tab(page, name: str) -> None:
    page.locator(".bk-tab").filter(has_text=re.compile(f"^{name}$")).click()


def _answer(page, timeout=FIRST) -> None:
    page.get_by_role("button", name="Get the odds").click()
    page.get_by_text(re.compile("^Done: ")).wait_for(timeout=timeout)


def _download(page, name: str, folder: Path) -> Path:
    with page.expect_download() as download:
        page.get_by_role("button", name=name).filter(visible=True).click()
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    return path


def _simulate_units(page, attacker: str, defender: str, shown: str | None = None) -> None:
    """Play two picked units, simulated at 10,000 fights (``shown``: the defender's name)."""
    _choose(page, "or pick the attacker from a pack or list", attacker)
    _choose(page, "or pick the defender from a pack or list", defender)
    page.get_by_role("button", name="Play these units").click()
    page.get_by_text(f"{attacker} vs {shown or defender}", exact=True).wait_for()
    _choose(page, "Answer", "simulate")
    _choose(page, "Fights", "10,000")
    _answer(page)


def test_a_matchup_of_pack_units_gives_the_numbers_of_odds_simulate(pages, tmp_path):
    page = pages()
    _simulate_units(page, "Assault Squad", "Ork Boyz")
    scenario = _download(page, "Download the scenario (TOML)", tmp_path)
    shown = _download(page, "Results (CSV)", tmp_path).read_text()
    cli = tmp_path / "cli.csv"
    assert main(["simulate", str(scenario), "--trials", "10000", "--csv",
                          str(cli)]) == 0
    assert shown == cli.read_text()  # bit for bit: same seed, same fights
    assert _download(page, "Charts (PNG)", tmp_path).read_bytes()[:4] == b"\x89PNG"
    link = page.get_by_label("Link to this matchup").input_value()
    assert "?m=" in link
    again = pages(link[link.index("?"):])  # the link restores the matchup on a new page
    again.get_by_text("Assault Squad vs Ork Boyz", exact=True).wait_for()


def test_a_comparison_of_loadouts_is_odds_compare(pages, tmp_path):
    page = pages()
    _checkbox(page, "pursue").uncheck()
    _tab(page, "Compare")
    page.get_by_role("button", name="Add the controls as a loadout").click()
    page.get_by_text("engagement.pursue").wait_for()
    page.get_by_role("button", name="Compare").click()
    page.get_by_text(re.compile("^Done: 2 cells")).wait_for(timeout=FIRST)
    expected = odds.compare(MARINES, {"as picked": {}, "loadout 1": {"engagement.pursue": False}},
                            method="auto", quiet=True)
    assert _download(page, "Results (CSV)", tmp_path).read_text() == expected.to_csv()
    assert "loadout 1" in page.locator("table").filter(visible=True).first.inner_text()


def test_an_upload_with_a_bad_field_shows_the_error_beside_it(pages, tmp_path):
    page = pages()
    _tab(page, "Upload")
    bad = tmp_path / "mine.toml"
    bad.write_text(MARINES.read_text().replace("WS = 4, S = 4, T = 4, W = 1, I = 4, A = 1",
                                               "WS = 0, S = 4, T = 4, W = 1, I = 4, A = 1", 1))
    page.locator("input[type=file]").set_input_files(bad)
    page.get_by_text("mine.toml: attacker.models[0].profile.WS: must be from 1 to 10, got 0"
                     ).wait_for()


def test_an_upload_naming_a_server_file_is_refused(pages, tmp_path):
    page = pages()
    _tab(page, "Upload")
    sneaky = tmp_path / "sneaky.toml"
    sneaky.write_text('weapons = "/etc/passwd"\n' + MARINES.read_text())
    page.locator("input[type=file]").set_input_files(sneaky)
    page.get_by_text(re.compile("sneaky.toml: weapons: names the file '/etc/passwd': a file "
                                "uploaded to odds serve may not name other files")).wait_for()
    good = tmp_path / "good.toml"
    good.write_text(MARINES.read_text().replace("count = 20", "count = 12"))
    page.locator("input[type=file]").set_input_files(good)
    page.get_by_text("good.toml: scenario (wh40k3)").wait_for()
    _tab(page, "Matchup")
    sync_api.expect(page.get_by_label("Start from a bundled or uploaded scenario")) \
        .to_have_value("good.toml (uploaded)")


def test_two_pages_at_once_get_their_own_answers(pages, tmp_path):
    one, two = pages(), pages()
    for page, count in ((one, "Ork Boyz"), (two, "Gretchin")):
        _choose(page, "or pick the attacker from a pack or list", "Assault Squad")
        _choose(page, "or pick the defender from a pack or list", count)
        page.get_by_role("button", name="Play these units").click()
        _choose(page, "Answer", "simulate")
        _choose(page, "Fights", "200,000")
    one.get_by_role("button", name="Get the odds").click()
    two.get_by_role("button", name="Get the odds").click()
    for page, defender in ((one, "Ork Boyz"), (two, "Gretchin")):
        page.get_by_text(re.compile("^Done: ")).wait_for(timeout=FIRST)
        shown = _download(page, "Results (CSV)", tmp_path).read_text()
        expected = odds.simulate({"ruleset": "wh40k3", "attacker": {"unit": "Assault Squad"},
                                  "defender": {"unit": defender}}, trials=200_000, quiet=True)
        assert shown == expected.to_csv()


def test_a_cancelled_run_stops_and_shows_nothing(pages):
    page = pages()
    _choose(page, "Fights", "1,000,000")
    _choose(page, "Answer", "simulate")
    _tab(page, "Round robin")
    _choose(page, "Mine", "Space Marine strike force")
    _choose(page, "Theirs", "Ork warband")
    _checkbox(page, "Both ways (theirs charging too)").check()
    page.get_by_role("button", name="Play the round robin").click()
    page.get_by_text(re.compile("^Playing: ")).wait_for(timeout=FIRST)
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text("Cancelled.", exact=True).wait_for(timeout=60_000)
    sync_api.expect(page.get_by_role("button", name="Results (CSV)").filter(visible=True)) \
        .to_be_disabled()


def test_a_unit_of_an_uploaded_army_list_can_be_picked(pages, tmp_path):
    page = pages()
    _tab(page, "Upload")
    page.locator("input[type=file]").set_input_files(
        data_path("army_lists", "wh40k3_orks_2000.rosz"))
    page.get_by_text("wh40k3_orks_2000.rosz: army list (wh40k3)").wait_for()
    _tab(page, "Matchup")
    _simulate_units(page, "Assault Squad", "Nobz (wh40k3_orks_2000.rosz)", "Nobz")
    scenario = _download(page, "Download the scenario (TOML)", tmp_path)
    assert odds.load(scenario).defender.name == "Nobz"
