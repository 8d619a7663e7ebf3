"""Code a reader copies runs as copied: every titled listing of every page, in every language, and every
downloadable notebook, run in a fresh Python where only torch is installed (``attention_lesson`` cannot be
imported), print what the page or notebook shows. Timings are the one exception: they are compared as text
with the numbers left out."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import ROOT

from attention_lesson.site import i18n

LANGS = i18n.languages()
PAGES = ["averaging", "query-key", "causal-mask", "scaling", "head", "cost"]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "docs" / "ja" / "notebooks").glob("*.py"))
TIMED_COLUMNS = {"cost": {1, 2}}  # the time columns of the cost table (the memory columns do not vary)

# Run before the reader's code: any import of attention_lesson fails, as it would on a reader's machine.
NO_PACKAGE = """
import sys
class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "attention_lesson":
            raise ModuleNotFoundError(f"No module named {name!r} (a reader has torch only)")
sys.meta_path.insert(0, _NotInstalled())
code = sys.stdin.read()
exec(compile(code, "copied.py", "exec"), {"__name__": "__main__"})
"""


def run_as_reader(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", NO_PACKAGE], input=code, capture_output=True, text=True,
                          cwd=Path("/"), env={"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"})
    assert proc.returncode == 0, f"the copied code failed:\n{proc.stderr[-3000:]}"
    return proc.stdout


def text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def listing(site: Path, lang: str, page: str) -> tuple[str, str]:
    """The titled listing's code (what the copy button copies) and the output block under it."""
    raw = (site / ("" if lang == "ja" else lang) / page / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<span class="filename">snippets/[^<]+</span><pre>(.*?)</pre></div>\s*'
                      r'<div class="result">(.*?)</div>', raw, flags=re.S)
    assert match, f"{lang}/{page}: no titled listing followed by its output"
    return text(match[1]), match[2]


def table_cells(markdown_or_html: str) -> list[list[str]]:
    if "<table" in markdown_or_html:
        rows = re.findall(r"<tr>(.*?)</tr>", markdown_or_html, flags=re.S)
        return [[text(c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)] for row in rows]
    lines = [line for line in markdown_or_html.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for i, line in enumerate(lines) if i != 1]


CASES = [(lang, page) for lang in LANGS for page in PAGES]


@pytest.fixture(scope="module")
def reader_runs(built_site) -> dict[tuple[str, str], tuple[str, str]]:
    """Every listing run as a reader would, two at a time (the machine has two cores)."""
    listings = {case: listing(built_site, *case) for case in CASES}
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = dict(zip(listings, pool.map(lambda case: run_as_reader(listings[case][0]), listings),
                           strict=True))
    return {case: (outputs[case], listings[case][1]) for case in CASES}


@pytest.mark.parametrize(("lang", "page"), CASES)
def test_listing_runs_as_copied_and_prints_what_the_page_shows(reader_runs, lang, page):
    printed, shown = reader_runs[(lang, page)]
    if "<table" in shown:
        expected, got = table_cells(shown), table_cells(printed)
        assert len(got) == len(expected), f"{lang}/{page}: {got} vs {expected}"
        for want_row, got_row in zip(expected, got, strict=True):
            for column, (want, value) in enumerate(zip(want_row, got_row, strict=True)):
                if column not in TIMED_COLUMNS.get(page, set()):
                    assert value == want, f"{lang}/{page}: printed {got_row}, the page shows {want_row}"
    else:
        assert printed.strip() == text(shown).strip(), f"{lang}/{page}"
    if lang != i18n.DEFAULT_LANG:
        assert "「" not in printed and "の" not in printed, f"{lang}/{page}: printed Japanese text: {printed}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_top_to_bottom_with_torch_only(built_site, lang, name):
    path = built_site / ("" if lang == "ja" else lang) / "notebooks" / name / f"{name}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    marker = "print('\\x00cell')\n"  # between cells, to split the output back into cells
    code = marker.join("".join(c["source"]) + "\n" for c in cells)
    printed = run_as_reader(code).split("\x00cell\n")
    stored = ["".join("".join(o.get("text", "")) for o in c.get("outputs", [])) for c in cells]
    assert len(printed) == len(stored)
    for got, want in zip(printed, stored, strict=True):
        if name == "exercise-3":  # timings: the same lines, the numbers (and the padding of their width) left out
            got, want = re.sub(r" *\d+(\.\d+)?", " #", got), re.sub(r" *\d+(\.\d+)?", " #", want)
        assert got == want, f"{lang}/{name}: the notebook shows {want!r}, a reader's run prints {got!r}"
