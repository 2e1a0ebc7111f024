"""The notebooks run top to bottom without error, and still print what they were saved with.

Each notebook in notebooks/ is executed once, from the project root (as
``python tests/test_notebooks.py`` saves them, below), and then:

* no cell raised, a chart was drawn and a table was shown;
* every code cell prints the same numbers as its saved outputs, to the printed precision, so
  that a saved number, and the prose that quotes it, cannot go stale unnoticed. Compared are
  the numbers (regex ``NUMBER`` below) in the text of the cell's stdout (all its stream
  outputs joined), and in each ``execute_result`` / ``display_data`` output's ``text/plain``
  and ``text/html`` (the HTML with its ``<style>``/``<script>`` blocks and tags removed:
  a Result's or a RoundRobin's HTML holds tables that its ``text/plain`` one-liner does not).
  The token sequences must be equal, string for string: "64.5%" printed as "62.9%" fails,
  and so does a row that moved. Words are not compared, so relabelling a column does not
  fail the test (re-save anyway). Images and stderr (odds' "compiling the kernel" notice
  goes there, only when the numba cache is cold) are never compared.

Everything odds prints is seeded and deterministic. A cell whose numbers legitimately vary
from run to run (wall-clock timings, memory addresses, object ids, temporary paths) must be
tagged ``varies`` in its metadata (``"metadata": {"tags": ["varies"]}``; in Jupyter: View >
Cell Toolbar > Tags): its outputs are then not compared, and it still has to run. Tag only
cells whose printed numbers really are of that kind. No bundled notebook has such a cell.

To refresh the saved outputs after a change to odds (then re-read the prose: it quotes them):

    python tests/test_notebooks.py                       # every notebook, in place
    python tests/test_notebooks.py notebooks/X.ipynb     # some of them

This runs each notebook exactly as the test does (kernel python3, working directory the
project root) and saves it with its outputs, without timing metadata.
"""
import copy
import html
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
VARIES = "varies"   # the cell tag that exempts a cell's outputs from the comparison
REFRESH = "python tests/test_notebooks.py {}   (from the project root; then re-read its prose)"

# A printed number: an optional sign, digits with optional thousands separators, an optional
# fraction and exponent; or nan / inf. "97.5%" gives "97.5", "[-0.7," gives "-0.7", "100,000"
# stays one number.
NUMBER = re.compile(r"[-+]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
                    r"|(?<![A-Za-z])(?:nan|NaN|inf)(?![A-Za-z])")
_BLOCKS = re.compile(r"<(style|script)\b.*?</\1\s*>", re.S | re.I)
_TAGS = re.compile(r"<[^>]*>")
_ENDS_LINE = re.compile(r"</(tr|p|h\d|div)\b|<br\b", re.I)


def execute(notebook):
    """Run ``notebook`` in place, from the project root, as the test and the refresh do."""
    # From the project root, as the tests run, so the kernel shares their numba cache.
    NotebookClient(notebook, timeout=900, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    return notebook


def _html_text(markup):
    """The text of ``markup``, a line per table row or paragraph (for the failure message)."""
    markup = _BLOCKS.sub(" ", markup).replace("\n", " ")
    return html.unescape(_TAGS.sub(lambda tag: "\n" if _ENDS_LINE.match(tag.group()) else " ",
                                   markup))


def printed(cell):
    """{where: text} of a code cell's compared outputs: its stdout, and the text/plain and
    text/html of each rich output (numbered from 1 among them)."""
    texts = {"stdout": "".join(o.text for o in cell.outputs
                               if o.output_type == "stream" and o.name == "stdout")}
    rich = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
    for k, output in enumerate(rich, 1):
        data = output.get("data", {})
        if "text/plain" in data:
            texts[f"output {k} text/plain"] = data["text/plain"]
        if "text/html" in data:
            texts[f"output {k} text/html"] = _html_text(data["text/html"])
    return texts


def _line(text, position):
    """The line of ``text`` holding the number that starts at ``position``, trimmed."""
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    line = text[start:end if end >= 0 else len(text)]
    return " ".join(line.split())[:160]


def _first_line(cell):
    lines = [line for line in cell.source.splitlines() if line.strip()]
    return lines[0].strip()[:80] if lines else ""


def differences(saved, fresh):
    """One message per compared text of a cell whose numbers differ between the saved
    cell and the fresh one (both code cells with the same source)."""
    old, new = printed(saved), printed(fresh)
    messages = []
    for where in [*old, *(w for w in new if w not in old)]:
        a, b = old.get(where, ""), new.get(where, "")
        x, y = list(NUMBER.finditer(a)), list(NUMBER.finditer(b))
        if [m.group() for m in x] == [m.group() for m in y]:
            continue
        i = next((i for i, (m, n) in enumerate(zip(x, y)) if m.group() != n.group()),
                 min(len(x), len(y)))
        was = f"{x[i].group()!r}" if i < len(x) else "(no more numbers)"
        now = f"{y[i].group()!r}" if i < len(y) else "(no more numbers)"
        count = sum(m.group() != n.group() for m, n in zip(x, y)) + abs(len(x) - len(y))
        message = (f"{where}: number {i + 1} of {len(x)} saved / {len(y)} fresh: "
                   f"saved {was}, fresh {now} ({count} differ)")
        if i < len(x):
            message += f"\n        saved line: {_line(a, x[i].start())}"
        if i < len(y):
            message += f"\n        fresh line: {_line(b, y[i].start())}"
        if not saved.outputs:
            message += "\n        (the saved cell has no outputs: was it saved unexecuted?)"
        messages.append(message)
    return messages


def stale_cells(saved_notebook, fresh_notebook):
    """A report line per code cell whose fresh numbers differ from the saved ones."""
    report = []
    for index, (saved, fresh) in enumerate(zip(saved_notebook.cells, fresh_notebook.cells)):
        if saved.cell_type != "code" or VARIES in saved.metadata.get("tags", []):
            continue
        found = differences(saved, fresh)
        if found:
            report.append(f"  cell {index} (`{_first_line(saved)}`):\n    "
                          + "\n    ".join(found))
    return report


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path):
    saved = nbformat.read(path, as_version=4)
    notebook = execute(copy.deepcopy(saved))
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no chart was drawn"
    assert any("text/html" in o.get("data", {}) for o in outputs), "no table was shown"
    name = path.relative_to(ROOT).as_posix()
    stale = stale_cells(saved, notebook)
    if stale:
        pytest.fail(f"{name}: the saved outputs no longer match a fresh run (cells counted from "
                    f"0, markdown included; numbers counted from 1 in each output):\n"
                    + "\n".join(stale) + "\nIf the change is intended, refresh the saved "
                    "outputs and re-read the prose that quotes them:\n    "
                    + REFRESH.format(name), pytrace=False)


# --- refreshing the saved outputs ------------------------------------------------------------
_COMPILE_NOTICE = re.compile(r"^odds: compiling the .*\n?", re.M)   # a kernel or a solver


def refresh(path):
    """Execute the notebook at ``path`` as the test does and save it in place with its
    outputs, without per-cell timing metadata or odds' compile notices (they depend on the
    numba cache, not on the notebook). A cell that raises stops it: nothing is saved."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    execute(notebook)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr":
                output.text = _COMPILE_NOTICE.sub("", output.text)
        cell.outputs = [o for o in cell.outputs
                        if not (o.output_type == "stream" and o.name == "stderr" and not o.text)]
    nbformat.write(notebook, path)


if __name__ == "__main__":
    for path in [Path(p).resolve() for p in sys.argv[1:]] or NOTEBOOKS:
        print(f"executing {path.relative_to(ROOT).as_posix()} ...", flush=True)
        refresh(path)
