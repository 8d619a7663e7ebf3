"""A hostile translator and a hostile cache (issue "Translations are text").

A language folder is text: every executable fence, include, notebook code cell, HTML, attribute list, link
elsewhere or front matter in a translated page fails the translators' check and the strict build, one line each
naming file:line, before any code runs. Every value of a strings.yml is text wherever it lands. The store holds
data: a damaged entry is ignored and its session runs again.

Helpers of this module: :func:`copy` (conftest's copy_project leaves out src/attention_lesson/site/, whose
theme the copy's mkdocs.yml names), :func:`tiny` (a copy whose only page is one of this module's own),
:class:`Markup` (what a browser would run in an HTML text).
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import os
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from conftest import CHECK, ROOT, assert_ok, build, copy_project, languages, pages, run, tiny, traceback_lines

SITE_MODULES = ROOT / "src" / "attention_lesson" / "site"
TRANSLATED = languages()[1:]
PROG = "python -m attention_lesson.site.translations: error: "
EXEC_FENCE = re.compile(r'^\s*(`{3,}|~{3,})\s*\{?\.?python\b.*exec="on"')
TARGET = next((code for code in TRANSLATED if any(EXEC_FENCE.match(row) for page in pages(code) for row in
                                                   (ROOT / "docs" / code / page).read_text("utf-8").splitlines())), "")
"""The first language with a translated page that runs code (one just started has none yet)."""
needs_translation = pytest.mark.skipif(not TARGET, reason="the tree has no language folder besides Japanese")





def naming(text: str, where: str) -> list[str]:
    """The lines of `text` that name `where` (file:line, or a file)."""
    return [line for line in text.splitlines() if re.search(rf"(^|\s){re.escape(where)}(:|$)", line)]


def published_pages(site: Path) -> list[Path]:
    return list(site.rglob("*.html")) if site.exists() else []


class Markup(HTMLParser):
    """What a browser would run in an HTML text: script elements, event attributes, javascript: addresses."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.text: list[str] = []  # text outside <pre>, <code> and <script>
        self._depth, self._script = 0, False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._depth += tag in ("pre", "code")
        self._script = tag == "script"
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            if (value or "").strip().lower().startswith("javascript:") and name in ("href", "src", "action",
                                                                                     "xlink:href", "formaction"):
                self.found.append(f'<{tag} {name}="{value}">')

    def handle_endtag(self, tag: str) -> None:
        self._depth -= tag in ("pre", "code") and self._depth > 0
        self._script = False

    def handle_data(self, data: str) -> None:
        if self._script and "alert(1)" in data:
            self.found.append(f"<script>{data[:60]}")
        elif not self._script and not self._depth:
            self.text.append(data)


# -- a hostile translated page --------------------------------------------------------------------------------

KINDS = ["front-matter", "changed-exec-fence", "admonition-fence", "list-item-fence", "tilde-fence",
         "brace-fence", "new-exec-fence", "include", "include-dotgit", "include-long", "include-block",
         "raw-html", "attribute-list", "javascript-link", "notebook-code-cell"]


def _hostile_page(text: str, code: str) -> tuple[str, dict[str, int]]:
    rows = ["---", "title: x", "---", "", *text.splitlines()]
    named = {"front-matter": 1}
    fence = next(n for n, row in enumerate(rows) if EXEC_FENCE.match(row))
    rows.insert(fence + 1, code)
    named["changed-exec-fence"] = fence + 1

    def add(kind: str, block: list[str], at: int = 0) -> None:
        rows.append("")
        named[kind] = len(rows) + 1 + at
        rows.extend(block)

    add("admonition-fence", ['!!! note "n"', "", '    ```python exec="on"', f"    {code}", "    ```"], at=2)
    add("list-item-fence", ["- item", "", '    ~~~python exec="on"', f"    {code}", "    ~~~"], at=2)
    add("tilde-fence", ['~~~~ python exec="1" session="x"', code, "~~~~"])
    add("brace-fence", ['```{.python exec="on"}', code, "```"])
    add("new-exec-fence", ['```python exec="on"', code, "```"])
    add("include", ['--8<-- "evil.md"'])
    add("include-dotgit", ['-8<- ".git/config"'])
    add("include-long", ['---8<--- "evil.md"'])
    add("include-block", ["--8<--", "evil.md", "--8<--"])
    add("raw-html", ["<script>alert(1)</script>"])
    add("attribute-list", ['Some text {: onclick="alert(1)" }'])
    add("javascript-link", ["[click](javascript:alert(1))"])
    return "\n".join(rows) + "\n", named


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A translated page and notebook with code in every form; the check and the strict build of that copy."""
    if not TARGET:
        pytest.skip("the tree has no language folder besides Japanese")
    tmp = tmp_path_factory.mktemp("hostile")
    project = copy_project(tmp)
    marker = tmp / "pwned-by-a-translation"
    code = f"open({str(marker)!r}, 'w').close()"
    page = next(p for p in pages(TARGET) if any(EXEC_FENCE.match(row) for row in
                                               (project / "docs" / TARGET / p).read_text("utf-8").splitlines()))
    path = project / "docs" / TARGET / page
    text, lines = _hostile_page(path.read_text("utf-8"), code)
    path.write_text(text, encoding="utf-8")
    where = {kind: f"docs/{TARGET}/{page}:{line}" for kind, line in lines.items()}
    (project / "evil.md").write_text(f'```python exec="on"\n{code}\n```\n\n<script>alert(1)</script>\n', "utf-8")
    books = project / "docs" / TARGET / "notebooks"
    if not any(books.glob("*.py")):  # a language just begun has none yet: it starts one from the Japanese one
        books.mkdir(exist_ok=True)
        first = sorted((project / "docs" / "ja" / "notebooks").glob("*.py"))[0]
        shutil.copy(first, books / first.name)
    notebook = sorted(books.glob("*.py"))[0]
    rows = notebook.read_text("utf-8").splitlines()
    cell = next(n for n, row in enumerate(rows) if row.startswith("# %%") and "[markdown]" not in row)
    rows.insert(cell + 1, code)
    notebook.write_text("\n".join(rows) + "\n", encoding="utf-8")
    where["notebook-code-cell"] = f"docs/{TARGET}/notebooks/{notebook.name}:{cell + 1}"
    site = tmp / "out" / "site"
    return {"where": where, "marker": marker, "site": site, "check": run(CHECK, cwd=project),
            "build": build(project, site)}


@needs_translation
def test_check_refuses_a_hostile_translation_with_exit_2(hostile: dict) -> None:
    check = hostile["check"]
    assert check.returncode == 2, check.stdout + check.stderr
    assert not traceback_lines(check), check.stderr
    assert all(line.startswith(PROG) for line in check.stderr.splitlines()), check.stderr


@needs_translation
@pytest.mark.parametrize("kind", KINDS, ids=KINDS)
def test_check_names_each_hostile_line(hostile: dict, kind: str) -> None:
    where = hostile["where"][kind]
    assert len(naming(hostile["check"].stderr, where)) == 1, f"{where} ({kind}):\n{hostile['check'].stderr}"


@needs_translation
@pytest.mark.parametrize("kind", KINDS, ids=KINDS)
def test_build_names_each_hostile_line(hostile: dict, kind: str) -> None:
    proc, where = hostile["build"], hostile["where"][kind]
    assert proc.returncode != 0
    assert len(naming(proc.stderr, where)) == 1, f"{where} ({kind}):\n{proc.stderr}"


@needs_translation
def test_hostile_translation_runs_nothing_and_publishes_nothing(hostile: dict) -> None:
    proc = hostile["build"]
    assert proc.returncode != 0
    assert not traceback_lines(proc), proc.stderr
    assert not hostile["marker"].exists(), "a translation's code ran"
    assert not published_pages(hostile["site"])
    assert not list(hostile["site"].parent.glob(".site-*"))


# -- hostile markup: one table of cases, checked where the site is published ---------------------------------
# Each case is what a translator might write to put markup, files or deceiving text on the site, in the forms
# a second reader of Markdown has got wrong. (where, text): "page" lines go at the end of a translated page,
# "first-line" before its first line, "notebook-head" before a notebook's first cell, "notebook" into its first
# markdown cell, "file" and "link" make a file or a symlink in a language folder, "strings" adds a line to its
# strings.yml. Every case fails the check or the strict build naming its file, and every page case fails the
# check of the published pages alone, with the source check switched off.

CORPUS = {
    "attr-heading": ("page", "## T { x onclick=alert(1) }"),
    "attr-image": ("page", "![x](https://example.org/x.png){ x onerror=alert(1) }"),
    "attr-link": ("page", "[a](https://example.org){ x href=javascript:alert(1) }"),
    "attr-bare-first": ("page", "[a](https://example.org){ title href=//example.org/x }"),
    "link-other-site": ("page", "[a](//example.org/x)"),
    "link-backslash": ("page", "[a](/\\example.org/x)"),
    "attr-escape": ("page", '## T { x onclick="alert(1)\x1b[2J::error::x" }'),
    "code-span-double": ("page", "``<img src=x onerror=alert(1)>```"),
    "code-span-escaped": ("page", "\\`<img src=x onerror=alert(1)>`"),
    "fence-indented": ("page", "    ```\n<img src=x onerror=alert(1)>\n    ```"),
    "fence-longer-close": ("page", "```\nx\n````\n<img src=x onerror=alert(1)>\n```"),
    "fence-vertical-tab": ("page", "\x0b~~~\n<img src=x onerror=alert(1)>\n~~~"),
    "empty-reference": ("page", "[]\n\n[]: javascript:alert(1)"),
    "entity-scheme": ("page", "[x](jav&#x09;ascript:alert(1))"),
    "escape-link": ("page", "[x](nope\x1b[2J.md)"),
    "data-link": ("page", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"),
    "id-clobber": ("page", "## __config"),
    "bidi": ("page", "x = 1 \u202e ;)1(trela"),
    "zero-width": ("page", "a\u200bb"),
    "front-matter-status": ("first-line", 'status: x" style="position:fixed;inset:0" onmouseover="alert(1)'),
    "front-matter-refresh": ("first-line", 'description: 0;url=https://example.org/" http-equiv="refresh'),
    "front-matter-yaml": ("first-line", "---\ntitle: x\n---"),
    "notebook-early-markdown": ("notebook-head", "#%% [markdown]\n# <script>alert(1)</script>\n"),
    "notebook-in-marker": ("notebook", "In[1]:\nprint(1)"),
    "notebook-escaped-reference": ("notebook", "[x][a\\]b]\n\n[a\\]b]: javascript:alert(1)"),
    "file-html": ("file", ("evil.html", "<script>alert(1)</script>")),
    "file-asset": ("file", ("assets/javascripts/lesson.js", "alert(1)")),
    "file-large": ("file", ("index.md", "# x\n\n" + "x" * 1_100_000)),
    "link-environ": ("link", ("env.txt", "/proc/self/environ")),
    "link-git": ("link", ("git", "../../../.git")),
    "yaml-depth": ("strings", "deep: " + "[" * 600 + "]" * 600),
    # markup the standard library's html.parser read otherwise than a browser, behind an escaped backtick (which a
    # reader of code spans may take for the start of one), and markup that leaves the content for the page around it
    "close-content-script": ("page", "\\`</article><script>alert(1)</script>`"),
    "close-content-script-src": ("page", '\\`</article></div><script defer src="https://example.org/x.js"></script>`'),
    "close-content-stylesheet": ("page", '\\`</article><link rel="stylesheet" href="https://example.org/x.css">`'),
    "comment-short": ("page", "\\`<!--><img src=x onerror=alert(1)>-->`"),
    "cdata": ("page", "\\`<![CDATA[><img src=x onerror=alert(1)>]]>`"),
    "processing-instruction": ("page", "\\`<?x><img src=x onerror=alert(1)>?>`"),
    "noscript": ("page", '\\`<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`'),
    "textarea": ("page", '\\`<textarea><p title="</textarea><img src=x onerror=alert(1)>"></textarea>`'),
    "notebook-comment-short": ("notebook", "<!--><img src=x onerror=alert(1)>-->"),
}
FILES = next(code for code in ("pt", "nl", "sv", "pl") if code not in TRANSLATED)
"""A language of Material's, not in the tree: the folder the corpus's files and links go to."""
ON_PAGES = [case for case, (where, _) in CORPUS.items() if where in ("page", "first-line", "notebook-head", "notebook")]


def _hostile_copy(tmp: Path) -> tuple[Path, dict[str, str]]:
    """A copy with every case of the corpus, each in a file of its own; the file each case went to."""
    project = copy_project(tmp)
    slots = [(code, page) for code in TRANSLATED for page in pages(code)]
    spare = (code for code in ("fr", "de", "es", "it") if code not in TRANSLATED)
    while len(slots) < sum(where in ("page", "first-line") for where, _ in CORPUS.values()):
        code = next(spare)  # one more language, a copy of a translated one, for a page a case
        shutil.copytree(project / "docs" / TARGET, project / "docs" / code)
        slots += [(code, page) for page in pages(TARGET)]
    books = [(code, f"notebooks/{name}") for code in TRANSLATED for name in _notebooks(project, code)]
    folder = project / "docs" / FILES  # the files and links go to a language of their own: it is not read further
    shutil.copytree(project / "docs" / TARGET, folder)
    files = {}
    for case, (where, text) in CORPUS.items():
        if where in ("file", "link"):
            name, content = text
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)
            if where == "link":
                path.symlink_to(content)
            else:
                path.write_text(content, encoding="utf-8")
            files[case] = f"docs/{FILES}/{name}"
            continue
        if where == "strings":
            code = TARGET
            path = project / "docs" / code / "strings.yml"
            path.write_text(path.read_text("utf-8") + text + "\n", encoding="utf-8")
            files[case] = f"docs/{code}/strings.yml"
            continue
        code, page = (books if where.startswith("notebook") else slots).pop(0)
        path = project / "docs" / code / page
        rows = path.read_text("utf-8").split("\n")
        if where == "first-line":
            rows[:0] = text.split("\n")
        elif where == "notebook-head":
            at = next(n for n, row in enumerate(rows) if row.startswith("# %%"))
            rows[at:at] = text.split("\n")
        elif where == "notebook":
            at = next(n for n, row in enumerate(rows) if row.startswith("# %%") and "[markdown]" in row)
            rows[at + 1:at + 1] = [f"# {row}".rstrip() for row in text.split("\n")]
        else:  # after a paragraph of its own: a page ending in a list would take the case into its last item
            rows += ["", "·", "", *text.split("\n"), ""]
        path.write_text("\n".join(rows), encoding="utf-8", newline="")
        files[case] = f"docs/{code}/{page}"
    return project, files


def _notebooks(project: Path, code: str) -> list[str]:
    return sorted(p.name for p in (project / "docs" / code / "notebooks").glob("*.py"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The corpus in one copy: the translators' check and the strict build of it, over a site already there."""
    if len(TRANSLATED) < 2:
        pytest.skip("the corpus needs two translated languages for its pages")
    tmp = tmp_path_factory.mktemp("corpus")
    project, files = _hostile_copy(tmp)
    site = tmp / "site"
    site.mkdir()
    (site / "index.html").write_text("the last site", encoding="utf-8")
    return {"files": files, "site": site, "check": run(CHECK, cwd=project), "build": build(project, site),
            "project": project}


@pytest.mark.parametrize("case", list(CORPUS), ids=list(CORPUS))
def test_corpus_case_fails_the_check_or_the_build_naming_its_file(corpus: dict, case: str) -> None:
    where = corpus["files"][case]
    said = corpus["check"].stderr + corpus["build"].stderr
    assert naming(said, where) or case in ON_PAGES, f"{case}: {where} not named:\n{said[-3000:]}"


def test_corpus_publishes_nothing_and_prints_one_line_each(corpus: dict) -> None:
    check, proc = corpus["check"], corpus["build"]
    assert check.returncode == 2 and proc.returncode == 1, proc.stderr[-2000:]
    assert not traceback_lines(check) and not traceback_lines(proc), proc.stderr[-3000:]
    assert "\x1b" not in check.stderr + check.stdout + proc.stderr + proc.stdout, "a translator's ESC reached the log"
    assert [p.name for p in corpus["site"].iterdir()] == ["index.html"], "the last site was touched"
    assert (corpus["site"] / "index.html").read_text("utf-8") == "the last site"


def build_without_source_check(project: Path, site: Path) -> tuple[str, dict[str, str]]:
    """`project`'s pages built in this process with the translators' source check switched off, as MkDocs
    builds them (strict; the build fails): what MkDocs logged, and every page as the build wrote it, by its
    address (``en/query-key/``)."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    from attention_lesson.site import translations
    from attention_lesson.site.plugin import LessonPlugin

    logs: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logs.append(record.getMessage())
    written: dict[str, str] = {}
    write = LessonPlugin.on_post_page

    def recording(plugin: LessonPlugin, output: str, **kwargs: object) -> str:
        result = write(plugin, output, **kwargs)
        written[("" if plugin.lang == "ja" else f"{plugin.lang}/") + kwargs["page"].url] = result
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(translations, "code_problems", lambda *args: [])
        patch.setattr(LessonPlugin, "on_post_page", recording)
        for name in ("LESSON_LANG", "LESSON_SITE_URL", "LESSON_REPO_URL", "LESSON_NO_CACHE"):
            patch.delenv(name, raising=False)
        logging.getLogger("mkdocs").addHandler(handler)
        try:
            with pytest.raises(Abort):
                mkdocs_build(load_config(str(project / "mkdocs.yml"), strict=True, site_dir=str(site)))
        finally:
            logging.getLogger("mkdocs").removeHandler(handler)
    return "\n".join(logs), written


def pages_only(corpus: dict) -> Path:
    """The corpus's copy without its files and strings cases: its hostile pages alone."""
    project = corpus["project"]
    shutil.rmtree(project / "docs" / FILES, ignore_errors=True)
    strings_file = project / "docs" / TARGET / "strings.yml"
    strings_file.write_text((ROOT / "docs" / TARGET / "strings.yml").read_text("utf-8"), encoding="utf-8")
    return project


@pytest.fixture(scope="module")
def output_alone(corpus: dict, tmp_path_factory: pytest.TempPathFactory) -> str:
    """What the check of the published pages alone refuses of the corpus's pages."""
    return build_without_source_check(pages_only(corpus), tmp_path_factory.mktemp("alone") / "site")[0]


@pytest.mark.parametrize("case", ON_PAGES, ids=ON_PAGES)
def test_output_check_alone_refuses_each_page_case(output_alone: str, corpus: dict, case: str) -> None:
    where = corpus["files"][case]
    assert naming(output_alone, where), f"{case}: {where} not named:\n{output_alone[-3000:]}"
    assert "\x1b" not in output_alone, "a translator's ESC reached the log"


@needs_translation
def test_a_page_markdown_would_read_for_minutes_is_refused_before_it_renders(tmp_path: Path) -> None:
    """30 KB of [ take Python-Markdown minutes (the time grows with the square of the run): the translators'
    check, which the build runs before any page renders, refuses it in one line naming the page."""
    project = copy_project(tmp_path)
    path = project / "docs" / TARGET / pages(TARGET)[0]
    path.write_text(path.read_text("utf-8") + "\n\n" + "[" * 30_000 + "\n", encoding="utf-8")
    check = run([*CHECK, TARGET], cwd=project)
    assert check.returncode == 2 and len(naming(check.stderr, f"docs/{TARGET}/{pages(TARGET)[0]}")) == 1, \
        check.stderr


# -- hostile words: strings.yml ------------------------------------------------------------------------------


def evil(tag: str) -> str:
    return f'javascript:alert(1)//{tag}<script>alert(1)</script>" onmouseover="alert(1)'


@pytest.fixture(scope="module")
def words_site(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built with a strings.yml whose every value is hostile, and a page title that is hostile text
    (after the session's site: a warm store)."""
    if not TARGET:
        pytest.skip("the tree has no language folder besides Japanese")
    tmp = tmp_path_factory.mktemp("words")
    project = copy_project(tmp)
    for code in [c for c in TRANSLATED if c != TARGET]:  # one hostile language is enough, and a faster build
        shutil.rmtree(project / "docs" / code)
    path = project / "docs" / TARGET / "strings.yml"
    words = yaml.safe_load(path.read_text("utf-8"))
    ui = yaml.safe_load((project / "docs" / "ja" / "strings.yml").read_text("utf-8"))["ui"]
    for key in ("name", "site_name", "site_description"):
        words[key] = evil(f"XSS-{key}-")
    words["ui"] = {key: evil(f"XSS-ui-{key}-") + " ".join(re.findall(r"\{\w+\}", ui.get(key, "")))
                   for key in {**ui, **(words.get("ui") or {})}}  # with its placeholders, as translators must
    for table in ("comments", "literals"):  # a printed table row keeps its cells, as a translator keeps them
        hostile = evil(f"XSS-{table}-").replace("1", "x")  # and the code's numbers: a translation adds none
        words[table] = {key: "|".join(["", *[hostile] * (key.count("|") - 1), ""]) if key.startswith("|") else hostile
                        for key in words.get(table) or {}}
    path.write_text(yaml.safe_dump(words, allow_unicode=True, sort_keys=False, width=10**6), encoding="utf-8")
    page = next(p for p in pages(TARGET) if p != "index.md")  # a title is text too: the <title>, og:title
    path = project / "docs" / TARGET / page
    rows = path.read_text("utf-8").splitlines()
    heading = next(n for n, row in enumerate(rows) if row.startswith("# "))
    rows[heading] = "# XSS-title-\" onmouseover=\"alert(x) &lt;/title&gt;&lt;script&gt;alert(x)&lt;/script&gt;"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    folder = tmp / "site"
    assert_ok(build(project, folder, env={"LESSON_SITE_URL": "https://example.org/lesson/"}))
    return folder


def _language_folder(site: Path, code: str) -> list[Path]:
    folder = site if code == "ja" else site / code
    others = [site / c for c in TRANSLATED if c != code]
    return [p for p in folder.rglob("*.html") if not any(o in p.parents for o in others)]


@needs_translation
@pytest.mark.parametrize("code", ["ja", TARGET], ids=["ja", TARGET or "none"])
def test_hostile_words_are_text_in_every_page(words_site: Path, code: str) -> None:
    found = {}
    for path in _language_folder(words_site, code):
        text = path.read_text("utf-8")
        problems = Markup(text).found + (["<script>alert"] if "<script>alert" in text.lower() else [])
        if problems:
            found[path.relative_to(words_site).as_posix()] = problems
    assert not found


@needs_translation
def test_hostile_words_land_as_text(words_site: Path) -> None:
    """The values do reach the pages (so the test above reads them): names, switcher, ui, Markdown output."""
    own = "\n".join(p.read_text("utf-8") for p in _language_folder(words_site, TARGET))
    home = (words_site / "index.html").read_text("utf-8")
    for key in ("name", "site_name", "site_description"):
        assert f"XSS-{key}-" in own, key
    assert "XSS-name-" in home, "the Japanese pages' language switcher shows the language's name"
    assert "XSS-title-" in own
    twice = sorted({m[0] for m in re.finditer(r"XSS-(?:site_name|site_description)-&amp;\w+;", own)})
    assert not twice, f"escaped twice: a reader sees the entity, not the character: {twice}"
    assert re.search(r"XSS-ui-\w+-", own) and "XSS-comments-" in own
    prose = "".join(t for p in _language_folder(words_site, TARGET) for t in Markup(p.read_text("utf-8")).text)
    assert "XSS-literals-" in prose, "a printed string rendered as Markdown (the cost page's table)"


@needs_translation
def test_hostile_words_are_text_in_search_index_and_sitemap(words_site: Path) -> None:
    index = json.loads((words_site / TARGET / "search" / "search_index.json").read_text("utf-8"))
    found = [f"{doc['location']}: {Markup(doc.get('title', '') + doc.get('text', '')).found}"
             for doc in index["docs"] if Markup(doc.get("title", "") + doc.get("text", "")).found]
    assert not found
    assert "XSS-" in json.dumps(index), "the hostile words are in the search index"
    sitemap = (words_site / "sitemap.xml").read_text("utf-8")
    assert "<script" not in sitemap and "onmouseover" not in sitemap and "XSS-" not in sitemap


# -- strings.yml as an attack: aliases, sizes -----------------------------------------------------------------


@pytest.fixture(scope="module")
def bad_strings(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """An alias bomb in a translation's strings.yml; a value too long, a file too large, search words that are
    markup (for jieba's dictionary, which every language's build loads) and a search step that is not a name, in
    four new folders."""
    if not TARGET:
        pytest.skip("the tree has no language folder besides Japanese")
    tmp = tmp_path_factory.mktemp("strings")
    project = copy_project(tmp)
    new = [code for code in ("fr", "de", "ko", "es", "it", "pt", "nl") if code not in languages()][:4]
    path = project / "docs" / TARGET / "strings.yml"
    rows = path.read_text("utf-8").splitlines()
    bomb = ['bomb: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    bomb += [f"bomb{n}: &a{n} [{', '.join(['*a' if n == 1 else f'*a{n - 1}'] * 9)}]" for n in range(1, 10)]
    path.write_text("\n".join([*rows, *bomb]) + "\n", encoding="utf-8")
    (project / "docs" / new[0]).mkdir()
    (project / "docs" / new[0] / "strings.yml").write_text(f'name: "x"\nsite_name: "{"x" * 5000}"\n', "utf-8")
    (project / "docs" / new[1]).mkdir()
    (project / "docs" / new[1] / "strings.yml").write_text("# " + "x" * 300_000 + "\nname: x\n", "utf-8")
    (project / "docs" / new[2]).mkdir()
    words = 'search:\n  words: ["下三角", "<img src=x onerror=alert(1)>"]\n'
    (project / "docs" / new[2] / "strings.yml").write_text(f'name: "x"\n{words}', "utf-8")
    (project / "docs" / new[3]).mkdir()  # a step of the search pipeline that is a mapping, not a name
    (project / "docs" / new[3] / "strings.yml").write_text('name: "x"\nsearch:\n  pipeline: [{a: 1}]\n', "utf-8")
    where = {"alias-bomb": f"docs/{TARGET}/strings.yml:{len(rows) + 1}", "long-value": f"docs/{new[0]}/strings.yml:2",
             "large-file": f"docs/{new[1]}/strings.yml", "search-words": f"docs/{new[2]}/strings.yml:2",
             "search-pipeline": f"docs/{new[3]}/strings.yml:2"}
    site = tmp / "out" / "site"
    return {"where": where, "site": site, "check": run(CHECK, cwd=project), "build": build(project, site)}


STRINGS_CASES = ["alias-bomb", "long-value", "large-file", "search-words", "search-pipeline"]


@needs_translation
@pytest.mark.parametrize("case", STRINGS_CASES, ids=STRINGS_CASES)
def test_strings_file_attack_is_one_line(bad_strings: dict, case: str) -> None:
    where = bad_strings["where"][case]
    check, proc = bad_strings["check"], bad_strings["build"]
    assert check.returncode == 2
    assert len(naming(check.stderr, where)) == 1, f"{where}:\n{check.stderr}"
    assert proc.returncode != 0
    assert len(naming(proc.stderr, where)) == 1, f"{where}:\n{proc.stderr}"
    assert not traceback_lines(check) and not traceback_lines(proc), proc.stderr
    assert not published_pages(bad_strings["site"])


# -- the store holds data --------------------------------------------------------------------------------------

SESSIONS = ("a", "b", "c")
TINY_PAGE = "# Store\n\n" + "".join(f'```python exec="on" result="text" session="{s}"\nprint("real-{s}")\n```\n\n'
                                    for s in SESSIONS)


def _entries(store: Path) -> dict[str, Path]:
    """The store's session entries, by the session whose output they hold."""
    found = {}
    for path in store.rglob("*.json"):
        payload = json.loads(json.loads(path.read_text("utf-8"))["payload"])
        for s in SESSIONS:
            if isinstance(payload, list) and f"real-{s}" in json.dumps(payload):
                found[s] = path
    return found


@pytest.fixture(scope="module")
def damaged_store(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A page of three sessions built twice: in between, a's entry is not JSON, b's output changed without its
    checksum, c's forged with its checksum recomputed."""
    tmp = tmp_path_factory.mktemp("store")
    project, store, site = tiny(tmp, TINY_PAGE), tmp / "store", tmp / "site"
    env = {"LESSON_STORE": str(store)}
    assert_ok(build(project, site, env=env))
    entries = _entries(store)
    assert set(entries) == set(SESSIONS), sorted(p.name for p in store.rglob("*"))
    entries["a"].write_text('{"format": 2, "payload": "[{\\"output\\"', encoding="utf-8")
    for s, forged in (("b", "forged-b"), ("c", "<script>alert(1)</script>forged-c")):
        entry = json.loads(entries[s].read_text("utf-8"))
        entry["payload"] = json.dumps([{"output": forged + "\n"}], ensure_ascii=False, sort_keys=True)
        if s == "c":
            entry["sha256"] = hashlib.sha256(entry["payload"].encode()).hexdigest()
        entries[s].write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
    proc = build(project, site, env=env)
    assert_ok(proc)
    return {"log": proc.stderr, "page": (site / "index.html").read_text("utf-8")}


def test_damaged_store_entries_run_again(damaged_store: dict) -> None:
    assert "real-a" in damaged_store["page"], "an entry that is not JSON is ignored: its session runs again"
    assert "real-b" in damaged_store["page"] and "forged-b" not in damaged_store["page"], \
        "an entry whose checksum does not match is ignored: its session runs again"
    assert re.search(r"Ran 2 sessions .*, 1 taken from the store", damaged_store["log"]), damaged_store["log"]


def test_a_forged_entry_is_data_shown_as_text(damaged_store: dict) -> None:
    assert "forged-c" in damaged_store["page"], "an entry with a correct checksum is the store's data"
    assert not Markup(damaged_store["page"]).found


FORBIDDEN = {"pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle", "joblib"}


def test_site_modules_load_no_pickle_or_marshal() -> None:
    """The site's own sources (other libraries may import pickle): no import of it, no torch.load."""
    found = []
    for path in sorted(SITE_MODULES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)] if ast.unparse(node.func) in (
                    "__import__", "importlib.import_module", "import_module") else []
            if isinstance(node, ast.Attribute) and ast.unparse(node) in ("torch.load", "numpy.load", "np.load"):
                names = [ast.unparse(node)]
            found += [f"{path.name}:{node.lineno}: {name}" for name in names
                      if name.split(".")[0] in FORBIDDEN or name.endswith(".load")]
    assert not found


def test_site_scripts_put_text_as_text() -> None:
    """The figures' scripts write translators' words with textContent, never as HTML."""
    scripts = sorted((SITE_MODULES / "theme").rglob("*.js"))
    assert scripts
    for path in scripts:
        text = path.read_text("utf-8")
        assert not re.search(r"\.(innerHTML|outerHTML)\s*\+?=|insertAdjacentHTML|document\.write", text), path.name


# -- settings and files that are not what they claim: one line each, at once ---------------------------------


@pytest.fixture(scope="module")
def odd_folders(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A strings.yml that is a pipe (a read would never end), a folder of a language Material does not have, a
    search language Material's search lacks and a separator that can backtrack for minutes: the check and the
    strict build of the copy, each within a timeout."""
    if not TARGET or not hasattr(os, "mkfifo"):
        pytest.skip("needs a translated language and named pipes")
    tmp = tmp_path_factory.mktemp("odd")
    project = copy_project(tmp)
    others = [code for code in TRANSLATED if code != TARGET]
    pipe = project / "docs" / TARGET / "strings.yml"
    pipe.unlink()
    os.mkfifo(pipe)
    (project / "docs" / "qq").mkdir()
    (project / "docs" / "qq" / "strings.yml").write_text('name: "Q"\n', "utf-8")
    where = {"fifo": f"docs/{TARGET}/strings.yml", "no-such-language": "docs/qq/"}
    if others:
        path = project / "docs" / others[0] / "strings.yml"
        text = re.sub(r"(?m)^search:\n(  .*\n)*", "", path.read_text("utf-8"))
        path.write_text(text + "search:\n  lang: [zz]\n  separator: '(a+)+$'\n", encoding="utf-8")
        where["search"] = f"docs/{others[0]}/strings.yml"
    site = tmp / "out" / "site"
    return {"where": where, "site": site, "check": run(CHECK, cwd=project, timeout=120),
            "build": build(project, site)}


@pytest.mark.parametrize("case", ["fifo", "no-such-language", "search"])
def test_a_file_or_setting_that_is_not_what_it_says_is_one_line(odd_folders: dict, case: str) -> None:
    if case not in odd_folders["where"]:
        pytest.skip("needs a second translated language")
    where, check, proc = odd_folders["where"][case], odd_folders["check"], odd_folders["build"]
    for said in (check, proc):
        assert said.returncode != 0 and not traceback_lines(said), said.stderr[-2000:]
        assert [line for line in said.stderr.splitlines() if where in line], f"{where}:\n{said.stderr[-2000:]}"
    assert not published_pages(odd_folders["site"])


@needs_translation
@pytest.mark.parametrize("mark", ["\u2028", "\u2029", "\u00ad", "\U000e0041"], ids=["LS", "PS", "SHY", "TAG-A"])
def test_a_code_translation_holds_only_visible_text(tmp_path: Path, mark: str) -> None:
    """A comment's translation goes into code a reader copies: a line or paragraph separator, or any format
    character, is refused by the translators' check with one line naming strings.yml's line."""
    project = copy_project(tmp_path)
    path = project / "docs" / TARGET / "strings.yml"
    rows = path.read_text("utf-8").splitlines()
    at = next(n for n, row in enumerate(rows) if row.startswith("comments:")) + 1
    key, _, value = rows[at].partition(": ")
    rows[at] = f'{key}: "{yaml.safe_load(value)[:3]}{mark}x"'
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    check = run([*CHECK, TARGET], cwd=project)
    assert check.returncode == 2 and len(naming(check.stderr, f"docs/{TARGET}/strings.yml:{at + 1}")) == 1, \
        check.stderr


# -- strings.yml as a translator mistypes it: one line, at the mistake, saying what to change -----------------

YAML_MISTAKES = {  # (how the line under ui: becomes, what the check says)
    "tab": (lambda key, value: f"\t{key}: {value}", "a tab: indent with spaces"),
    "over-indented": (lambda key, value: f"    {key}: {value}", "indented more than the key above it"),
    "unclosed-quote": (lambda key, value: f'  {key}: "{value}', 'a double quote that is not closed'),
    "colon-in-value": (lambda key, value: f"  {key}: {value}: {value}", "a colon inside a value"),
}


@needs_translation
@pytest.mark.parametrize("mistake", list(YAML_MISTAKES))
def test_a_strings_yml_mistake_is_one_line_at_the_mistake_with_advice(tmp_path: Path, mistake: str) -> None:
    project = copy_project(tmp_path)
    path = project / "docs" / TARGET / "strings.yml"
    rows = path.read_text("utf-8").splitlines()
    at = next(n for n, row in enumerate(rows) if row.startswith("ui:")) + 2  # the table's second key
    key, _, value = rows[at].strip().partition(": ")
    make, advice = YAML_MISTAKES[mistake]
    rows[at] = make(key, yaml.safe_load(value))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    check = run([*CHECK, TARGET], cwd=project)
    said = naming(check.stderr, f"docs/{TARGET}/strings.yml:{at + 1}")
    assert check.returncode == 2 and len(said) == 1 and advice in said[0], check.stderr
    assert "nothing pending" not in check.stdout and not traceback_lines(check), check.stdout


@pytest.fixture(scope="module")
def floods(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A translated page with a list nested 300 deep, another with 20,000 headings (Python-Markdown reads such
    pages for minutes): the check and the strict build of the copy, over a site already there."""
    if len(TRANSLATED) < 1:
        pytest.skip("the tree has no language folder besides Japanese")
    tmp = tmp_path_factory.mktemp("floods")
    project = copy_project(tmp)
    slots = [(code, page) for code in TRANSLATED for page in pages(code)][:2]
    where = {}
    cases = [("deep-list", "\n".join("  " * i + "- a" for i in range(300))),
             ("headings", "\n".join(f"## h{i}" for i in range(20_000)))]
    for (code, page), (case, text) in zip(slots, cases, strict=True):
        path = project / "docs" / code / page
        path.write_text(path.read_text("utf-8") + "\n\n" + text + "\n", encoding="utf-8")
        where[case] = f"docs/{code}/{page}"
    site = tmp / "site"
    site.mkdir()
    (site / "index.html").write_text("the last site", encoding="utf-8")
    return {"where": where, "site": site, "check": run(CHECK, cwd=project, timeout=60),
            "build": run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=project,
                         timeout=60)}


@pytest.mark.parametrize("case", ["deep-list", "headings"])
def test_a_flood_is_refused_before_it_renders_in_one_line(floods: dict, case: str) -> None:
    where = floods["where"][case]
    for said in (floods["check"], floods["build"]):
        assert said.returncode != 0 and len(naming(said.stderr, where)) == 1, said.stderr[-2000:]
        assert not traceback_lines(said), said.stderr[-2000:]
    assert (floods["site"] / "index.html").read_text("utf-8") == "the last site"
