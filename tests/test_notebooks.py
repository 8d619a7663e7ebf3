"""The exercise notebooks: executed at build time (once per change, then from the cache), published as pages in
every language with the executed .ipynb to download, and a failing cell stops the build naming the notebook."""

from __future__ import annotations

import html
import json
import re
import runpy

import jupytext
import pytest
import torch
from conftest import LANGUAGES, ROOT, SNIPPETS, build_site

DOCS = ROOT / "docs"
LANGS = LANGUAGES
NOTEBOOKS = sorted(p.stem for p in (DOCS / "ja" / "notebooks").glob("*.py"))
RUNS = re.compile(r"Runner \(ja\): (\d+) blocks run")


def prefix(lang: str) -> str:
    return "" if lang == "ja" else f"{lang}/"


def build_log(proc) -> str:
    return proc.stdout + proc.stderr


def test_every_language_has_the_same_notebooks():
    """The nav is shared by all languages, so every language folder holds the same notebook files."""
    assert NOTEBOOKS == ["exercise-1", "exercise-2", "exercise-3"]
    for lang in LANGS:
        assert sorted(p.stem for p in (DOCS / lang / "notebooks").glob("*.py")) == NOTEBOOKS, lang


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_page_shows_executed_outputs_and_links_its_ipynb(built_site, lang, name):
    page = built_site / prefix(lang) / "notebooks" / name / "index.html"
    raw = page.read_text(encoding="utf-8")
    assert 'class="jupyter-wrapper"' in raw, "not rendered by mkdocs-jupyter"
    assert "# %%" not in raw and "jupytext" not in raw, "raw jupytext source published"
    outputs = re.findall(r'jp-OutputArea-output[^>]*>\s*<pre>(.*?)</pre>', raw, flags=re.S)
    assert outputs, "no cell output on the page: the notebook was not executed"
    assert "Traceback" not in raw

    # The title is the notebook's own heading, in the page's language.
    source = (DOCS / lang / "notebooks" / f"{name}.py").read_text(encoding="utf-8")
    title = re.search(r"^# # (.+)$", source, flags=re.M)[1]
    assert f"<title>{html.escape(title, quote=False)} - " in raw

    link = re.search(r'<a href="([^"]+\.ipynb)"[^>]*\sdownload>', raw)
    assert link, "no download link"
    ipynb = page.parent / link[1]
    assert ipynb.is_file(), f"download link {link[1]} points at nothing"
    nb = json.loads(ipynb.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    assert code and all(cell["execution_count"] for cell in code), "the download is not the executed notebook"
    assert not any(o["output_type"] == "error" for cell in code for o in cell["outputs"])
    assert [cell["id"] for cell in nb["cells"]] == [f"cell-{i}" for i in range(1, len(nb["cells"]) + 1)]
    assert not any("execution" in cell["metadata"] for cell in nb["cells"]), "timings make the cache differ"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("lang", LANGS)
def test_exercise_answers_are_on_the_pages(built_site, lang):
    def text(name: str) -> str:
        raw = (built_site / prefix(lang) / "notebooks" / name / "index.html").read_text(encoding="utf-8")
        return html.unescape(re.sub(r"<[^>]+>", "", raw))

    # Exercise 1: with the query [0, 1] the weight moves to 床 and 前.
    assert "{'床': 0.29, '前': 0.32, '明': 0.13, '月': 0.12, '光': 0.14}" in text("exercise-1")
    # Exercise 2: the unmasked head equals SDPA (the notebook asserts it; the page shows the difference).
    diff = re.search(r"scaled_dot_product_attention\D*?(\d\.\de[-+]\d\d)", text("exercise-2"))
    assert diff and float(diff[1]) < 1e-6
    # Exercise 3: a time for every length, the ratio per doubling and the fitted exponent.
    ex3 = text("exercise-3")
    assert all(f"T={T:5d}" in ex3 for T in (1000, 2000, 4000))
    assert re.search(r"T 2000 → 4000\D+×\d+\.\d\n[^\n]*\s-?\d+\.\d\n", ex3)


def test_exercises_page_links_each_notebook_in_every_language(built_site):
    for lang in LANGS:
        raw = (built_site / prefix(lang) / "exercises" / "index.html").read_text(encoding="utf-8")
        article = raw[raw.index("<article"):raw.index("</article>")]
        for name in NOTEBOOKS:
            assert f'href="../notebooks/{name}/"' in article, f"{lang}: no link to {name}"


EXCERPT = re.compile(r'<div class="highlight"><span class="filename">([^<]+)</span>'
                     r"<pre><span></span><code>(.*?)</code></pre>", re.S)
# Each exercise shows lines of a page's listing (the page named first) and the same lines as the solution has them.
CHANGES = [("query-key", "snippets/scoring.py", "snippets/exercise_1.py"),
           ("head", "snippets/head.py", "snippets/exercise_2.py"),
           ("head", "snippets/head.py", "snippets/exercise_3.py")]


def _excerpt_lines(code_html: str) -> list[tuple[bool, str]]:
    """(highlighted, text) for each line of a highlighted excerpt."""
    lines = re.findall(r'(<span class="hll">)?(.*?)\n(?:</span>)?', code_html)
    return [(bool(hll), html.unescape(re.sub(r"<[^>]+>", "", text))) for hll, text in lines]


def test_exercises_page_shows_each_change_to_the_listing_in_every_language(built_site):
    """docs/*/exercises.md: for each exercise, the lines of the page's listing a reader changes, then the same
    lines in the solution, the changed ones highlighted, the comments in the page's language."""
    fences = {lang: [line.strip() for line in (DOCS / lang / "exercises.md").read_text(encoding="utf-8").splitlines()
                     if line.strip().startswith(("```", "--8<--"))]
              for lang in LANGS}
    assert all(f == fences["ja"] for f in fences.values()), "every language shows the same excerpts"
    for lang in LANGS:
        raw = (built_site / prefix(lang) / "exercises" / "index.html").read_text(encoding="utf-8")
        excerpts = EXCERPT.findall(raw)
        assert [name for name, _ in excerpts] == [name for _, *pair in CHANGES for name in pair], lang
        for (page, _, _), before, after in zip(CHANGES, excerpts[::2], excerpts[1::2], strict=True):
            old, new = _excerpt_lines(before[1]), _excerpt_lines(after[1])
            assert any(hll for hll, _ in old) and any(hll for hll, _ in new), f"{lang}: nothing highlighted"
            listing = html.unescape(re.sub(r"<[^>]+>", "", (built_site / prefix(lang) / page / "index.html")
                                           .read_text(encoding="utf-8")))
            for _, line in old:
                assert line in listing, f"{lang}: {line!r} is not a line of the {page} page's listing"
            if len(old) == len(new):  # the same lines: exactly the highlighted ones change
                for (hll_old, a), (hll_new, b) in zip(old, new, strict=True):
                    assert (a != b) == hll_old == hll_new, f"{lang}: {a!r} → {b!r}"
        if lang != "ja":
            code = "".join(text for _, body in excerpts for _, text in _excerpt_lines(body))
            assert not re.search(r"[\u3040-\u30ff]", code), f"{lang}: a Japanese comment in an excerpt: {code}"


def test_no_raw_notebook_source_is_published(built_site):
    assert not list(built_site.rglob("notebooks/*.py"))


def test_exercise_1_uses_the_lessons_keys():
    """Exercise 1 changes only the query: its keys must stay the keys snippets/scoring.py defines."""
    lesson_k = runpy.run_path(str(SNIPPETS / "scoring.py"))["k"]
    assert torch.equal(runpy.run_path(str(SNIPPETS / "exercise_1.py"))["k"], lesson_k)


def test_notebook_code_exists_once_in_snippets():
    """Every language's notebook only includes code from snippets/ (as the pages do); none carries a copy."""
    from attention_lesson.site.notebooks import INCLUDE

    for lang in LANGS:
        for name in NOTEBOOKS:
            nb = jupytext.read(DOCS / lang / "notebooks" / f"{name}.py")
            code = [line for c in nb.cells if c.cell_type == "code" for line in c.source.splitlines() if line.strip()]
            assert code and all(INCLUDE.match(line) for line in code), f"{lang}/{name}: {code}"


def test_included_code_is_in_the_executed_notebook_with_localized_comments(tmp_path):
    from attention_lesson.site.notebooks import expand_includes

    source = DOCS / "en" / "notebooks" / "exercise-2.py"
    from attention_lesson.site import i18n

    code = expand_includes('--8<-- "snippets/exercise_2.py:mask"', source)
    assert code.startswith("mask = torch.ones(T, T") and "# --8<--" not in code
    shown = i18n.localize_source(code, "en")  # what the English notebook's cell holds
    assert 'with the mask, as in "A complete attention head"' in shown
    with pytest.raises(Exception, match="exercise-2.py: includes snippets/nowhere.py"):
        expand_includes('--8<-- "snippets/nowhere.py"', source)


def test_a_language_without_a_notebook_gets_the_japanese_one(project_copy, monkeypatch):
    from attention_lesson.site import i18n, notebooks

    (project_copy / "docs" / "zh" / "notebooks" / "exercise-2.py").unlink()
    monkeypatch.setattr(i18n, "docs_dir", lambda: project_copy / "docs")
    found = notebooks.sources("zh")
    assert list(found) == [f"notebooks/{name}.py" for name in NOTEBOOKS]
    assert found["notebooks/exercise-2.py"].parent.parent.name == "ja"
    assert found["notebooks/exercise-1.py"].parent.parent.name == "zh"


def test_a_cell_that_raises_fails_the_build_naming_the_notebook(built_site, project_copy, tmp_path):
    notebook = project_copy / "docs" / "ja" / "notebooks" / "exercise-2.py"
    text = notebook.read_text(encoding="utf-8").rstrip("\n") + "\n\n# %%\nraise RuntimeError('broken on purpose')\n"
    notebook.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    cell = sum(line.startswith("# %%") for line in lines)
    line = max(i for i, text_line in enumerate(lines, 1) if text_line.startswith("# %%"))

    proc = build_site(project_copy, tmp_path / "site", env={"LESSON_LANG": "ja"}, check=False)
    assert proc.returncode != 0, "the build went through a failing notebook cell"
    expected = f"docs/ja/notebooks/exercise-2.py: cell {cell} (line {line}), line 1: RuntimeError: broken on purpose"
    assert expected in build_log(proc), build_log(proc)[-3000:]
    assert "Traceback" not in build_log(proc)
    assert not (tmp_path / "site" / "notebooks" / "exercise-2").exists()


def test_prose_rebuild_runs_nothing_and_a_snippet_change_runs_only_its_blocks(built_site, project_copy, tmp_path):
    """The store is shared with the session's build: a copy runs only what it changed."""
    env = {"LESSON_LANG": "ja"}
    values = project_copy / "docs" / "ja" / "values.md"
    values.write_text(values.read_text(encoding="utf-8") + "\nこの一文はテストで足しました。\n", encoding="utf-8")
    proc = build_site(project_copy, tmp_path / "prose", env=env)
    assert RUNS.findall(build_log(proc)) == ["0"], build_log(proc)[-2000:]
    assert "この一文はテストで足しました。" in (tmp_path / "prose" / "values" / "index.html").read_text("utf-8")

    snippet = project_copy / "snippets" / "scoring.py"
    snippet.write_text(snippet.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    proc = build_site(project_copy, tmp_path / "snippet", env=env)
    # the listing, then its figure once per language; no notebook and no other page runs again
    assert RUNS.findall(build_log(proc)) == [str(1 + len(LANGS))], build_log(proc)[-2000:]
