"""The built site in a real browser: every page of every language, served locally, in headless Chromium.

One browser and one browser context for the whole module. Every page is visited once (``visits``, a few
tabs side by side) and what it did is recorded: console and page errors, every request, ``<html lang>``,
the language switcher, the boxes of tables and figures, the visible text. The tests below then check one
property each over all pages, so a failure lists every page it affects. Interactions (quiz, copy button,
search) get tests of their own.

Chromium is Debian's ``/usr/bin/chromium`` (Playwright's browser download needs the internet). Without it
the module is skipped, except under CI (``$CI`` set), where it fails. ``$LESSON_NO_BROWSER`` (a reason)
skips it anywhere: the workflow's macOS and Windows runs set it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

CHROMIUM = Path(os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium"))  # the GitHub workflow sets Chrome
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEFAULT_LANG = "ja"
DOCS = Path(__file__).resolve().parents[1] / "docs"
# Material's code copy button: button.md-clipboard in older releases, in the 9.8 this project pins
# button.md-code__button[data-md-type=copy] inside nav.md-code__nav.
COPY_BUTTON = "button.md-clipboard, button.md-code__button[data-md-type='copy']"

# TeX that would be on screen if a formula were not converted to MathML.
RAW_TEX = re.compile(r"\\(?:frac|sqrt|mathrm|left|right|top|cdot|begin|end)\b|\$\$")

# (language, query, page the query is about). The page is the one whose subject the word is, decided from
# the content: the query's best answer, not merely a page that mentions it.
SEARCHES = [
    ("ja", "アテンション", ""),  # アテンション機構: the lesson's home page
    ("ja", "因果", "causal-mask/"),  # 因果マスク：後ろを覗いてはいけない
    ("ja", "スケーリング", "scaling/"),  # このステップを**スケーリング**と呼びます
    ("ja", "クエリ", "query-key/"),  # クエリとキー：…
    ("ja", "ソフトマックス", "query-key/"),  # where softmax is introduced; the scores figure's caption names it
    ("ja", "因果マスク", "causal-mask/"),
    ("en", "attention", ""),
    ("en", "causal", "causal-mask/"),
    ("en", "scaling", "scaling/"),
    ("zh", "注意力", ""),
    ("zh", "掩码", "causal-mask/"),
]


# --------------------------------------------------------------------------------------------------------
# The site, a server for it, a browser


def prefix(lang: str) -> str:
    return "" if lang == DEFAULT_LANG else f"{lang}/"


def discover_languages(site: Path) -> list[str]:
    """Japanese at the root, then every top-level folder that is a site of its own (page + search index)."""
    others = sorted(
        d.name
        for d in site.iterdir()
        if d.is_dir() and (d / "index.html").is_file() and (d / "search" / "search_index.json").is_file()
    )
    return [DEFAULT_LANG, *others]


def discover_pages(site: Path, lang: str, languages: list[str]) -> list[str]:
    """Page paths of one language relative to its root: "" for the home page, "scaling/" and so on."""
    root = site / prefix(lang)
    skip = {"assets", "search", *(code for code in languages if code != DEFAULT_LANG)}
    pages = []
    for path in sorted(root.rglob("index.html")):
        rel = path.parent.relative_to(root)
        if rel.parts and rel.parts[0] in skip:
            continue
        pages.append("" if not rel.parts else rel.as_posix() + "/")
    return pages


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: far fewer connections for Chromium to open

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session", autouse=True)
def _require_chromium() -> None:
    """Before anything else (the site build included): no browser, no browser tests."""
    if os.environ.get("LESSON_NO_BROWSER"):
        pytest.skip(f"LESSON_NO_BROWSER: {os.environ['LESSON_NO_BROWSER']}")
    if not CHROMIUM.is_file():
        reason = f"{CHROMIUM} not found: the browser tests need Debian's chromium (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_browser(_require_chromium: None) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    """A built site over HTTP on 127.0.0.1 (a free port), served from a thread."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def site_url(chromium_browser: Browser, built_site: Path) -> Iterator[str]:
    """The session's build (the README's), served for the session."""
    with _served(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def published_url(chromium_browser: Browser, published_site: Path) -> Iterator[str]:
    """The deployment's build, with a repository URL and one English page not translated yet (conftest)."""
    with _served(published_site) as url:
        yield url


@pytest.fixture(scope="session")
def context(chromium_browser: Browser, site_url: str) -> Iterator[BrowserContext]:
    ctx = chromium_browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP")
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def languages(built_site: Path) -> list[str]:
    return discover_languages(built_site)


# --------------------------------------------------------------------------------------------------------
# One visit per page


@dataclass
class Visit:
    lang: str
    path: str
    url: str
    status: int | None = None
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    html_lang: str | None = None
    switcher: list[tuple[str | None, str]] = field(default_factory=list)  # (hreflang, absolute href)
    boxes: list[tuple[str, float, float]] = field(default_factory=list)  # tables and figures
    text: str = ""

    @property
    def name(self) -> str:
        return f"/{prefix(self.lang)}{self.path}"


def record_errors(page: Page, visit: Visit) -> None:
    page.on("console", lambda msg: visit.console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: visit.page_errors.append(str(error)))
    page.on("request", lambda request: visit.requests.append(request.url))


TABS = 4  # pages loading side by side: most of a visit is waiting on the network or the other core


@pytest.fixture(scope="session")
def visits(context: BrowserContext, site_url: str, built_site: Path, languages: list[str]) -> list[Visit]:
    """Open every page of every language once and record what happened.

    A few tabs load pages side by side, each tab reused from page to page (a new tab per page costs a
    renderer process each time: half again the CPU on this 2-core machine). A tab's listeners record into
    the visit it is on.
    """
    todo = [Visit(lang, path, site_url + prefix(lang) + path)
            for lang in languages for path in discover_pages(built_site, lang, languages)]
    tabs: list[tuple[Page, dict[str, Visit]]] = []
    for _ in range(min(TABS, len(todo))):
        page, slot = context.new_page(), {}
        page.on("console", lambda msg, slot=slot: slot["v"].console_errors.append(msg.text)
                if msg.type == "error" else None)
        page.on("pageerror", lambda error, slot=slot: slot["v"].page_errors.append(str(error)))
        page.on("request", lambda request, slot=slot: slot["v"].requests.append(request.url))
        tabs.append((page, slot))
    for start in range(0, len(todo), len(tabs)):
        batch = list(zip(tabs, todo[start:start + len(tabs)], strict=False))
        for (page, slot), visit in batch:
            slot["v"] = visit
            response = page.goto(visit.url, wait_until="commit")
            visit.status = response.status if response else None
        for (page, _), visit in batch:
            page.wait_for_load_state("networkidle")  # the search worker's requests included
            visit.html_lang = page.get_attribute("html", "lang")
            visit.switcher = page.eval_on_selector_all(
                "a.md-select__link", "els => els.map(e => [e.getAttribute('hreflang'), e.href])"
            )
            visit.boxes = page.eval_on_selector_all(
                "article table, .lesson-figure svg",
                """els => els.map(e => {
                    const r = e.getBoundingClientRect();
                    const hidden = getComputedStyle(e).visibility === 'hidden';
                    return [e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''),
                            hidden ? 0 : r.width, hidden ? 0 : r.height];
                })""",
            )
            visit.text = page.inner_text("body")
    for page, _ in tabs:
        page.close()
    return todo


def is_own(url: str, site_url: str) -> bool:
    """A request to the site's own origin, or none at all (data:, blob: URLs)."""
    return url.startswith(("data:", "blob:")) or urlsplit(url)[:2] == urlsplit(site_url)[:2]


def failures_message(what: str, failures: list[str]) -> str:
    return f"{what} on {len(failures)} page(s):\n" + "\n".join(failures)


# --------------------------------------------------------------------------------------------------------
# Every page


def test_every_docs_language_is_built(languages: list[str]) -> None:
    in_docs = sorted(p.parent.name for p in DOCS.glob("*/strings.yml"))
    assert sorted(languages) == in_docs, f"built {languages}, docs/ has {in_docs}"


def test_pages_load(visits: list[Visit]) -> None:
    assert visits
    bad = [f"{v.name}: HTTP {v.status}" for v in visits if v.status != 200]
    assert not bad, failures_message("not 200", bad)


def test_no_console_or_page_errors(visits: list[Visit]) -> None:
    bad = [f"{v.name}: {e}" for v in visits for e in v.console_errors + v.page_errors]
    assert not bad, failures_message("console/page errors", bad)


def test_no_third_party_requests(visits: list[Visit], site_url: str) -> None:
    bad = [f"{v.name}: {url}" for v in visits for url in v.requests if not is_own(url, site_url)]
    assert not bad, failures_message("requests to another origin", bad)
    # The search worker's requests count too: each language loads its own index.
    for v in visits:
        assert any(url.endswith(f"/{prefix(v.lang)}search/search_index.json") for url in v.requests), v.name


def test_html_lang(visits: list[Visit]) -> None:
    bad = [f"{v.name}: lang={v.html_lang!r}, expected {v.lang!r}" for v in visits if v.html_lang != v.lang]
    assert not bad, failures_message("wrong <html lang>", bad)


def test_language_switcher(visits: list[Visit], languages: list[str], site_url: str,
                           context: BrowserContext) -> None:
    bad = []
    for v in visits:
        expected = {lang: site_url + prefix(lang) + v.path for lang in languages}
        got = dict(v.switcher)
        if len(v.switcher) != len(languages) or got != expected:
            bad.append(f"{v.name}: switcher {v.switcher}, expected {sorted(expected.items())}")
    statuses: dict[str, int] = {}
    for url in sorted({href for v in visits for _, href in v.switcher}):
        statuses[url] = context.request.get(url, max_redirects=0).status
    bad += [f"switcher link {url}: HTTP {status}" for url, status in statuses.items() if status != 200]
    assert not bad, failures_message("language switcher wrong", bad)


def test_tables_and_figures_visible(visits: list[Visit]) -> None:
    assert any(v.boxes for v in visits), "no table or figure anywhere: the selectors are out of date"
    bad = [f"{v.name}: {tag} is {w}×{h}" for v in visits for tag, w, h in v.boxes if not (w > 0 and h > 0)]
    assert not bad, failures_message("invisible tables/figures", bad)


def test_no_raw_tex_on_screen(visits: list[Visit]) -> None:
    bad = [f"{v.name}: {m.group()!r}" for v in visits for m in RAW_TEX.finditer(v.text)]
    assert not bad, failures_message("raw TeX visible", bad)


# --------------------------------------------------------------------------------------------------------
# One page at a time


@pytest.fixture(scope="session")
def _tab(context: BrowserContext) -> Iterator[tuple[Page, list[str]]]:
    """The tab the interaction tests take turns in, and the page errors it records: a new tab per test costs
    Chromium a new renderer process each time, about as much CPU as loading three pages."""
    tab, errors = context.new_page(), []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab, errors
    tab.close()


@pytest.fixture
def page(_tab: tuple[Page, list[str]]) -> Iterator[Page]:
    """The interaction tests' tab, as a new one would be for this test: no errors recorded, no routes left."""
    tab, errors = _tab
    errors.clear()
    yield tab
    tab.unroute_all()
    tab.goto("about:blank")
    assert not errors, f"page errors: {errors}"


def test_formula_is_mathml(page: Page, site_url: str, languages: list[str]) -> None:
    for lang in languages:
        page.goto(f"{site_url}{prefix(lang)}head/")
        math = page.locator("article math")
        assert math.count() >= 1, f"/{prefix(lang)}head/: no <math> element"
        box = math.first.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, f"/{prefix(lang)}head/: <math> box {box}"
        text = page.inner_text("article")
        assert not RAW_TEX.search(text), f"/{prefix(lang)}head/: raw TeX on screen: {RAW_TEX.findall(text)}"


def test_quiz_answers_open_on_click(page: Page, site_url: str, languages: list[str]) -> None:
    for lang in languages:
        page.goto(f"{site_url}{prefix(lang)}quiz/")
        details = page.locator("article details")
        assert details.count() >= 1, f"/{prefix(lang)}quiz/: no <details>"
        for i in range(details.count()):
            item = details.nth(i)
            answer = item.locator(":scope > :not(summary)").first
            where = f"/{prefix(lang)}quiz/ answer {i + 1}"
            assert item.evaluate("d => d.open") is False, f"{where} is open before any click"
            assert not answer.is_visible(), f"{where}: text visible before any click"
            item.locator("summary").click()
            assert item.evaluate("d => d.open") is True, f"{where} did not open on click"
            answer.wait_for(state="visible", timeout=2_000)
            assert answer.inner_text().strip(), f"{where} is empty"


def test_switcher_on_the_404_page_reaches_every_language(page: Page, site_url: str, languages: list[str]) -> None:
    """The 404 page is served at whatever path was missing: its switcher links from the site's root."""
    from attention_lesson.site import i18n

    for lang in languages:
        page.goto(f"{site_url}{prefix(lang)}404.html")
        assert page.locator("article h1").inner_text().strip() == i18n.ui("not_found_title", lang)
        for target in languages:
            link = page.locator(f'a.md-select__link[hreflang="{target}"]')
            href = link.get_attribute("href")
            assert href == "/" + prefix(target), f"/{prefix(lang)}404.html → {target}: {href}"
            assert page.request.get(site_url.rstrip("/") + href).status == 200


def test_a_fallback_page_says_so_and_links_the_original_its_translation_and_every_language(
    page: Page, published_url: str
) -> None:
    """What a reader and a translator see on a page not translated yet: the banner, its links, the edit button
    (it creates the missing file) and a switcher that reaches the same page in every language."""
    from conftest import REPO_URL, UNTRANSLATED

    from attention_lesson.site import i18n

    lang, source = UNTRANSLATED
    slug = source.removesuffix(".md")
    page.goto(f"{published_url}{prefix(lang)}{slug}/")
    banner = page.locator("article .admonition.warning").first
    assert banner.is_visible() and i18n.ui("untranslated", lang) in banner.inner_text()
    create = f"{REPO_URL}/new/main/docs/{lang}?filename={source}"
    assert banner.locator(f'a[href="{create}"]').is_visible()
    assert banner.locator(f'a[href="{REPO_URL}/blob/main/docs/TRANSLATING.md"]').is_visible()
    edit = page.locator("a.md-content__button[rel=edit]")
    assert edit.is_visible() and edit.get_attribute("href") == create
    for target in i18n.languages():
        href = page.locator(f'a.md-select__link[hreflang="{target}"]').evaluate("a => a.href")
        assert href == f"{published_url}{prefix(target)}{slug}/", f"{lang}/{slug} → {target}: {href}"
        response = page.request.get(href)
        assert response.status == 200 and f'<html lang="{target}"' in response.text(), href
    banner.locator('a[hreflang="ja"]').click()  # the Japanese original
    page.wait_for_url(f"{published_url}{slug}/")
    assert page.get_attribute("html", "lang") == "ja"


def test_the_edit_button_opens_the_pages_own_file_in_every_language(page: Page, published_url: str) -> None:
    from conftest import REPO_URL

    from attention_lesson.site import i18n

    opened: list[str] = []

    def github(route) -> None:  # offline: answer for GitHub, and note where the click went
        opened.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<title>editor</title>")

    page.route(f"{REPO_URL}/**", github)
    for lang in i18n.languages():
        page.goto(f"{published_url}{prefix(lang)}scaling/")
        edit = page.locator("a.md-content__button[rel=edit]")
        assert edit.is_visible(), f"/{prefix(lang)}scaling/: no edit button"
        title = edit.get_attribute("title") or ""
        assert title and (lang == "en" or not re.search(r"[A-Za-z]{3,}", title)), f"{lang}: title {title!r}"
        edit.click()
        page.wait_for_url(f"{REPO_URL}/**")
        assert opened[-1] == f"{REPO_URL}/edit/main/docs/{lang}/scaling.md"


def test_copy_button_copies_the_code(page: Page, site_url: str, languages: list[str]) -> None:
    for lang in languages:
        page.goto(f"{site_url}{prefix(lang)}head/")
        button = page.locator(COPY_BUTTON).first
        target = button.get_attribute("data-clipboard-target")
        assert target, "copy button without data-clipboard-target"
        code = page.locator(target).inner_text()
        page.evaluate("navigator.clipboard.writeText('')")
        button.click()
        page.wait_for_function("async () => (await navigator.clipboard.readText()) !== ''", timeout=3_000)
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == code.rstrip(), f"/{prefix(lang)}head/: copied text differs from the code block"
        assert "import torch" in copied  # the snippet itself, not an empty or output block


# --------------------------------------------------------------------------------------------------------
# Search


def test_temperature_slider_concentrates_the_weights(page: Page, site_url: str, languages: list[str]) -> None:
    """Section 2's slider: moving it to the largest scale puts nearly all of 光's weight on 月."""
    for lang in languages:
        page.goto(f"{site_url}{prefix(lang)}query-key/")
        values = page.locator(".temperature__value")
        before = [float(v) for v in values.all_inner_texts()]
        slider = page.locator(".temperature__input")
        slider.fill(slider.get_attribute("max"))  # a range input takes fill() as its new value
        after = [float(v) for v in values.all_inner_texts()]
        where = f"/{prefix(lang)}query-key/"
        assert before != after, f"{where}: the slider changed nothing"
        assert after.index(max(after)) == 3 and max(after) > 0.8, f"{where}: 月 should take nearly all: {after}"
        assert page.locator(".temperature__scale").inner_text() == slider.get_attribute("aria-valuetext")


@pytest.fixture(scope="session")
def search_pages(context: BrowserContext, site_url: str) -> Iterator[Callable[[str], tuple[Page, Visit]]]:
    """One page per language, reused by every query of that language (the worker indexes once)."""
    pages: dict[str, tuple[Page, Visit]] = {}

    def open_search(lang: str) -> tuple[Page, Visit]:
        if lang not in pages:
            visit = Visit(lang, "", site_url + prefix(lang))
            page = context.new_page()
            record_errors(page, visit)
            page.goto(visit.url)
            pages[lang] = (page, visit)
        return pages[lang]

    yield open_search
    for page, _ in pages.values():
        page.close()


def search(page: Page, query: str) -> list[str]:
    """Type a query into Material's search box and return the result links (page URLs, no query/anchor)."""
    translations = page.evaluate("JSON.parse(document.getElementById('__config').textContent).translations")
    placeholder, none = translations["search.result.placeholder"], translations["search.result.none"]
    box = page.locator("input.md-search__input")
    box.click()
    box.fill("")
    box.press("End")  # Material reads the query on keyup; an empty query shows the placeholder again
    page.wait_for_function(
        "p => document.querySelector('.md-search-result__meta').textContent.trim() === p", arg=placeholder
    )
    box.fill(query)
    box.press("End")
    page.wait_for_function(
        """([p, none]) => {
            const meta = document.querySelector('.md-search-result__meta').textContent.trim();
            return meta !== p && (meta === none || document.querySelector('a.md-search-result__link'));
        }""",
        arg=[placeholder, none],
    )
    hrefs = page.eval_on_selector_all("a.md-search-result__link", "els => els.map(e => e.href)")
    return [urlunsplit((*urlsplit(h)[:3], "", "")) for h in hrefs]


@pytest.mark.parametrize(("lang", "query", "expected"), SEARCHES, ids=[f"{s[0]}-{s[1]}" for s in SEARCHES])
def test_search(lang: str, query: str, expected: str, languages: list[str], site_url: str,
                search_pages: Callable[[str], tuple[Page, Visit]]) -> None:
    if lang not in languages:
        pytest.skip(f"language {lang!r} is not built")
    page, visit = search_pages(lang)
    results = search(page, query)
    # By now the worker has loaded the index and its language scripts: all of it from this site.
    assert all(is_own(url, site_url) for url in visit.requests), visit.requests
    assert not visit.console_errors + visit.page_errors, visit.console_errors + visit.page_errors
    want = site_url + prefix(lang) + expected  # among the results, not necessarily the first
    assert want in results, f"search {query!r} on /{prefix(lang)}: no result links to {want}; got {results}"
