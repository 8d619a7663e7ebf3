"""The built site in a real browser: every page of every language, served locally, in headless Chromium.

One browser and one browser context for the whole module. Every page is visited once (``visits``, a few
tabs side by side) and what it did is recorded: console and page errors, every request, ``<html lang>``,
the language switcher, the boxes of tables and figures, the visible text. The tests below then check one
property each over all pages, so a failure lists every page it affects. Interactions (quiz, copy button,
search) get tests of their own.

Chromium is Debian's headless shell, ``/usr/bin/chromium-headless-shell`` (Playwright's browser download needs
the internet; ``$LESSON_CHROMIUM`` names another). Without it the module is skipped, except under CI (``$CI``
set), where it fails. ``$LESSON_NO_BROWSER`` (a reason) skips it anywhere: the workflow's macOS and Windows runs
set it.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import http.server
import json
import os
import random
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from conftest import LANGUAGES, RAW_TEX
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

CHROMIUM = Path(os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium-headless-shell"))
"""Debian's chromium-headless-shell: chromium's Blink and V8 without the desktop browser around them, as Playwright's
own headless Chromium is. A page load takes it 0.25-0.3 CPU-s, against chromium's 0.38-0.5 (the browser tests:
104 CPU-s instead of 132). The GitHub workflow sets its runner's Chrome."""
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


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A tab that moves on closes the connections it no longer needs, sometimes mid-file: that is the
        browser's choice, not an error of the site (socketserver would print its traceback)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session", autouse=True)
def _require_chromium() -> None:
    """Before anything else (the site build included): no browser, no browser tests."""
    if os.environ.get("LESSON_NO_BROWSER"):
        pytest.skip(f"LESSON_NO_BROWSER: {os.environ['LESSON_NO_BROWSER']}")
    if not CHROMIUM.is_file():
        reason = (f"{CHROMIUM} not found: the browser tests need Debian's chromium-headless-shell "
                  "(apt-get install chromium-headless-shell)")
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
    server = _QuietServer(("127.0.0.1", 0), handler)
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
    maths: list[tuple[float, float]] = field(default_factory=list)  # the article's <math> elements (width, height)
    text: str = ""

    @property
    def name(self) -> str:
        return f"/{prefix(self.lang)}{self.path}"


def record_errors(page: Page, visit: Visit) -> None:
    page.on("console", lambda msg: visit.console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: visit.page_errors.append(str(error)))
    page.on("request", lambda request: visit.requests.append(request.url))


TABS = 3
"""Pages loading side by side. A page load is mostly CPU (its scripts, the search worker's index): on two
cores three tabs keep both busy while this process reads one of them; more do not load any faster."""

SEARCH_READY = """() => {
    const meta = document.querySelector(".md-search-result__meta");
    const config = document.getElementById("__config");
    if (!meta || !config) return true;
    return meta.textContent.trim() === JSON.parse(config.textContent).translations["search.result.placeholder"];
}"""
"""Material's search is ready: its worker has loaded the language's index and scripts and the search box's
message has turned from "initializing" to the placeholder. (No search box at all: nothing to wait for; the
index a page did not request is test_no_third_party_requests' failure.)"""


SEARCH_PATIENCE, SEARCH_PATIENCE_ONCE_BROKEN = 10_000, 1_000
"""How long a visit waits for the search to be ready (ms); once a page's never was, the search is most likely
broken everywhere, and the other pages wait a second each, to say so soon."""


def record_visit(page: Page, visit: Visit, patience: float) -> bool:
    """What a page did once it has finished loading: its load event (every resource of the document) and its
    search worker's requests (see SEARCH_READY), then what it shows. Those two are all the requests a page
    makes by itself, and waiting for them is what networkidle did, without its half second of quiet. False:
    the search was not ready within `patience` ms (a page error of the visit)."""
    page.wait_for_load_state("load")
    try:
        page.wait_for_function(SEARCH_READY, polling=50, timeout=patience)
        ready = True
    except PlaywrightTimeoutError:
        visit.page_errors.append(f"the search was not ready after {patience / 1000:g} s (still initializing)")
        ready = False
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
    visit.maths = page.eval_on_selector_all("article math", """els => els.map(e => {
        const r = e.getBoundingClientRect();
        return [r.width, r.height];
    })""")
    visit.text = page.inner_text("body")
    return ready


IN_EVERY_LANGUAGE = ("", "averaging/", "head/", "notebooks/exercise-1/")
"""The pages visited in every language: the home page, a heatmap's rows speaking the page's language
(averaging), the maths (head) and a notebook (mkdocs-jupyter's page). Every page of the source language is
visited. The interaction tests below load the explorer's and the causal mask's pages in every language, with
their console and page errors recorded. A translation's other pages are the same templates, styles and
scripts with other words, whose HTML is read for what a visit would see of them: the language, nothing
loaded from another origin and no raw TeX (tests/test_site.py), the switcher (tests/test_translations.py). (A
visit costs Chromium 0.4-0.6 CPU-s; these are 20 fewer.)"""


@pytest.fixture(scope="session")
def visits(context: BrowserContext, site_url: str, built_site: Path, languages: list[str]) -> list[Visit]:
    """Open every page of the source language and IN_EVERY_LANGUAGE of the others, once each, and record what
    happened.

    A few tabs load pages side by side, each tab reused from page to page (a new tab per page costs a
    renderer process each time: half again the CPU on this 2-core machine), in turn: a tab that is done
    starts its next page while the others finish theirs. A tab's listeners record into the visit it is on.
    """
    pages = {lang: discover_pages(built_site, lang, languages) for lang in languages}
    missing = [f"/{prefix(lang)}{path}" for lang in languages for path in IN_EVERY_LANGUAGE if path not in pages[lang]]
    assert not missing, f"IN_EVERY_LANGUAGE names pages the site does not have: {missing}"
    todo = [Visit(lang, path, site_url + prefix(lang) + path) for lang in languages for path in pages[lang]
            if lang == DEFAULT_LANG or path in IN_EVERY_LANGUAGE]
    waiting = iter(todo)
    turns: collections.deque[tuple[Page, dict[str, Visit]]] = collections.deque()

    def load_next(page: Page, slot: dict[str, Visit]) -> None:
        visit = next(waiting, None)
        if visit is None:
            page.close()
            return
        slot["v"] = visit
        response = page.goto(visit.url, wait_until="commit")
        visit.status = response.status if response else None
        turns.append((page, slot))

    for _ in range(min(TABS, len(todo))):
        page, slot = context.new_page(), {}
        page.on("console", lambda msg, slot=slot: slot["v"].console_errors.append(msg.text)
                if msg.type == "error" else None)
        page.on("pageerror", lambda error, slot=slot: slot["v"].page_errors.append(str(error)))
        page.on("request", lambda request, slot=slot: slot["v"].requests.append(request.url))
        load_next(page, slot)
    patience = SEARCH_PATIENCE
    while turns:
        page, slot = turns.popleft()
        if not record_visit(page, slot["v"], patience):
            patience = SEARCH_PATIENCE_ONCE_BROKEN
        load_next(page, slot)
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
    """The interaction tests' tab, as a new one would be for this test: no errors recorded, no routes left, the
    screen's default palette."""
    tab, errors = _tab
    errors.clear()
    yield tab
    tab.unroute_all()
    tab.emulate_media(color_scheme="light")  # Playwright's default
    tab.goto("about:blank")
    assert not errors, f"page errors: {errors}"


def test_formula_is_mathml(visits: list[Visit], languages: list[str]) -> None:
    """The head page's formula is MathML on screen in every language, not TeX (its page as visits() saw it:
    a tab of its own would load the page again for the same three facts)."""
    heads = {v.lang: v for v in visits if v.path == "head/"}
    assert sorted(heads) == sorted(languages)
    for lang, v in heads.items():
        assert v.maths, f"/{prefix(lang)}head/: no <math> element"
        width, height = v.maths[0]
        assert width > 0 and height > 0, f"/{prefix(lang)}head/: <math> box {width}×{height}"
        assert not RAW_TEX.search(v.text), f"/{prefix(lang)}head/: raw TeX on screen: {RAW_TEX.findall(v.text)}"


def test_quiz_answers_open_on_click(page: Page, site_url: str) -> None:
    """On the source language's page: the answers are the same <details> in every language, which
    tests/test_site.py checks are folded."""
    for lang in [DEFAULT_LANG]:
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
    for target in LANGUAGES:
        href = page.locator(f'a.md-select__link[hreflang="{target}"]').evaluate("a => a.href")
        assert href == f"{published_url}{prefix(target)}{slug}/", f"{lang}/{slug} → {target}: {href}"
        response = page.request.get(href)
        assert response.status == 200 and f'<html lang="{target}"' in response.text(), href
    banner.locator('a[hreflang="ja"]').click()  # the Japanese original
    page.wait_for_url(f"{published_url}{slug}/")
    assert page.get_attribute("html", "lang") == "ja"


def test_the_edit_button_opens_the_pages_own_file_in_every_language(page: Page, published_url: str) -> None:
    from conftest import REPO_URL


    opened: list[str] = []

    def github(route) -> None:  # offline: answer for GitHub, and note where the click went
        opened.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<title>editor</title>")

    page.route(f"{REPO_URL}/**", github)
    for lang in LANGUAGES:
        page.goto(f"{published_url}{prefix(lang)}scaling/")
        edit = page.locator("a.md-content__button[rel=edit]")
        assert edit.is_visible(), f"/{prefix(lang)}scaling/: no edit button"
        title = edit.get_attribute("title") or ""
        assert title and (lang == "en" or not re.search(r"[A-Za-z]{3,}", title)), f"{lang}: title {title!r}"
        edit.click()
        page.wait_for_url(f"{REPO_URL}/**")
        assert opened[-1] == f"{REPO_URL}/edit/main/docs/{lang}/scaling.md"


def test_copy_button_copies_the_code(page: Page, site_url: str) -> None:
    """On the source language's page: Material's button is the same in every language, and what it copies
    (the code block's text) is what tests/test_reader_code.py runs in every language."""
    for lang in [DEFAULT_LANG]:
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
# Section 2's explorer and the heatmaps' rows (theme/assets/javascripts/lesson.js)


@pytest.fixture(scope="module")
def printed() -> dict[str, list[dict[str, float]]]:
    """What snippets/scoring.py and snippets/exercise_1.py print: each line's {character: value} (scores,
    weights, weights of the scores ×5), Python's round(v, 2). Run in this process, as `python snippets/….py`
    runs them (their `__main__`): they read nothing but torch, which is here already; the reader's own Python
    runs them as copied in tests/test_reader_code.py."""
    import ast
    import io
    import runpy

    from conftest import SNIPPETS

    def dicts(name: str) -> list[dict[str, float]]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(SNIPPETS / f"{name}.py"), run_name="__main__")
        found = [ast.literal_eval(line[line.index("{"):]) for line in out.getvalue().splitlines() if "{" in line]
        assert len(found) == 3, out.getvalue()
        return found

    return {name: dicts(name) for name in ("scoring", "exercise_1")}


def explorer(page: Page) -> dict:
    return json.loads(page.get_attribute("[data-qk]", "data-qk"))


def shown(page: Page) -> tuple[dict[str, float], dict[str, float]]:
    """The explorer's scores and weights as it writes them (two decimals), by character."""
    words = page.locator(".lesson-qk__word").all_inner_texts()
    values = [float(v) for v in page.locator(".lesson-qk__value").all_inner_texts()]
    half = len(words) // 2
    return dict(zip(words[:half], values[:half], strict=True)), dict(zip(words[half:], values[half:], strict=True))


def plane_point(page: Page, x: float, y: float) -> tuple[float, float]:
    """Where the point [x, y] of the explorer's plane is in the viewport."""
    return tuple(page.evaluate(
        """([x, y]) => {
            const fig = document.querySelector("[data-qk]");
            const { origin, unit } = JSON.parse(fig.dataset.qk).plane;
            const p = new DOMPoint(origin[0] + unit * x, origin[1] - unit * y);
            const at = p.matrixTransform(fig.querySelector("svg").getScreenCTM());
            return [at.x, at.y];
        }""",
        [x, y],
    ))


def set_scale(page: Page, scale: float) -> None:
    page.locator(".lesson-qk__scale input").fill(str(explorer(page)["scales"].index(scale)))
    assert page.locator(".lesson-qk__scale output").inner_text() == f"×{scale:g}"


def expect(page: Page, where: str, lines: list[dict[str, float]], x5: bool = False) -> None:
    """The explorer shows a listing's printed scores, and its weights (×5: of the scores ×5). The explorer
    writes two decimals (0.30), the listing Python's shortest form of round(v, 2) (0.3): compared as numbers."""
    scores, weights = shown(page)
    assert scores == lines[0], f"{where}: scores {scores}, printed {lines[0]}"
    assert weights == lines[2 if x5 else 1], f"{where}: weights {weights}, printed {lines[2 if x5 else 1]}"


def console_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return errors


def test_the_explorer_drags_the_query_to_exercise_1_and_shows_what_it_prints(
    page: Page, site_url: str, languages: list[str], printed: dict
) -> None:
    """Drag the query from 光's [1, 0] to [0, 1] with the mouse: the scores and weights are exercise 1's, at
    multipliers 1 and 5, and the live region reads the weights in the page's language."""
    from attention_lesson.site import i18n

    errors = console_errors(page)
    for lang in languages:
        where = f"/{prefix(lang)}query-key/"
        page.goto(f"{site_url}{prefix(lang)}query-key/")
        expect(page, where + " before any move", printed["scoring"])
        page.locator(".lesson-qk__plane").scroll_into_view_if_needed()
        page.mouse.move(*plane_point(page, 1, 0))
        page.mouse.down()
        page.mouse.move(*plane_point(page, 0.5, 0.6), steps=4)
        page.mouse.move(*plane_point(page, 0.01, 0.99), steps=4)  # a pixel or so off: it snaps to the grid
        page.mouse.up()
        assert page.locator(".lesson-qk__q").inner_text() == "q = [0.00, 1.00]", where
        expect(page, where + " dragged to [0, 1]", printed["exercise_1"])
        weights = printed["exercise_1"][1]
        live = i18n.ui("qk_live", lang).format(
            weights=i18n.ui("list_sep", lang).join(f"{w} {v:.2f}" for w, v in weights.items()))
        page.wait_for_function("t => document.querySelector('.lesson-qk__live').textContent === t", arg=live)
        set_scale(page, 5.0)
        expect(page, where + " at [0, 1], ×5", printed["exercise_1"], x5=True)
        assert "is-current" in (page.locator(".lesson-qk__preset").nth(1).get_attribute("class") or "")
    assert not errors, errors


def test_the_explorer_presets_are_the_listing_and_exercise_1(page: Page, site_url: str, printed: dict) -> None:
    """(On the source language's page: the explorer's script and numbers are the same on every language's,
    which the drag and palette tests go through.)"""
    errors = console_errors(page)
    for lang in [DEFAULT_LANG]:
        where = f"/{prefix(lang)}query-key/"
        page.goto(f"{site_url}{prefix(lang)}query-key/")
        presets = page.locator(".lesson-qk__preset")
        assert presets.count() == 2 and presets.nth(0).is_enabled(), where
        assert "[1, 0]" in presets.nth(0).inner_text() and "[0, 1]" in presets.nth(1).inner_text(), where
        for scale, x5 in ((1.0, False), (5.0, True)):
            set_scale(page, scale)
            presets.nth(1).click()
            expect(page, f"{where} exercise 1's preset ×{scale:g}", printed["exercise_1"], x5)
            presets.nth(0).click()
            expect(page, f"{where} the listing's preset ×{scale:g}", printed["scoring"], x5)
        set_scale(page, 0.0)  # no multiplier: every weight the same
        assert set(shown(page)[1].values()) == {0.2}, where
        set_scale(page, explorer(page)["scales"][-1])  # the largest: 月 takes nearly all
        weights = shown(page)[1]
        assert max(weights, key=weights.get) == "月" and weights["月"] > 0.8, f"{where}: {weights}"
    assert not errors, errors


def test_the_explorer_moves_with_the_keyboard(page: Page, site_url: str, printed: dict) -> None:
    """The handle is a focusable slider: Tab reaches it, the arrow keys move the query by the grid's step
    (Shift: five steps), Home goes back to the listing's query, and its value text follows. (On the source
    language's page, as the presets.)"""
    errors = console_errors(page)
    for lang in [DEFAULT_LANG]:
        where = f"/{prefix(lang)}query-key/"
        page.goto(f"{site_url}{prefix(lang)}query-key/")
        handle = page.locator(".lesson-qk__handle")
        assert handle.get_attribute("role") == "slider" and handle.get_attribute("tabindex") == "0", where
        page.locator(".lesson-qk__plane").scroll_into_view_if_needed()
        page.focus(".lesson-qk__scale input")
        page.keyboard.press("Shift+Tab")  # the handle comes just before the multiplier's slider
        assert page.evaluate("document.activeElement.classList.contains('lesson-qk__handle')"), where
        step = explorer(page)["step"]
        for _ in range(round(1 / step)):
            page.keyboard.press("ArrowLeft")
        for _ in range(round(1 / step / 5)):
            page.keyboard.press("Shift+ArrowUp")
        assert handle.get_attribute("aria-valuetext") == "q = [0.00, 1.00]", where
        expect(page, where + " at [0, 1] by the keyboard", printed["exercise_1"])
        page.keyboard.press("ArrowDown")
        assert handle.get_attribute("aria-valuetext") == f"q = [0.00, {1 - step:.2f}]", where
        page.keyboard.press("Home")
        expect(page, where + " Home", printed["scoring"])
        for _ in range(40):  # the query stays within its range
            page.keyboard.press("Shift+ArrowRight")
        high = explorer(page)["range"][1]
        assert handle.get_attribute("aria-valuetext") == f"q = [{high:.2f}, 0.00]", where
    assert not errors, errors


GRID_SEED = 20240601
"""The seed of the grid test's stratified sample: a fixed one, so that a failure names the same points again."""

Op = tuple[str, str | int | None]
State = tuple[int, int, int]


def grid_walk(n: int, scales: int, full: set[tuple[int, int]]) -> tuple[list[Op], list[State]]:
    """A walk over the explorer's (n + 1) × (n + 1) grid by its arrow keys, from the bottom-left corner row by
    row in a serpentine, and the states read along it: (x, y, multiplier), x and y counted in steps from the
    corner. Each point is read at the multiplier it is reached with and at the next one (the multipliers taking
    turns as the walk goes on, so each one is read on two ninths of the points, spread over the whole plane);
    the points of `full` at every multiplier. Ops: ("key", name), ("scale", index), ("read", None)."""
    ops: list[Op] = [("key", "ArrowLeft")] * n + [("key", "ArrowDown")] * n  # to the corner (clamped beyond)
    scale, states = 0, list[State]()
    ops.append(("scale", scale))
    for y in range(n + 1):
        row = range(n + 1) if y % 2 == 0 else range(n, -1, -1)
        for x in row:
            for turn in range(scales if (x, y) in full else 2):
                if turn:
                    scale = (scale + 1) % scales
                    ops.append(("scale", scale))
                ops.append(("read", None))
                states.append((x, y, scale))
            if x != row[-1]:
                ops.append(("key", "ArrowRight" if y % 2 == 0 else "ArrowLeft"))
        if y < n:
            ops.append(("key", "ArrowUp"))
    return ops, states


def every_multiplier_at(n: int, presets: list[tuple[int, int]], seed: int) -> set[tuple[int, int]]:
    """Where the grid test reads every multiplier: the grid's border (corners and edges, where the query is
    clamped), the presets, the query [0, 0] (the figure hides its projection there), and one point drawn at
    random in each 5 × 5 block of the grid (a stratified sample, seeded)."""
    rng = random.Random(seed)
    border = {(x, y) for x in range(n + 1) for y in range(n + 1) if {x, y} & {0, n}}
    blocks = {(rng.randint(bx, min(bx + 4, n)), rng.randint(by, min(by + 4, n)))
              for bx in range(0, n + 1, 5) for by in range(0, n + 1, 5)}
    return border | set(presets) | blocks


def test_the_explorer_agrees_with_torch_on_every_point_of_the_grid(page: Page, site_url: str) -> None:
    """Where the reader can put the query (the grid a drag snaps to, the arrow keys' steps), the explorer
    writes the scores and weights torch computes for that query in float32, to the two decimals shown, as
    Python's round(v, 2) writes them: the script is driven by its own key handler. Every point of the grid is
    read, the scores there (they do not depend on the multiplier) and the weights at two multipliers in turn;
    every multiplier on the border, at the presets, at [0, 0] and at a seeded random point of each 5 × 5 block.
    Every multiplier at every point (11,025 states) took three times as long in the browser, and a mistake
    shows either over whole regions of the plane (the float32 products, a multiplier applied wrong) or at
    single points at every multiplier (a score's rounding tie, a -0.00), which are all read."""
    import torch

    page.goto(f"{site_url}query-key/")
    data = explorer(page)
    grid = round(1 / data["step"])
    low, high = (round(v * grid) for v in data["range"])
    n, scales = high - low, data["scales"]
    presets = [(round(x * grid) - low, round(y * grid) - low) for x, y in data["presets"]]
    full = every_multiplier_at(n, [*presets, (-low, -low)], GRID_SEED)
    ops, states = grid_walk(n, len(scales), full)
    shown = page.evaluate(
        """(ops) => {
            const fig = document.querySelector("[data-qk]");
            const handle = fig.querySelector(".lesson-qk__handle");
            const input = fig.querySelector(".lesson-qk__scale input");
            const values = fig.querySelectorAll(".lesson-qk__value");
            const out = [];
            for (const [op, arg] of ops) {
                if (op === "key") handle.dispatchEvent(new KeyboardEvent("keydown", { key: arg, bubbles: true }));
                else if (op === "scale") { input.value = String(arg); input.dispatchEvent(new Event("input")); }
                else out.push([...values].map((v) => v.textContent));
            }
            return out;
        }""",
        ops,
    )
    assert {(x, y) for x, y, _ in states} == {(x, y) for x in range(n + 1) for y in range(n + 1)}
    keys, expected, scores = torch.tensor(data["keys"]), [], {}
    for x, y, s in states:
        if (x, y) not in scores:
            # keys @ q without the fused multiply-add MKL uses on AVX-512 (lesson.js says why)
            scores[(x, y)] = (keys * torch.tensor([(x + low) / grid, (y + low) / grid])).sum(-1)
        values = scores[(x, y)].tolist() + torch.softmax(scores[(x, y)] * scales[s], dim=-1).tolist()
        expected.append([f"{round(v, 2) + 0.0:.2f}" for v in values])
    assert len(shown) == len(expected)
    where = [((x + low) / grid, (y + low) / grid, scales[s]) for x, y, s in states]
    wrong = [(at, got, want) for at, got, want in zip(where, shown, expected, strict=True) if got != want]
    assert not wrong, f"{len(wrong)} of {len(expected)} differ, e.g. (q, multiplier), shown, torch: {wrong[:3]}"


def heat_readout(lang: str, query: str, weights: list[tuple[str, str]], masked: list[str]) -> str:
    from attention_lesson.site import i18n

    sep = i18n.ui("list_sep", lang)
    text = i18n.ui("heat_row", lang).format(query=query, weights=sep.join(f"{w} {v}" for w, v in weights))
    return text + (i18n.ui("heat_masked", lang).format(words=sep.join(masked)) if masked else "")


def test_a_heatmap_row_says_what_that_character_attends_to(page: Page, site_url: str,
                                                          languages: list[str]) -> None:
    """On the causal-mask page, pointing at a row (or focusing it, and moving with the arrow keys) writes the
    characters that row attends to with the weights the lesson printed, and names the masked ones; the head
    and averaging pages' heatmaps answer the same way (on the source language's pages: theirs is the same
    script and markup with other cells, whose words in every language the causal-mask page has shown)."""
    from test_lesson_values import CAUSAL, WORDS

    from attention_lesson.site import i18n

    def expected(lang: str, i: int) -> str:
        seen = [(WORDS[j], CAUSAL[i][j]) for j in range(i + 1)]
        return heat_readout(lang, WORDS[i], seen, list(WORDS[i + 1:]))

    errors = console_errors(page)
    for lang in languages:
        where = f"/{prefix(lang)}causal-mask/"
        page.goto(f"{site_url}{prefix(lang)}causal-mask/")
        readout = page.locator(".lesson-heat__readout")
        assert readout.inner_text() == i18n.ui("heat_hint", lang), where
        rows = page.locator(".lesson-heat__row")
        assert rows.count() == len(WORDS), where
        rows.nth(4).hover()
        assert readout.inner_text() == expected(lang, 4), where
        box = rows.nth(4).bounding_box()
        data = json.loads(page.get_attribute("[data-heat]", "data-heat"))
        cells, left, width = data["cells"], data["box"][0], data["box"][2]
        column = 1  # point at the cell 光 → 前
        x = box["x"] + box["width"] * (cells[0] + (column + 0.5) * cells[1] - left) / width
        page.mouse.move(x, box["y"] + box["height"] / 2)
        assert readout.locator("strong").inner_text() == f"{WORDS[column]} {CAUSAL[4][column]}", where
        page.mouse.move(0, 0)
        assert readout.inner_text() == i18n.ui("heat_hint", lang), where
        rows.nth(0).focus()
        assert readout.inner_text() == expected(lang, 0), where
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        assert readout.inner_text() == expected(lang, 2), where
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == expected(lang, 2), where
        assert [rows.nth(i).get_attribute("tabindex") for i in range(len(WORDS))] == ["-1", "-1", "0", "-1", "-1"]
        for other in ("head", "averaging") if lang == DEFAULT_LANG else ():
            page.goto(f"{site_url}{prefix(lang)}{other}/")
            page.locator(".lesson-heat__row").nth(0).hover()  # the first character sees only itself
            text = page.locator(".lesson-heat__readout").inner_text()
            assert text == heat_readout(lang, WORDS[0], [(WORDS[0], "1.00")], list(WORDS[1:])), f"{other}: {text}"
    assert not errors, errors


def test_without_javascript_the_figures_stay_as_drawn(chromium_browser: Browser, site_url: str,
                                                      printed: dict) -> None:
    """On the source language's pages: the figures as drawn are the same markup in every language, whose
    values tests/test_lesson_values.py reads in each."""
    ctx = chromium_browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        for lang in [DEFAULT_LANG]:
            page.goto(f"{site_url}{prefix(lang)}query-key/")
            expect(page, f"/{prefix(lang)}query-key/ without JavaScript", printed["scoring"])
            assert page.locator(".lesson-figure svg").first.is_visible()
            assert page.locator(".lesson-qk__preset").nth(0).is_disabled()  # nothing to press without the script
            page.goto(f"{site_url}{prefix(lang)}causal-mask/")
            assert page.locator(".lesson-heat svg").is_visible() and page.locator(".lesson-heat__row").count() == 0
    finally:
        ctx.close()


PHONE = (390, 844)


@pytest.fixture(scope="module")
def _phone_tab(chromium_browser: Browser) -> Iterator[Page]:
    """A phone's tab (touch, a narrow screen, two device pixels per CSS pixel) that the phone tests take turns
    in, as the others do in _tab: a new browser context per test costs Chromium a renderer process and a cold
    first page."""
    ctx = chromium_browser.new_context(viewport=dict(zip(("width", "height"), PHONE, strict=True)), is_mobile=True,
                                       has_touch=True, device_scale_factor=2)
    yield ctx.new_page()
    ctx.close()


@pytest.fixture
def phone(_phone_tab: Page) -> Iterator[Page]:
    """The phone's tab, left as a new one would be for the next test: the screen's default palette, no page."""
    yield _phone_tab
    _phone_tab.emulate_media(color_scheme="light")  # Playwright's default
    _phone_tab.goto("about:blank")


def test_a_finger_drags_the_query_and_elsewhere_scrolls_the_page(phone: Page, site_url: str, printed: dict) -> None:
    """On a phone: a finger on the handle drags the query (to exercise 1's [0, 1]) and the page stays put; a
    finger on the rest of the plane scrolls the page and leaves the query where it is. (On the source
    language's page, as the presets; the palette test taps every language's explorer on a phone.)"""
    page = phone
    cdp = page.context.new_cdp_session(page)
    try:
        errors = console_errors(page)

        def touch(kind: str, *points: tuple[float, float]) -> None:
            cdp.send("Input.dispatchTouchEvent",
                     {"type": kind, "touchPoints": [{"x": x, "y": y} for x, y in points]})

        for lang in [DEFAULT_LANG]:
            where = f"/{prefix(lang)}query-key/ (touch)"
            page.goto(f"{site_url}{prefix(lang)}query-key/")
            page.locator(".lesson-qk__plane").scroll_into_view_if_needed()
            page.wait_for_function(  # until the page is still: a touch lands where it was aimed
                "() => new Promise((done) => { const y = scrollY; setTimeout(() => done(scrollY === y), 150); })")
            top = page.evaluate("scrollY")
            touch("touchStart", plane_point(page, 1, 0))
            for i in range(1, 11):
                touch("touchMove", plane_point(page, 1 - i / 10, i / 10))
            touch("touchEnd")
            assert page.evaluate("scrollY") == top, f"{where}: the page scrolled under the finger"
            assert page.locator(".lesson-qk__q").inner_text() == "q = [0.00, 1.00]", where
            expect(page, where, printed["exercise_1"])
            start = plane_point(page, -0.3, -0.3)  # the plane, away from the handle
            touch("touchStart", start)
            for i in range(1, 8):
                touch("touchMove", (start[0], start[1] - 30 * i))
            touch("touchEnd")
            page.wait_for_function("top => scrollY > top", arg=top)
            assert page.locator(".lesson-qk__q").inner_text() == "q = [0.00, 1.00]", where
        assert not errors, errors
    finally:
        cdp.detach()


def forget_what_the_site_stored(page: Page, site_url: str) -> None:
    """As a new browser context would be: nothing the site stored in the tab's earlier tests (Material keeps
    the palette it chose in localStorage, and would not follow another preference of the screen's)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Storage.clearDataForOrigin", {"origin": site_url.rstrip("/"), "storageTypes": "local_storage"})
    cdp.detach()


SCREENSHOTS = os.environ.get("LESSON_SCREENSHOTS")
"""A folder for the explorer's screenshots (default: the test's temporary folder), to look at."""


@pytest.mark.parametrize("scheme", ["light", "dark"], ids=["light-desktop", "dark-phone"])
def test_the_explorer_fits_and_is_drawn_in_both_palettes(request: pytest.FixtureRequest, site_url: str,
                                                         languages: list[str], scheme: str, tmp_path: Path) -> None:
    """The query-key page in the light palette on a desktop (the interaction tests' tab) and in the dark one on a
    phone: nothing wider than the screen, a tap on the plane moves the query (on the phone), no console error;
    screenshots of the explorer after a move, in every language."""
    on_phone = scheme == "dark"
    page: Page = request.getfixturevalue("phone" if on_phone else "page")
    viewport = (page.viewport_size["width"], page.viewport_size["height"])
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    forget_what_the_site_stored(page, site_url)
    page.emulate_media(color_scheme=scheme)  # the fixtures give the tab back with the default, light
    errors = console_errors(page)
    page.on("pageerror", lambda error: errors.append(str(error)))
    for lang in languages:
        where = f"/{prefix(lang)}query-key/ ({scheme}, {viewport[0]} px)"
        page.goto(f"{site_url}{prefix(lang)}query-key/")
        palette = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
        assert palette == ("slate" if scheme == "dark" else "default"), where
        figure = page.locator(".lesson-qk")
        figure.scroll_into_view_if_needed()
        wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert wide <= 0, f"{where}: the page scrolls sideways by {wide} px"
        box = figure.bounding_box()
        assert box and 0 <= box["x"] and box["x"] + box["width"] <= viewport[0], f"{where}: {box}"
        page.locator(".lesson-qk__plane").scroll_into_view_if_needed()
        if on_phone:
            page.touchscreen.tap(*plane_point(page, 0.5, 0.5))
        else:
            page.mouse.click(*plane_point(page, 0.5, 0.5))
        assert page.locator(".lesson-qk__q").inner_text() == "q = [0.50, 0.50]", where
        # Material's header stays on screen as the page scrolls: not in the picture of the explorer
        figure.screenshot(path=folder / f"query-key-{lang}-{scheme}-{viewport[0]}.png",
                          style=".md-header { visibility: hidden; }")
    assert not errors, errors


# --------------------------------------------------------------------------------------------------------
# Search


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
