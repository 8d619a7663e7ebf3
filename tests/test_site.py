"""The strict build publishes the outputs the code printed, and refuses to publish a broken lesson."""

from __future__ import annotations

import contextvars
import html
import os
import re
import subprocess
from pathlib import Path
from unittest import mock

import commands
import pytest
from conftest import LANGUAGES, RAW_TEX, ROOT, STORE, build_site
from test_lesson import LESSON_AVERAGING, LESSON_CAUSAL

EXEC_FENCE = re.compile(r'^```python exec="on"(?P<opts>[^\n]*)\n--8<-- "(?P<path>[^"]+)"\n```', re.M)


def page_text(site: Path, page: str) -> str:
    """The visible text of a built page (tags stripped, entities decoded)."""
    raw = (site / page / "index.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def build_ja(project: Path, site: Path, *flags: str) -> subprocess.CompletedProcess:
    """`mkdocs build --strict <flags>` of the Japanese pages, where the faults below show, in this process."""
    return commands.mkdocs(project, "build", "--strict", *flags, "-d", str(site), env={"LESSON_LANG": "ja"})


def test_site_root_is_the_japanese_lesson(built_site):
    index = (built_site / "index.html").read_text(encoding="utf-8")
    assert '<html lang="ja"' in index
    assert "アテンション機構" in index


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("averaging", [LESSON_AVERAGING, "True"]),
        ("query-key", ["{'床': 0.1, '前': 0.0, '明': 0.9, '月': 1.0, '光': 0.8}",
                       "{'床': 0.01, '前': 0.0, '明': 0.3, '月': 0.5, '光': 0.18}"]),
        ("causal-mask", [LESSON_CAUSAL]),
        ("head", ["(5, 16)", "(5, 8)"]),
    ],
)
def test_published_pages_show_what_the_code_printed(built_site, page, expected):
    text = page_text(built_site, page)
    for needle in expected:
        assert needle in text, f"{page}: {needle!r} not published"


def test_no_page_publishes_a_traceback(built_site):
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "Traceback (most recent call last)" not in text, page


HIDDEN = re.compile(r"<(script|style|annotation)\b.*?</\1>", re.S)
"""What a reader never sees as text: scripts, styles and the TeX source MathML keeps in <annotation>."""
ELSEWHERE = re.compile(r"""(?:\bsrc=|<link\b[^>]*\bhref=|url\()["']?(?:https?:)?//""")
"""A script, image, frame, stylesheet, icon or font loaded from another origin (a link to one is not)."""


def test_a_cold_build_prints_only_log_lines(built_site_log):
    """What the editor's terminal shows of the README's build, every listing run (the session's store starts
    empty): MkDocs' and the plugins' log lines, and nothing the listings' libraries write to it themselves.
    (torch.profiler's C++ half writes two lines around every profile unless told not to: the runner does.)"""
    lines = built_site_log.splitlines()
    assert int(re.search(r"(\d+) blocks run", built_site_log)[1]) > 0, built_site_log[-3000:]  # it ran them
    stray = [line for line in lines if not re.match(r"(DEBUG|INFO|WARNING|ERROR) +- {2}\S", line)]
    assert not stray, f"{len(stray)} line(s) not of MkDocs' log, e.g. {stray[:3]}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_names_its_language_loads_nothing_from_elsewhere_and_shows_no_tex(built_site, lang):
    """What a visit in the browser records, read from the HTML of every page of a language (the browser tests
    visit every page of the source language, and a translation's pages with scripts or maths)."""
    root = built_site if lang == LANGUAGES[0] else built_site / lang
    others = set(LANGUAGES[1:]) if lang == LANGUAGES[0] else set()
    pages = [p for p in root.rglob("*.html")
             if not ({"assets", "search"} | others) & set(p.relative_to(root).parts[:1])]
    assert len(pages) > 10, f"{lang}: {len(pages)} pages"
    for path in pages:
        raw = path.read_text(encoding="utf-8")
        where = path.relative_to(built_site).as_posix()
        assert re.search(rf'<html lang="{lang}"', raw), f"{where}: not <html lang={lang!r}>"
        assert not ELSEWHERE.findall(raw), f"{where}: loads {ELSEWHERE.findall(raw)} from another origin"
        shown = html.unescape(re.sub(r"<[^>]+>", "", HIDDEN.sub("", raw)))
        assert not RAW_TEX.findall(shown), f"{where}: raw TeX {RAW_TEX.findall(shown)}"


def test_sqrt_d_table_is_a_real_table(built_site):
    raw = (built_site / "scaling" / "index.html").read_text(encoding="utf-8")
    table = re.search(r"<table>.*?</table>", raw, flags=re.S).group(0)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table)
    assert [cells[i] for i in range(0, len(cells), 5)] == ["16", "64", "256", "1024"]


def test_formula_is_mathml_rendered_at_build_time(built_site):
    raw = (built_site / "head" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<math[^>]*display=\"block\"", raw)
    assert "<msqrt>" in raw and "\\frac" not in raw


@pytest.mark.parametrize("lang", LANGUAGES)
def test_quiz_answers_are_folded(built_site, lang):
    raw = (built_site / ("" if lang == LANGUAGES[0] else lang) / "quiz" / "index.html").read_text(encoding="utf-8")
    assert raw.count('<details class="question">') == 3
    assert "<details class=\"question\" open" not in raw


def test_every_listing_runs_the_snippet_it_shows_and_names_it():
    """The title is what a failing block's error message names, so it must be the included file."""
    for page in (ROOT / "docs").glob("*/*.md"):
        for fence in EXEC_FENCE.finditer(page.read_text(encoding="utf-8")):
            assert f'title="{fence["path"]}"' in fence["opts"], f"{page}: exec block of {fence['path']}"


@pytest.mark.parametrize("flags", [[], ["-q"]], ids=["default", "quiet"])
def test_a_snippet_that_raises_fails_the_build_naming_the_file(copy, tmp_path, flags):
    """At every log level: the failure is an exception, not a warning that -q would hide."""
    snippet = copy / "snippets" / "scoring.py"
    with commands.edited(snippet, snippet.read_text(encoding="utf-8") + "\nraise RuntimeError('broken on purpose')\n"):
        line = len(snippet.read_text(encoding="utf-8").splitlines())  # the file's own line, section markers counted
        proc = build_ja(copy, tmp_path / "site", *flags)
    assert proc.returncode != 0
    expected = f"docs/ja/query-key.md: snippets/scoring.py:{line}: RuntimeError: broken on purpose"
    assert expected in proc.stderr, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    for page in (tmp_path / "site").rglob("*.html"):
        assert "broken on purpose" not in page.read_text(encoding="utf-8"), page


def test_a_missing_snippet_file_fails_the_build_naming_it(copy, tmp_path):
    with commands.edited(copy / "snippets" / "causal_mask.py", None):
        proc = build_site(copy, tmp_path / "site", env={"LESSON_LANG": "ja"}, check=False)
    assert proc.returncode != 0
    assert "snippets/causal_mask.py" in proc.stderr


@pytest.mark.parametrize("flags", [[], ["-q"]], ids=["default", "quiet"])
def test_a_broken_link_fails_the_build_naming_the_page(copy, tmp_path, flags):
    page = copy / "docs" / "ja" / "values.md"
    with commands.edited(page, page.read_text(encoding="utf-8") + "\n[次へ](no-such-page.md)\n"):
        proc = build_ja(copy, tmp_path / "site", *flags)
    assert proc.returncode != 0
    assert "values.md" in proc.stderr and "no-such-page.md" in proc.stderr


def test_unknown_language_code_is_a_clear_error(tmp_path):
    proc = build_site(ROOT, tmp_path / "site", env={"LESSON_LANG": "xx"}, check=False)
    assert proc.returncode != 0
    assert "unknown language code 'xx'" in proc.stderr


def test_serve_watches_snippets_and_package_sources():
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    watched = {Path(p).resolve() for p in config.watch}
    assert {ROOT / "snippets", ROOT / "src"} <= watched


def test_exec_state_does_not_leak_between_builds(copy, tmp_path, caplog):
    """A page that uses a name it never defines fails on the second build of one process too (as in serve, each
    build of a configuration loaded again): the two builds run in this process, in one context."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    page = copy / "docs" / "ja" / "values.md"
    original = page.read_text(encoding="utf-8")
    defines = '\n```python exec="on" session="leak"\nsecret = 42\n```\n'
    uses = '\n```python exec="on" session="leak"\nprint(secret)\n```\n'

    def build_with(text: str, site: str) -> None:
        with commands.edited(page, text):
            build(load_config(str(copy / "mkdocs.yml"), strict=True, site_dir=str(tmp_path / site)))

    env = {**dict.fromkeys(commands.VARIABLES, ""), "LESSON_LANG": "ja", "LESSON_STORE": str(STORE)}
    context = contextvars.copy_context()  # what the builds set there (their project, language) stays there
    with mock.patch.dict(os.environ, env):
        context.run(build_with, original + defines + uses, "a")
        with pytest.raises(Abort):
            context.run(build_with, original + uses, "b")
    assert "name 'secret' is not defined" in caplog.text


def test_headings_keep_japanese_slugs(built_site):
    raw = (built_site / "scaling" / "index.html").read_text(encoding="utf-8")
    assert 'id="なぜ次元の平方根で割るのか"' in raw


FIGURES = {"averaging": ["fig_avg_title"], "query-key": ["fig_scores_title"], "causal-mask": ["fig_causal_title"],
           "scaling": ["fig_scaling_title"], "head": ["fig_head_title"], "cost": ["fig_cost_title", "fig_memory_title"]}


@pytest.mark.parametrize("page", sorted(FIGURES))
def test_every_language_page_inlines_its_figures_as_svg_text_in_that_language(built_site, page):
    from attention_lesson.site import i18n

    for lang in LANGUAGES:
        raw = (built_site / ("" if lang == "ja" else lang) / page / "index.html").read_text(encoding="utf-8")
        figures = re.findall(r'<figure class="lesson-figure(?: lesson-heat)?"[^>]*>\s*'
                             r'(?:<div class="lesson-heat__plot"[^>]*>\s*)?(<svg.*?</svg>)', raw, flags=re.S)
        assert len(figures) == len(FIGURES[page]), f"{lang}/{page}"
        for svg, key in zip(figures, FIGURES[page], strict=True):
            texts = html.unescape(" ".join(re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)))
            assert i18n.ui(key, lang) in texts, f"{lang}/{page}: title {key} not drawn as <text>"
            assert "<image" not in svg and "http" not in svg.replace("http://www.w3.org", "")


def test_the_explorer_is_drawn_from_the_listings_tensors(built_site):
    """Section 2's explorer carries snippets/scoring.py's keys, characters and query, and exercise 1's query
    (snippets/exercise_1.py's), as the run of each computes them: its script holds no number of its own."""
    import contextlib
    import io
    import json
    import runpy

    from attention_lesson.site import i18n

    def run_listing(name: str) -> dict:
        with contextlib.redirect_stdout(io.StringIO()):
            return runpy.run_path(str(ROOT / "snippets" / f"{name}.py"))

    scoring, exercise = run_listing("scoring"), run_listing("exercise_1")
    for lang in LANGUAGES:
        raw = (built_site / ("" if lang == "ja" else lang) / "query-key" / "index.html").read_text(encoding="utf-8")
        data = json.loads(html.unescape(re.search(r'data-qk="([^"]+)"', raw)[1]))
        assert data["keys"] == scoring["k"].tolist(), lang
        assert data["labels"] == list(scoring["rounded"](scoring["scores"])), lang
        assert data["presets"] == [scoring["q_guang"].tolist(), exercise["q_place"].tolist()], lang
        assert data["text"]["live"] == i18n.ui("qk_live", lang), lang
        assert 1.0 in data["scales"] and 5.0 in data["scales"], lang


def test_a_second_checkout_sharing_the_virtual_environment_builds_its_own_files(copy, tmp_path):
    """A git worktree, or a CI that installs the package once: the copy's build, with the package as this
    virtual environment installed it (this process's: no src/ of the copy's on the path), in the copy's folder,
    publishes the copy's pages and runs the copy's snippets."""
    page = copy / "docs" / "ja" / "values.md"
    with commands.edited(page, page.read_text(encoding="utf-8") + "\n二つ目のチェックアウトにだけある一文。\n"):
        proc = build_ja(copy, tmp_path / "site", "-q")
        assert proc.returncode == 0, proc.stderr
        values = (tmp_path / "site" / "values" / "index.html").read_text("utf-8")
        assert "二つ目のチェックアウトにだけある一文。" in values

        snippet = copy / "snippets" / "causal_mask.py"
        with commands.edited(snippet, snippet.read_text(encoding="utf-8") + "raise RuntimeError('only in the copy')\n"):
            proc = build_ja(copy, tmp_path / "site", "-q")
    assert proc.returncode != 0 and "snippets/causal_mask.py:" in proc.stderr and "only in the copy" in proc.stderr
