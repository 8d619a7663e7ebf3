"""Adding a language is adding a folder; a translation cannot silently drop or change a listing."""

from __future__ import annotations

import html
import re
import shutil
import sys

import pytest
from conftest import ROOT, build_site, run

from attention_lesson.site import i18n, translations

LANGS = [code for code in i18n.languages() if code != i18n.DEFAULT_LANG]


@pytest.mark.parametrize("lang", LANGS)
def test_shipped_translations_are_complete(lang):
    report = translations.check(lang)
    assert report.drift == [], "\n".join(report.drift)
    assert report.missing_pages == [] and report.extra_pages == []
    assert report.missing_keys == [] and report.extra_keys == []
    assert report.missing_comments == []


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_prints_its_own_labels_and_comments(built_site, lang):
    page = (built_site / lang / "query-key" / "index.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in page
    text = html.unescape(page)
    printed = i18n.strings(lang)["literals"]["「光」の各文字へのスコア："]
    assert f'print("{printed}"' in re.sub(r"<[^>]+>", "", text), "the listing prints the language's string"
    assert text.count(printed) >= 2, "and its output shows it too"
    comment = i18n.strings(lang)["comments"]["「光」が探しているもの：空に関係するもの"]
    assert comment in page.replace("&quot;", '"')
    assert "「光」が探しているもの" not in page


def test_switcher_links_every_page_to_the_same_page_in_every_language(built_site):
    ja = (built_site / "scaling" / "index.html").read_text(encoding="utf-8")
    links = dict(re.findall(r'<a href="([^"]+)" hreflang="([^"]+)"', ja)[i][::-1] for i in range(len(LANGS) + 1))
    assert set(links) == {"ja", *LANGS}
    for lang, href in links.items():
        target = (built_site / "scaling" / href / "index.html").resolve()
        assert target == (built_site / ("" if lang == "ja" else lang) / "scaling" / "index.html").resolve()
        assert target.exists()


def test_each_language_has_its_own_search_index_and_language(built_site):
    import json

    for lang in ["ja", *LANGS]:
        index = json.loads((built_site / ("" if lang == "ja" else lang) / "search" / "search_index.json").read_text())
        assert lang in index["config"]["lang"]
        assert all(not doc["location"].startswith(("en/", "zh/")) for doc in index["docs"])


def test_check_command_fails_on_a_dropped_snippet_include(project_copy):
    page = project_copy / "docs" / "en" / "causal-mask.md"
    page.write_text(page.read_text(encoding="utf-8").replace('--8<-- "snippets/causal_mask.py"\n', ""))
    proc = run([sys.executable, "-m", "attention_lesson.site.translations", "en"], cwd=project_copy,
               env={"PYTHONPATH": str(project_copy / "src")}, check=False)
    assert proc.returncode == 1
    assert "docs/en/causal-mask.md" in proc.stdout and "snippets/causal_mask.py" in proc.stdout


def test_a_new_language_folder_builds_falls_back_and_is_reported(built_site, project_copy, tmp_path):
    """A translator's first step: a folder with strings.yml and one page. The session's build (built_site) has
    stored the lesson's run, as a translator's own checkout has after one build."""
    fr = project_copy / "docs" / "fr"
    fr.mkdir()
    strings = (project_copy / "docs" / "ja" / "strings.yml").read_text(encoding="utf-8")
    strings = strings.replace("name: 日本語", "name: Français").replace(
        "untranslated: ", "untranslated: Cette page n'est pas encore traduite. #", 1)
    (fr / "strings.yml").write_text(strings + "search:\n  lang: [fr]\n", encoding="utf-8")
    shutil.copy(project_copy / "docs" / "ja" / "index.md", fr / "index.md")

    # The Japanese build (which also draws the figures of every language) and the new one's; the others are
    # built by the session's build.
    site = tmp_path / "site"
    proc = build_site(project_copy, site, env={"LESSON_LANG": "ja"})
    # the figures are drawn in French from the stored run: nothing is measured again
    figures = sum(page.read_text(encoding="utf-8").count('title="figure:')
                  for page in (project_copy / "docs" / "ja").glob("*.md"))
    assert f"Runner (ja): {figures} blocks run" in proc.stderr, proc.stderr[-2000:]
    build_site(project_copy, site / "fr", env={"LESSON_LANG": "fr"})
    assert '<html lang="fr"' in (site / "fr" / "index.html").read_text(encoding="utf-8")
    assert 'hreflang="fr"' in (site / "scaling" / "index.html").read_text(encoding="utf-8")
    fallback = (site / "fr" / "scaling" / "index.html").read_text(encoding="utf-8")
    assert "Cette page n'est pas encore traduite." in html.unescape(fallback)
    assert 'href="../../scaling/"' in fallback  # the banner links the Japanese original

    proc = run([sys.executable, "-m", "attention_lesson.site.translations", "fr"], cwd=project_copy,
               env={"PYTHONPATH": str(project_copy / "src")}, check=False)
    assert proc.returncode == 0, proc.stdout
    assert "scaling.md" in proc.stdout and "missing pages" in proc.stdout
    assert "untranslated code comments" in proc.stdout


def test_status_page_is_generated_for_every_language(built_site):
    page = (built_site / "translation-status" / "index.html").read_text(encoding="utf-8")
    for lang in LANGS:
        assert i18n.strings(lang)["name"] in page
    assert page.count("<tr>") >= len(translations.pages("ja")) + 1
    assert (ROOT / "docs" / "ja" / "translation-status.md").exists() is False  # generated, never a file
