"""Code a reader copies runs as copied: every titled listing of every page, in every language, and every
downloadable notebook, run in a fresh namespace of a Python where only torch is installed (``attention_lesson``
cannot be imported), print what the page or notebook shows. Timings are the one exception: they are compared as text
with the numbers left out."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, WARM_WORKS, Warm

from attention_lesson.site import i18n

LANGS = i18n.languages()
PAGES = ["averaging", "query-key", "causal-mask", "scaling", "head", "cost"]
NOTEBOOKS = sorted(p.stem for p in (ROOT / "docs" / "ja" / "notebooks").glob("*.py"))
TIMED_COLUMNS = {"cost": {1, 2}}  # the time columns of the cost table (the memory columns do not vary)

# A Python where importing attention_lesson fails, as on a reader's machine. It runs each piece of code it is
# given (a JSON file: a list of sources) in a fresh namespace, with torch's global state (printing options, random
# generator, grad mode, default dtype) reset to what a new interpreter has, and prints each one's output as a
# JSON line. One process per language instead of one per listing: `import torch` is most of a short listing's
# time.
READER = """
import contextlib, io, json, sys, traceback
class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "attention_lesson":
            raise ModuleNotFoundError(f"No module named {name!r} (a reader has torch only)")
sys.meta_path.insert(0, _NotInstalled())
import torch
fresh_rng, fresh_dtype = torch.get_rng_state(), torch.get_default_dtype()
with open(sys.argv[1], encoding="utf-8") as sources:
    codes = json.load(sources)
for number, code in enumerate(codes):
    torch.set_printoptions(profile="default")
    torch.set_rng_state(fresh_rng)
    torch.set_grad_enabled(True)
    torch.set_default_dtype(fresh_dtype)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"copied-{number}.py", "exec"), {"__name__": "__main__"})
        result = {"ok": True, "printed": out.getvalue()}
    except BaseException:
        result = {"ok": False, "printed": out.getvalue(), "error": traceback.format_exc()}
    print(json.dumps(result), flush=True)
"""


def run_as_reader(sources: list[str], folder: Path) -> list[dict]:
    """What each source prints when a reader runs it (see READER), in a folder of its own with no project in
    sight. The process comes from the warm Python (conftest.Warm), which has imported nothing of the project."""
    given = folder / "sources.json"
    given.write_text(json.dumps(sources), encoding="utf-8")
    args, env = [sys.executable, "-c", READER, str(given)], {"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"}
    proc = (Warm.run(args, folder, env) if WARM_WORKS else
            subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True))
    assert proc.returncode == 0, f"the reader's interpreter failed:\n{proc.stderr[-3000:]}"
    return [json.loads(line) for line in proc.stdout.splitlines()]


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


def notebook_cells(site: Path, lang: str, name: str) -> tuple[list[str], list[str]]:
    """A downloadable notebook's code cells and the text outputs stored with each."""
    path = site / ("" if lang == "ja" else lang) / "notebooks" / name / f"{name}.ipynb"
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    return (["".join(c["source"]) for c in cells],
            ["".join("".join(o.get("text", "")) for o in c.get("outputs", [])) for c in cells])


MARKER = "print('\\x00cell')\n"  # between a notebook's cells, to split its output back into cells


@pytest.fixture(scope="module")
def reader_runs(built_site, tmp_path_factory) -> dict[tuple[str, str], dict]:
    """Every listing and notebook, as a reader runs it: one process per language. A notebook runs top to bottom
    in one namespace, as Jupyter runs it."""
    work = {lang: [(page, listing(built_site, lang, page)[0]) for page in PAGES]
            + [(name, MARKER.join(code + "\n" for code in notebook_cells(built_site, lang, name)[0]))
               for name in NOTEBOOKS]
            for lang in LANGS}
    results = {lang: run_as_reader([code for _, code in work[lang]], tmp_path_factory.mktemp(f"reader-{lang}"))
               for lang in LANGS}
    return {(lang, what): result for lang in LANGS for (what, _), result in zip(work[lang], results[lang],
                                                                                strict=True)}


@pytest.mark.parametrize(("lang", "page"), CASES)
def test_listing_runs_as_copied_and_prints_what_the_page_shows(built_site, reader_runs, lang, page):
    run = reader_runs[(lang, page)]
    assert run["ok"], f"{lang}/{page}: the copied listing failed:\n{run['error']}"
    printed, shown = run["printed"], listing(built_site, lang, page)[1]
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
def test_notebook_runs_top_to_bottom_with_torch_only(built_site, reader_runs, lang, name):
    run = reader_runs[(lang, name)]
    assert run["ok"], f"{lang}/{name}.ipynb failed when run top to bottom:\n{run['error']}"
    printed = run["printed"].split("\x00cell\n")
    stored = notebook_cells(built_site, lang, name)[1]
    assert len(printed) == len(stored)
    for got, want in zip(printed, stored, strict=True):
        if name == "exercise-3":  # timings: the same lines, the numbers (and the padding of their width) left out
            got, want = re.sub(r" *\d+(\.\d+)?", " #", got), re.sub(r" *\d+(\.\d+)?", " #", want)
        assert got == want, f"{lang}/{name}: the notebook shows {want!r}, a reader's run prints {got!r}"
