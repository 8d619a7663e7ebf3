"""The published site, as search engines, readers and translators see it: built with the deployment's site and
repository URLs, every page names itself and the same page in every language, and speaks its own language."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from conftest import LANGUAGES, REPO_URL, SITE_URL, UNTRANSLATED

from attention_lesson.site import i18n

LANGS = LANGUAGES


def prefix(lang: str) -> str:
    return "" if lang == i18n.DEFAULT_LANG else f"{lang}/"


@pytest.fixture
def published(published_site) -> Path:
    """The deployment's build (see conftest.published_site: one English page is not translated yet)."""
    return published_site


def pages(site: Path, lang: str) -> list[str]:
    """Every lesson page of a language, as its URL path below the language's root."""
    root = site / prefix(lang).rstrip("/") if prefix(lang) else site
    found = [p.parent.relative_to(root).as_posix() + "/" for p in root.rglob("index.html")]
    return sorted(p.replace("./", "") for p in found if not p.startswith(tuple(f"{code}/" for code in LANGS)))


def sitemap(published: Path) -> dict[str, dict[str, str]]:
    """loc → hreflang → href, from the root sitemap."""
    text = (published / "sitemap.xml").read_text(encoding="utf-8")
    return {re.search(r"<loc>([^<]+)</loc>", url)[1]: {lang: href for lang, href in re.findall(
                r'<xhtml:link rel="alternate" hreflang="([^"]+)" href="([^"]+)"/>', url)}
            for url in re.findall(r"<url>.*?</url>", text, flags=re.S)}


def test_sitemap_lists_every_page_of_every_language_with_the_same_page_in_each(published):
    entries = sitemap(published)
    for lang in LANGS:
        for page in pages(published, lang):
            here = "" if page == "/" else page
            loc = f"{SITE_URL}{prefix(lang)}{here}"
            assert loc in entries, f"{lang}/{page} is not in the sitemap"
            assert entries[loc] == {**{code: f"{SITE_URL}{prefix(code)}{here}" for code in LANGS},
                                    "x-default": f"{SITE_URL}{here}"}, loc


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_has_a_canonical_link_and_no_misleading_alternates(published, lang):
    for page in pages(published, lang):
        raw = (published / prefix(lang) / page / "index.html").read_text(encoding="utf-8")
        here = "" if page == "/" else page
        assert f'<link rel="canonical" href="{SITE_URL}{prefix(lang)}{here}">' in raw, f"{lang}/{page}"
        assert '<link rel="alternate" href' not in raw, f"{lang}/{page}: hreflang belongs to the sitemap"


@pytest.mark.parametrize("lang", LANGS)
def test_description_and_open_graph_are_in_the_pages_language(published, lang):
    raw = (published / prefix(lang) / "scaling" / "index.html").read_text(encoding="utf-8")
    description = i18n.strings(lang)["site_description"]
    assert f'<meta name="description" content="{description}">' in raw
    assert f'<meta property="og:description" content="{description}">' in raw
    assert f'<meta property="og:locale" content="{lang}">' in raw
    assert "og:image" not in raw


def test_edit_links_point_at_each_pages_own_file(published):
    for lang in LANGS:
        raw = (published / prefix(lang) / "scaling" / "index.html").read_text(encoding="utf-8")
        assert "example/attention-lesson" in raw and ">None<" not in raw  # the header's repository name
        assert f'href="{REPO_URL}/edit/main/docs/{lang}/scaling.md"' in raw
        notebook = (published / prefix(lang) / "notebooks" / "exercise-1" / "index.html").read_text(encoding="utf-8")
        assert f'href="{REPO_URL}/edit/main/docs/{lang}/notebooks/exercise-1.py"' in notebook


def test_a_fallback_page_links_to_where_its_translation_goes_and_to_the_guide(published):
    lang, page = UNTRANSLATED
    raw = html.unescape((published / lang / page.removesuffix(".md") / "index.html").read_text(encoding="utf-8"))
    assert f"{REPO_URL}/new/main/docs/{lang}?filename={page}" in raw
    assert f"{REPO_URL}/blob/main/docs/TRANSLATING.md" in raw


@pytest.mark.parametrize("lang", LANGS)
def test_the_404_page_speaks_the_language_and_its_switcher_links_from_the_site_root(published, lang):
    raw = (published / prefix(lang) / "404.html").read_text(encoding="utf-8")
    assert i18n.ui("not_found_title", lang) in raw and "404 - Not found" not in raw
    links = re.findall(r'<a href="([^"]+)" hreflang="([^"]+)"', raw)
    assert dict((code, href) for href, code in links) == {code: f"/attention/{prefix(code)}" for code in LANGS}


@pytest.mark.parametrize("lang", [code for code in LANGS if code != "en"])
def test_no_english_interface_text_on_other_languages_pages(published, lang):
    english = re.compile(r'(?:title|aria-label|placeholder|alt)="([^"]*\b[A-Za-z]{3,}\b[^"]*)"')
    allowed = {"PyTorch", "SDPA", "softmax", "Transformer", "GitHub", "ipynb"}  # names, the same in every language
    others = {code for code in LANGS if code != i18n.DEFAULT_LANG}
    for path in published.rglob("*.html"):
        first = path.relative_to(published).parts[0]
        if (first if first in others else i18n.DEFAULT_LANG) != lang:
            continue
        for text in english.findall(path.read_text(encoding="utf-8")):
            words = set(re.findall(r"[A-Za-z]{3,}", text)) - allowed
            assert not words, f"{path.relative_to(published)}: English attribute text {text!r}"
