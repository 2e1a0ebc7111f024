"""`odds serve`: time from the command to a usable page, and from a click to an answer, in
headless Chromium (Debian's `chromium`, driven by Playwright); and a screenshot of each view.

    python benchmarks/bench_web.py [--passes K] [--shots FOLDER]

Warm numba cache (run the bundled wh40k3 scenario once first, exactly and by simulation).
Prints the machine, then (1) seconds from starting `odds serve` to its page drawn with its
controls (K times, a new server each), (2) seconds from clicking "Get the odds" to the
answer drawn for the bundled wh40k3 scenario (Assault Marines charge Ork Boyz), solved
exactly and simulated at 50,000 and 1,000,000 fights (median of K clicks on one page).
With --shots, one PNG per view (matchup, compare, round robin, upload) is written there
(the README's are in benchmarks/web/). The machine is shared: compare runs of one sitting.
"""
from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _serve():
    server = subprocess.Popen([sys.executable, "-m", "odds", "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = ""
    while "serving at" not in line:
        line = server.stdout.readline()
        if not line and server.poll() is not None:
            raise SystemExit("odds serve did not start")
    return server, re.search(r"http://[\d.]+:\d+/", line)[0]


def _choose(page, label, option):
    page.get_by_label(label, exact=True).select_option(label=option)


def _answer(page, button: str = "Get the odds") -> float:
    """Seconds from a click to its answer drawn (the last run's "Done" wiped first)."""
    done = page.get_by_text(re.compile("^Done: "))
    if done.count():
        done.evaluate("e => e.textContent = ''")
    start = time.perf_counter()
    page.get_by_role("button", name=button).click()
    done.wait_for(timeout=600_000)
    return time.perf_counter() - start


def _tab(page, name):
    page.locator(".bk-tab").filter(has_text=re.compile(f"^{name}$")).click()


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--shots", type=Path)
    args = parser.parse_args()
    print(common.machine_line())
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"),
                                             args=FLAGS)
        ready = []
        for _ in range(args.passes):
            start = time.perf_counter()
            server, address = _serve()
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(address)
            page.get_by_role("button", name="Get the odds").wait_for(timeout=120_000)
            ready.append(time.perf_counter() - start)
            page.close()
            if len(ready) < args.passes:
                server.terminate()
                server.wait()
        print(f"odds serve to a usable page: median {statistics.median(ready):.2f} s "
              f"({', '.join(f'{s:.2f}' for s in ready)})")
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(address)
        page.get_by_role("button", name="Get the odds").wait_for()
        for answer, fights in (("exact when it can, else simulate", "50,000"),
                               ("simulate", "50,000"), ("simulate", "1,000,000")):
            _choose(page, "Answer", answer)
            _choose(page, "Fights", fights)
            _answer(page)  # the first click of a kind loads what it needs
            clicks = [_answer(page) for _ in range(args.passes)]
            print(f"click to answer, {answer.split(',')[0]}, {fights} fights: median "
                  f"{statistics.median(clicks):.2f} s ({', '.join(f'{s:.2f}' for s in clicks)})")
        if args.shots:
            _screenshots(page, args.shots)
        server.terminate()
        browser.close()


def _screenshots(page, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _choose(page, "Answer", "exact when it can, else simulate")
    _answer(page)
    page.screenshot(path=folder / "matchup.png", full_page=True)
    _tab(page, "Compare")
    page.get_by_label("Loadout name").fill("as picked, again")
    page.get_by_role("button", name="Add the controls as a loadout").click()
    _answer(page, "Compare")
    page.screenshot(path=folder / "compare.png", full_page=True)
    _choose(page, "Answer", "simulate")
    _choose(page, "Fights", "10,000")
    _tab(page, "Round robin")
    _choose(page, "Theirs", "Ork warband")
    _answer(page, "Play the round robin")
    page.screenshot(path=folder / "round_robin.png", full_page=True)
    _tab(page, "Upload")
    bad = folder / "mine.toml"
    bad.write_text('weapons = "/etc/passwd"\n' + (common.ROOT / "data" / "scenarios" /
                   "wh40k3_assault_marines_vs_boyz.toml").read_text())
    page.locator("input[type=file]").set_input_files(bad)
    page.get_by_text(re.compile("may not name other files")).wait_for()
    bad.unlink()
    page.screenshot(path=folder / "upload.png", full_page=True)


if __name__ == "__main__":
    main()
