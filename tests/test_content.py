"""The project follows its content: what editors and translators change, with their own commands, on copies.

- A listing that changes so that a page's claim is no longer true fails the strict build, naming the claim's
  line in every language's page.
- An editor adds a Japanese page (a listing, a value, a figure, a claim) and its nav entry, touching nothing of
  the machinery: the site, the translators' check, the status page and the terminal lesson all have it, the
  other languages showing it in Japanese under a banner until it is translated.
- A translator starts a language as docs/TRANSLATING.md says and translates one page: the check passes, the
  build passes, and the language has every page.
- Under `mkdocs serve`, an edit of any language's page, or of a listing, reaches every page it shows on, each
  edit rebuilt once.
- Every language's notebook shows the Japanese run's outputs.

The editor's page and the new language are in one copy, built once. Every build shares the session's store,
warmed by the `site` build, so a copy's build runs only what its test changed.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import CHECK, PROJECT, ROOT, assert_ok, build, copy_project, environment, languages, page_html, pages, run

from attention_lesson.site.lesson import Project

TERMINAL = [sys.executable, "snippets/attention.py"]


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path}: {old!r} not found"
    path.write_text(text.replace(old, new), encoding="utf-8")


def text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def digits(printed: str, strings: list[str]) -> list[str]:
    """The digit sequences of printed text once the given (translated) strings are taken out of it."""
    for string in sorted(strings, key=len, reverse=True):
        printed = printed.replace(string, "")
    return re.findall(r"\d+", printed)


def sections_count(folder: Path) -> int:
    """How many sections the terminal lesson of a project has (its answer to --section 0, which runs nothing)."""
    proc = run([*TERMINAL, "--section", "0"], cwd=folder)
    return int(re.search(r"sections 1 to (\d+)", proc.stderr)[1])


# ---- a listing that no longer says what the prose says --------------------------------------------------

DRIFTS = [("snippets/scoring.py", "torch.tensor([1.0, 0.0])", "torch.tensor([0.0, 1.0])"),
          ("snippets/scaling.py", "[16, 64, 256, 1024]", "[1, 4, 16, 64, 256]"),
          ("snippets/values.py", "[0.75, 0.25]", "[0.25, 0.75]")]
"""Edits an editor might make, leaving the prose as it is: exercise 1's change made to the lesson's own listing
(光's query looks for places, not the sky); dimensions from 1, where scaling changes nothing; 月's v mostly place."""
BROKEN_CLAIMS = ["query-key.md", "exercises.md", "scaling.md", "values.md"]
"""The pages those edits make false: 「月」 no longer gets the largest weight, exercise 1's query is no longer
another query than the lesson's; unscaled, a row's largest weight is no longer near 1 at every d; 明 and 月 no
longer give the largest brightness bars, and 月's comment no longer describes its v."""
TYPED = "(5, 16)"
"""A shape the head's listing prints, typed into the Japanese page by hand instead of as a value (a translation
typing it is refused before anything runs: test_a_number_typed_as_a_language_writes_it_is_refused_at_its_line)."""


@pytest.fixture(scope="module")
def drifted(site: Path, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    folder = tmp_path_factory.mktemp("drift")
    copy = copy_project(folder)
    for path, old, new in DRIFTS:
        replace(copy / path, old, new)
    typed_in = "ja"
    head = copy / "docs" / typed_in / "head.md"
    head.write_text(head.read_text("utf-8") + f"\n{TYPED}\n", encoding="utf-8")
    return SimpleNamespace(copy=copy, site=folder / "site", proc=build(copy, folder / "site"),
                           typed=f"docs/{typed_in}/head.md:{len(head.read_text('utf-8').splitlines())}")


@pytest.mark.parametrize("page", BROKEN_CLAIMS, ids=[p.removesuffix(".md") for p in BROKEN_CLAIMS])
def test_a_listing_change_that_breaks_a_claim_fails_the_build_naming_every_language(drifted, page: str) -> None:
    proc = drifted.proc
    assert proc.returncode != 0, "the strict build passed with a claim that no longer holds"
    named = [lang for lang in Project(drifted.copy).languages() if (drifted.copy / "docs" / lang / page).is_file()]
    assert len(named) > 1
    for lang in named:
        assert re.search(rf"docs/{lang}/{re.escape(page)}:\d+\b", proc.stderr), \
            f"docs/{lang}/{page} not named:\n{proc.stderr[-3000:]}"
    assert "this claim is no longer true" in proc.stderr and "Traceback" not in proc.stderr
    backs = [line.split("; it backs ", 1)[1] for line in proc.stderr.splitlines()
             if f"/{page}:" in line and "; it backs " in line]
    for lang in named:  # the text the claim stands for, where an editor changes it, in every language
        assert any(re.search(rf"docs/{lang}/{re.escape(page)}:\d+", b) for b in backs), proc.stderr[-3000:]


SWAPPED = ("snippets/scaling.py", "| d | 内積の標準偏差 | √d |", "| d | √d | 内積の標準偏差 |")
"""Two printed headers swapped: the table then calls the dot products' spread √d (a label, not a value, changed)."""


def test_a_printed_label_that_no_longer_labels_its_column_fails_the_build(site: Path, tmp_path: Path) -> None:
    copy = copy_project(tmp_path)
    replace(copy / SWAPPED[0], *SWAPPED[1:])
    proc = build(copy, tmp_path / "site")
    assert proc.returncode != 0 and "this claim is no longer true" in proc.stderr, proc.stderr[-3000:]
    assert "table(printed[-1])" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-3000:]


def test_a_comment_typing_a_printed_number_fails_the_build_naming_the_listing_line(site: Path, tmp_path: Path) -> None:
    """A comment is prose a reader copies with the code: typing a number the run prints (0.33, which the averaging
    listing prints as a weight) would not follow the code, so it fails the build at the listing's line."""
    copy = copy_project(tmp_path)
    path = copy / "snippets" / "averaging.py"
    rows = path.read_text("utf-8").splitlines()
    rows[-1] += "  # 3 行目の重みは 0.33"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    proc = build(copy, tmp_path / "site")
    assert proc.returncode != 0 and f"snippets/averaging.py:{len(rows)}: the comment" in proc.stderr, \
        proc.stderr[-3000:]


TAKEN = ("snippets/scaling.py", "[16, 64, 256, 1024]", "[16, 64, 512, 1024]")
"""A change that takes away what a claim and a value read (the row of d = 256): they raise, not only go false."""


def test_a_claim_or_value_that_raises_is_named_in_every_language_with_advice(site: Path, tmp_path: Path) -> None:
    copy = copy_project(tmp_path)
    replace(copy / TAKEN[0], *TAKEN[1:])
    proc = build(copy, tmp_path / "site")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    raised = [line for line in proc.stderr.splitlines() if "(it raised " in line or "cannot be computed" in line]
    assert raised, proc.stderr[-3000:]
    for line in raised:
        page = re.search(r"docs/ja/(\S+?):\d+", line)[1]
        assert all(f"docs/{lang}/{page}:" in line for lang in languages() if (copy / "docs" / lang / page).is_file())
        assert "change that text and the" in line, line


def test_every_claim_a_change_made_false_is_named_not_only_a_fences_first(drifted) -> None:
    """The scaling drift makes several claims of one fence false: each is named, so an editor sees them all at once."""
    named = set(re.findall(r"docs/ja/scaling\.md:(\d+), docs/", drifted.proc.stderr))
    assert len(named) > 1, drifted.proc.stderr[-3000:]


def test_a_printed_shape_typed_by_hand_fails_the_build_naming_its_line(drifted) -> None:
    assert f"{drifted.typed}: '{TYPED}' types 5,16" in drifted.proc.stderr, drifted.proc.stderr[-3000:]


# ---- a name the prose gives the code, gone from the code ---------------------------------------------------

def _renamable() -> tuple[str, str, str] | None:
    """(page, listing, name): a name a Japanese page's prose writes as code (`split`) that a listing it includes
    defines, and no value, claim or figure of the page reads: renaming it in the listing changes nothing that runs."""
    for page in pages():
        scanned = PROJECT.read("ja", page)
        read = "\n".join([f.body for f in scanned.fences if f.lang in ("claim", "figure")]
                         + [expr for _, expr in scanned.values])
        listings = [m[1] for f in scanned.fences for m in re.finditer(r'--8<-- "snippets/(\w+\.py)', f.body)]
        for _, line in scanned.prose:
            for span in re.findall(r"(?<!`)`([A-Za-z_]\w*)`(?!`)", line):
                for name in listings:
                    tree = ast.parse((ROOT / "snippets" / name).read_text("utf-8"))
                    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
                    if span in defined and not re.search(rf"\b{span}\b", read):
                        return page, name, span
    return None


def test_a_name_the_prose_gives_the_code_fails_the_build_where_the_code_no_longer_has_it(tmp_path: Path) -> None:
    found = _renamable()
    if found is None:
        pytest.skip("no page writes a function of its listing as code")
    page, listing, name = found
    copy = copy_project(tmp_path)
    path = copy / "snippets" / listing
    path.write_text(re.sub(rf"\b{name}\b", f"{name}_renamed", path.read_text("utf-8")), encoding="utf-8")
    proc = build(copy, tmp_path / "site")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    for lang in languages():
        if (copy / "docs" / lang / page).is_file():
            assert re.search(rf"docs/{lang}/{re.escape(page)}:\d+: `{name}` is not in the code", proc.stderr), \
                f"{lang}: {proc.stderr[-3000:]}"


# ---- an intended change of a Japanese paragraph: its translations are outdated until translated again ------

@pytest.fixture(scope="module")
def rewritten(site: Path, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """A copy whose first Japanese page with translations has a paragraph rewritten (a sentence added, as an editor
    does following CONTRIBUTING.md): its build, and the translators' check."""
    folder = tmp_path_factory.mktemp("rewritten")
    copy = copy_project(folder)
    translated = [code for code in languages()[1:] if (copy / "docs" / code / "averaging.md").is_file()]
    if not translated:
        pytest.skip("no translated averaging.md")
    path = copy / "docs" / "ja" / "averaging.md"
    rows = path.read_text("utf-8").splitlines()
    line = next(n for n, row in enumerate(rows) if row.strip() and not row.startswith(("#", "`", " ", "!", "-")))
    rows[line] += "この一文は編集者が書き足しました。"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return SimpleNamespace(copy=copy, langs=translated, site=folder / "site", build=build(copy, folder / "site"),
                           check=run(CHECK, cwd=copy), line=line + 1)


def test_a_translation_whose_japanese_changed_is_marked_and_named(rewritten) -> None:
    assert_ok(rewritten.build)  # an editor's change is not held up by the translations
    for lang in rewritten.langs:
        words = yaml_ui(rewritten.copy, lang)
        page = page_html(rewritten.site, lang, "averaging.md")
        assert html.escape(words["outdated_paragraph"], quote=False) in page, f"{lang}: the paragraph is not marked"
        assert page.count(html.escape(words["outdated_paragraph"], quote=False)) == 1, "only that paragraph"
        status = page_html(rewritten.site, lang, "translation-status.md")
        row = next(r for r in status.split("<tr>") if "averaging.md" in r)
        assert html.escape(words["status_outdated"], quote=False) in row, f"{lang}: {row}"
        assert re.search(rf"^docs/{lang}/averaging\.md:\d+: outdated: docs/ja/averaging\.md:{rewritten.line} ",
                         rewritten.check.stdout, re.M), rewritten.check.stdout


def test_the_command_the_check_prints_clears_it(rewritten) -> None:
    lang = rewritten.langs[0]
    shown = re.search(rf"then run: \.ci/env python (-m attention_lesson\.site\.translations {lang} --done \S+)",
                      rewritten.check.stdout)
    assert shown, rewritten.check.stdout
    assert_ok(run([sys.executable, *shown[1].split()], cwd=rewritten.copy))
    after = run([*CHECK, lang], cwd=rewritten.copy)
    assert after.returncode == 0 and "outdated" not in after.stdout, after.stdout + after.stderr


def yaml_ui(project: Path, lang: str) -> dict[str, str]:
    return Project(project).strings(lang, Project(project).strings("ja")).ui


# ---- numbers as a translator's language writes them --------------------------------------------------------

@pytest.fixture(scope="module")
def typed_forms(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """A translated page with numbers typed as Korean, full-width or Arabic-Indic digits write them, each a
    paragraph of its own, and a paragraph whose value is replaced by the number it shows: the translators' check."""
    lang = next((code for code in languages()[1:] if (PROJECT.docs / code / "head.md").is_file()), None)
    if lang is None:
        pytest.skip("no translated head.md")
    copy = copy_project(tmp_path_factory.mktemp("typed"))
    path = copy / "docs" / lang / "head.md"
    rows = path.read_text("utf-8").splitlines()
    valued = next(n for n, row in enumerate(rows) if "{{" in row and not row.startswith(("#", "`", " ")))
    expr = re.search(r"\{\{(.*?)\}\}", rows[valued])
    rows[valued] = rows[valued].replace(expr[0], "7번째", 1)
    forms = ["(5, 16)입니다", "（５，１６）", "٥٫٧ ٪", "3.6e-07이며"]
    start = len(rows) + 2
    rows += [line for form in forms for line in ("", form)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    lines = {form: start + 2 * n for n, form in enumerate(forms)} | {"value": valued + 1}
    return SimpleNamespace(lang=lang, lines=lines, check=run([*CHECK, lang], cwd=copy))


@pytest.mark.parametrize("form", ["(5, 16)입니다", "（５，１６）", "٥٫٧ ٪", "3.6e-07이며", "value"])
def test_a_number_typed_as_a_language_writes_it_is_refused_at_its_line(typed_forms, form: str) -> None:
    where = f"docs/{typed_forms.lang}/head.md:{typed_forms.lines[form]}: "
    said = [line for line in typed_forms.check.stderr.splitlines() if where in line]
    assert typed_forms.check.returncode == 2 and said, f"{where}\n{typed_forms.check.stderr[-3000:]}"
    assert "Traceback" not in typed_forms.check.stderr


def test_a_failed_build_writes_no_site(drifted) -> None:
    assert drifted.proc.returncode != 0
    leftovers = [p.name for p in drifted.site.parent.iterdir() if p.name == "site" or p.name.startswith(".site-")]
    assert not leftovers, f"the failed build left {leftovers}"


# ---- an inserted line and a changed comment: nothing the pages say becomes false --------------------------

MOVED = ("snippets/head.py", "# --8<-- [start:mask]\n", "# --8<-- [start:mask]\n# スコアを採点してマスクする\n")
"""A line inserted in the part of the head's listing that exercise 2 shows, above the lines it highlights."""
REWORDED = ("snippets/head.py", "# PyTorch 組み込みの同じ計算", "# PyTorch に組み込まれた同じ計算")
"""A Japanese comment reworded: its translations go stale."""


@pytest.fixture(scope="module")
def moved(site: Path, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    folder = tmp_path_factory.mktemp("moved")
    copy = copy_project(folder)
    for path, old, new in (MOVED, REWORDED):
        replace(copy / path, old, new)
    return SimpleNamespace(copy=copy, site=folder / "site", proc=build(copy, folder / "site"),
                           check=run([*CHECK], cwd=copy))


def test_an_inserted_line_moves_no_highlight(moved) -> None:
    """Exercise 2 highlights the lines that mask and that pass is_causal=True, wherever they now are."""
    assert_ok(moved.proc)
    for lang in languages():
        raw = page_html(moved.site, lang, "exercises.md")
        marked = [text(line) for line in re.findall(r'<span class="hll">(.*?)</span>\n', raw)]
        assert any("masked_fill" in line for line in marked) and any("is_causal=True" in line for line in marked)
        assert not any(line.strip() in ("", MOVED[2].split("\n")[1]) for line in marked), marked


def test_a_reworded_comment_is_named_stale_and_its_pages_partial(moved) -> None:
    translating = [lang for lang in languages()[1:] if REWORDED[1][2:] in PROJECT.strings(lang).comments]
    assert translating
    for lang in translating:
        assert re.search(rf"docs/{lang}/strings.yml:\d+: comments: '{REWORDED[1][2:]}' is in no listing",
                         moved.check.stdout), moved.check.stdout
        row = re.search(r"<tr>(?:(?!</tr>).)*>head\.md<(?:(?!</tr>).)*</tr>",
                        page_html(moved.site, lang, "translation-status.md"), re.S)
        assert row and PROJECT.strings(lang).ui["status_partial"] in text(row[0]), row and text(row[0])


# ---- an editor's new page, and a translator's new language ------------------------------------------------

NEW = next(name for name in (f"window{n}" for n in ["", *range(2, 100)])  # a page an editor may add, not one of theirs
           if not (ROOT / "docs" / "ja" / f"{name}.md").exists() and not (ROOT / "snippets" / f"{name}.py").exists())
REPO = "https://github.com/example/lesson"  # the workflow sets LESSON_REPO_URL: pages get edit links
SNIPPET = """import torch

torch.set_printoptions(precision=2)
T = 4

weights = torch.ones(T, T).tril()  # 下三角：自分と前の文字だけ
weights = weights / weights.sum(dim=1, keepdim=True)  # 各行の合計を 1 にする
print("四文字の平均の重み：")
print(weights)
"""
TITLE = "四文字の平均"
PAGE = f"""# {TITLE}

[この課](index.md)の最初の節の平均を、四文字で作り直します。

```python exec="on" source="block" result="text" title="snippets/{NEW}.py" session="{NEW}"
--8<-- "snippets/{NEW}.py"
```

```figure
kind: heatmap
values: weights
title: "四文字の平均の重み"
labels: 床前明月
xlabel: "見られる位置（列）"
ylabel: "見る位置（行）"
alt: "四文字の平均の重みのヒートマップ。i 行目は最初の i+1 文字に同じ重みを置く。"
```

4 番目の文字は、四つの位置に {{{{ weights[3, 0]:.2f }}}} ずつ重みを置きます。

```claim
torch.allclose(weights.sum(dim=1), torch.ones(T))
```
"""
PRINTED_ROW = "[0.33, 0.33, 0.33, 0.00]"
VALUE = "0.25"
"""What the new listing prints (its third row) and the page's value: the average of four."""
LANG, NAME = next((code, name) for code, name in (("ko", "한국어"), ("fr", "Français"), ("de", "Deutsch"),
                                                  ("es", "Español")) if code not in languages())
"""A language the tree does not have yet (a translator may be starting one in the checkout the suite runs in)."""
KOREAN = "한국어로 옮긴 문장입니다."


def translated(japanese: str) -> str:
    """A translator's page: each fence of the Japanese page as it is (a figure's title translated), every line
    of prose in Korean (headings and list items keep their marks)."""
    out, fence = [], None
    for line in japanese.splitlines():
        opened = re.match(r"^[ \t]*(`{3,}|~{3,})(.*)$", line)
        if fence is None and opened:
            fence = opened.groups()
        elif fence and re.match(rf"^[ \t]*{re.escape(fence[0][0])}{{{len(fence[0])},}}\s*$", line):
            fence = None
        elif fence and fence[1].strip() == "figure" and line.startswith("title:"):
            line = 'title: "한국어 제목"'
        elif fence is None and line.strip() and not line.lstrip().startswith(("!!!", "???")):
            line = re.sub(r"^(\s*(?:#+ |[-*] |\d+\. )?).*$", rf"\g<1>{KOREAN}", line)
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def edited(site: Path, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """One copy: an editor's new page in its nav, then a new language with one page translated; checked, built as
    the workflow publishes it, with edit links (a page the language shows in Japanese has none)."""
    folder = tmp_path_factory.mktemp("edited")
    copy = copy_project(folder)
    assert not (copy / "docs" / "ja" / f"{NEW}.md").exists() and not (copy / "snippets" / f"{NEW}.py").exists()
    (copy / "snippets" / f"{NEW}.py").write_text(SNIPPET, encoding="utf-8")
    (copy / "docs" / "ja" / f"{NEW}.md").write_text(PAGE, encoding="utf-8")
    nav = re.match(r"(?:[ #].*\n|\n)*", (copy / "mkdocs.yml").read_text("utf-8").split("\nnav:\n", 1)[1])[0]
    last = [line for line in nav.splitlines() if line.startswith("  - ")][-1]  # the nav's last entry
    replace(copy / "mkdocs.yml", f"\n{last}\n", f"\n{last}\n  - {NEW}.md\n")
    init = run([*CHECK, LANG, "--init"], cwd=copy)
    assert_ok(init)
    strings_yml = copy / "docs" / LANG / "strings.yml"
    named, count = re.subn(r'^name: ".*"$', f'name: "{NAME}"', strings_yml.read_text("utf-8"), flags=re.M)
    assert count == 1, f"--init wrote no name: line\n{named}"
    strings_yml.write_text(named, encoding="utf-8")
    page = next(p for p in PROJECT.pages() if p.endswith(".md") and 'exec="on"' in (copy / "docs/ja" / p).read_text(
        encoding="utf-8"))  # the first page with code: a translation keeps its blocks as they are
    (copy / "docs" / LANG / page).write_text(translated((copy / "docs/ja" / page).read_text("utf-8")), "utf-8")
    return SimpleNamespace(copy=copy, site=folder / "site", translated=page, project=Project(copy),
                           check=run([*CHECK, LANG], cwd=copy), check_all=run([*CHECK, "--all"], cwd=copy),
                           proc=build(copy, folder / "site", env={"LESSON_REPO_URL": REPO}))  # as published


def test_the_strict_build_passes_with_the_new_page_and_language(edited) -> None:
    assert_ok(edited.proc)


def test_the_new_page_shows_its_listing_value_and_figure(edited) -> None:
    assert_ok(edited.proc)
    raw = page_html(edited.site, "ja", f"{NEW}.md")
    shown = text(raw)
    assert f"snippets/{NEW}.py" in raw and PRINTED_ROW in shown, "the listing's output is not on the page"
    assert f"に {VALUE} ずつ" in shown, "the value is not in the prose"
    assert raw.count("<figure") == 1 and "torch.allclose" not in shown, "the figure, or a claim shown"


def test_other_languages_show_the_new_page_in_japanese_with_the_banner(edited) -> None:
    assert_ok(edited.proc)
    others = edited.project.languages()[1:]
    assert LANG in others and len(others) > 1
    for lang in others:
        raw = page_html(edited.site, lang, f"{NEW}.md")
        banner = html.escape(edited.project.strings(lang).ui["untranslated_title"], quote=False)
        assert f'<html lang="{lang}"' in raw and f'<p class="admonition-title">{banner}</p>' in raw, lang
        assert TITLE in raw and PRINTED_ROW in text(raw) and VALUE in text(raw), f"{lang}: not the Japanese page"
        assert raw.count("<figure") == 1, lang


def test_the_check_passes_and_lists_the_new_page_as_pending_in_every_other_language(edited) -> None:
    proc = edited.check_all
    assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
    for lang in edited.project.languages()[1:]:
        pending = [line for line in proc.stdout.splitlines() if line.startswith(f"{lang}: pages missing")]
        assert pending and f"{NEW}.md" in pending[0], f"{lang}: the new page is not pending:\n{proc.stdout}"


def test_the_status_page_lists_the_new_page(edited) -> None:
    assert_ok(edited.proc)
    for lang in edited.project.languages():
        raw = page_html(edited.site, lang, "translation-status.md")
        assert f"<td><code>{NEW}.md</code></td>" in raw, f"{lang}: the status page has no {NEW}.md"


def test_the_terminal_lesson_gains_a_section(edited) -> None:
    before = sections_count(ROOT)
    assert sections_count(edited.copy) == before + 1
    proc = run([*TERMINAL, "--section", str(before + 1)], cwd=edited.copy)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"== {before + 1}. {TITLE}\n") and PRINTED_ROW in proc.stdout, proc.stdout


def test_a_new_language_passes_the_translators_check(edited) -> None:
    """docs/TRANSLATING.md's steps: --init, name:, one page translated; the check exits 0, listing what is left."""
    proc = edited.check
    assert proc.returncode == 0 and proc.stderr == "", proc.stdout + proc.stderr
    missing = [line for line in proc.stdout.splitlines() if line.startswith(f"{LANG}: pages missing")]
    assert missing and edited.translated not in missing[0], proc.stdout


def test_a_new_language_has_every_page(edited) -> None:
    assert_ok(edited.proc)
    ui = edited.project.strings(LANG).ui
    for page in edited.project.pages("ja"):
        raw = page_html(edited.site, LANG, page)
        assert f'<html lang="{LANG}"' in raw, page
        banner = f'<p class="admonition-title">{html.escape(ui["untranslated_title"], quote=False)}</p>'
        if page.endswith(".md"):  # a notebook not translated yet is the Japanese notebook as it is
            assert (banner in raw) == (page != edited.translated), f"{LANG}/{page}: the banner, or none"
    raw = page_html(edited.site, LANG, edited.translated)
    assert KOREAN in text(raw) and "한국어 제목" in raw, "the translation is not shown"
    assert f'hreflang="{LANG}"' in page_html(edited.site, "ja", "index.md") and NAME in \
        page_html(edited.site, "ja", "index.md"), "the language switcher has no 한국어"


# ---- an editor and translators under `mkdocs serve` -------------------------------------------------------

def shows(url: str, marker: str, server: subprocess.Popen, log: Path) -> None:
    """Wait (a minute at most) until the page at url has marker; fail if the server stops."""
    opener, deadline = urllib.request.build_opener(urllib.request.ProxyHandler({})), time.monotonic() + 60
    while True:
        try:
            with opener.open(url, timeout=10) as response:
                if marker in response.read().decode("utf-8", "replace"):
                    return
        except urllib.error.HTTPError as error:  # a 404 page is an answer too
            if marker in error.read().decode("utf-8", "replace"):
                return
        except OSError:
            pass
        assert server.poll() is None and time.monotonic() < deadline, \
            f"{url} never showed {marker}\n{log.read_text('utf-8', 'replace')[-3000:]}"
        time.sleep(0.1)


def save(path: Path, text: str, in_place: bool) -> None:
    """Save as an editor does: the whole file at once, in place or by renaming a new file over it."""
    new = path if in_place else path.with_name(path.name + ".new")
    new.write_text(text, encoding="utf-8")
    if new != path:
        os.replace(new, path)


def builds(log: Path) -> int:
    return log.read_bytes().count(b"Building documentation...")


def page_url(base: str, lang: str, page: str) -> str:
    stem = page.removesuffix(".md")
    return base + ("" if lang == "ja" else f"{lang}/") + ("" if stem == "index" else f"{stem}/")


def test_mkdocs_serve_shows_each_edit_and_a_failed_build_wherever_they_show(site: Path, tmp_path: Path) -> None:
    copy, log = copy_project(tmp_path), tmp_path / "serve.log"
    listing = next(m[1] for page in pages() if (m := re.search(r'--8<-- "(snippets/\w+\.py)"',
                                                              (copy / "docs/ja" / page).read_text("utf-8"))))
    shown_on = [(lang, page) for lang in languages() for page in pages()  # a hidden block shows nothing
                if any(listing in f.body and "hide" not in f.options for f in Project(copy).read("ja", page).fences)]
    edits = [(copy / "docs" / lang / page, [(lang, page)] + [(code, page) for code in languages()[1:] if lang == "ja"
                                                             and not (copy / "docs" / code / page).is_file()])
             for lang in languages() for page in pages(lang)[:1]]  # a Japanese page shows where none is translated
    config = (copy / "mkdocs.yml").read_text("utf-8")  # Material shows its copyright on every page
    edits += [(copy / listing, shown_on)] + [(copy / "mkdocs.yml", [(lang, "index.md") for lang in languages()])] * 2
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{free.getsockname()[1]}"
    with log.open("wb") as out:  # its temporary site in tmp_path: it is ended, and cannot remove it
        server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", address], cwd=copy,
                                  env=environment(dict.fromkeys(("TMPDIR", "TEMP", "TMP"), str(tmp_path))),
                                  stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        shows(f"http://{address}/", "</html>", server, log)
        for n, (path, urls) in enumerate(edits):
            marker, before = f"serve-edit-{'abcdefghijklmnopqrstuvwxyz'[n]}", builds(log)
            text = (config + f"\ncopyright: {marker}\n" if path.name == "mkdocs.yml" else path.read_text("utf-8")
                    + (f'\nprint("{marker}")\n' if path.suffix == ".py" else f"\n{marker}\n"))
            save(path, text, in_place=n % 2 == 1)  # mkdocs.yml both ways: a rename must not end its watch
            for lang, page in urls:
                shows(page_url(f"http://{address}/", lang, page), marker, server, log)
            time.sleep(1)  # twice the interval MkDocs polls at: a second build would have begun
            rebuilt = builds(log) - before
            assert rebuilt == 1, f"{path.relative_to(copy)}: {rebuilt} builds for one edit"
        time.sleep(2)
        assert builds(log) == before + 1, "mkdocs serve builds again with nothing edited"
        # CONTRIBUTING.md's promise: a change that makes a claim false is shown at every address (a page, another
        # language's page, a missing one) within seconds, and the site comes back when it is undone; nothing waits
        path, old, new = DRIFTS[0]
        replace(copy / path, old, new)
        saved = time.monotonic()
        for url in (f"http://{address}/", page_url(f"http://{address}/", languages()[-1], pages()[0]),
                    f"http://{address}/no-such-page/"):
            shows(url, "this claim is no longer true", server, log)
        took = time.monotonic() - saved
        assert took < 30, f"the failure reached the browser {took:.1f} s after the save"
        replace(copy / path, new, old)
        shows(f"http://{address}/", '<html lang="ja"', server, log)
    finally:  # not Ctrl-C: a test worker may ignore SIGINT, and its children with it
        server.terminate()
        server.wait(60)


@pytest.mark.parametrize("lang", languages()[1:])
def test_a_translators_preview_serves_the_language(site: Path, tmp_path: Path, lang: str) -> None:
    """TRANSLATING.md's preview, as typed (``LESSON_LANG=<code> .ci/env mkdocs serve``), in the tree: the language's
    pages answer at the root, in the language, with serve's own address in their links (not refused as another
    site's)."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{free.getsockname()[1]}"
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, str(ROOT / ".ci" / "env"), "mkdocs", "serve", "-a", address],
                                  cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                  env=environment({"LESSON_LANG": lang, "TMPDIR": str(tmp_path)}))
    try:
        page = next(p for p in pages(lang) if p != "index.md")
        for url in (f"http://{address}/", page_url(f"http://{address}/", "ja", page)):
            shows(url, f'<html lang="{lang}"', server, log)
        text = log.read_text("utf-8", "replace")
        assert "ERROR" not in text and "Aborted" not in text, text[-3000:]
    finally:
        server.terminate()
        server.wait(60)


# ---- the notebooks ---------------------------------------------------------------------------------------

NOTEBOOKS = [p for p in PROJECT.pages() if p.startswith("notebooks/")]
NOTEBOOK_CASES = [(lang, nb) for lang in languages()[1:] for nb in NOTEBOOKS]


def notebook_outputs(site: Path, lang: str, notebook: str) -> list[str]:
    stem = Path(notebook).stem
    folder = site if lang == "ja" else site / lang
    cells = json.loads((folder / "notebooks" / stem / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return ["".join("".join(o.get("text", "")) for o in c["outputs"]) for c in cells if c["cell_type"] == "code"]


@pytest.mark.parametrize(("lang", "notebook"), NOTEBOOK_CASES,
                         ids=[f"{lang}-{Path(nb).stem}" for lang, nb in NOTEBOOK_CASES])
def test_every_languages_notebook_has_the_japanese_runs_outputs(site: Path, lang: str, notebook: str) -> None:
    literals = PROJECT.strings(lang).literals
    japanese = notebook_outputs(site, "ja", notebook)
    assert any(digits(out, list(literals)) for out in japanese), f"{notebook}: the Japanese notebook prints no number"
    ours = notebook_outputs(site, lang, notebook)
    assert [digits(out, list(literals.values())) for out in ours] == [digits(out, list(literals)) for out in japanese]
