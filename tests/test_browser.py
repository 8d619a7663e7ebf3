"""The built site in a real browser: every page of every language, served on 127.0.0.1, in headless Chromium.

Each page of every language is visited once (``visits``) and audited there by axe-core (``audit``);
``test_every_page`` checks one property of the visits per language. The live figures, the quiz and the search
have tests of their own in every language; a copy whose English strings.yml is HTML checks that no translator's
text runs.

Chromium is Debian's headless shell (``$LESSON_CHROMIUM`` names another), driven by Playwright. Without it the
module is skipped, except under CI (``$CI`` set), where it fails; ``$LESSON_NO_BROWSER`` skips it anywhere.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import html
import http.server
import importlib.resources
import json
import math
import os
import re
import shutil
import struct
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import yaml
from conftest import PROJECT, ROOT, assert_ok, build, copy_project, languages, page_html, pages
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from attention_lesson.site import source, translations
from attention_lesson.site.lesson import SOURCE_LANG

CHROMIUM = Path(os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium-headless-shell"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
LANGS = languages()
PAGES = [*PROJECT.pages(SOURCE_LANG), translations.STATUS_PAGE]
"""Every page of the site, in every language (a page not translated yet is the Japanese one with a banner)."""
RAW_TEX = re.compile(r"\\(?:frac|sqrt|mathrm|left|right|top|cdot|begin|end)\b|\$\$")
HOSTILE = "<img src=x onerror=alert(1)><script>alert(1)</script>"

# A language's queries, each with the page that teaches the term (its title, or the page that names the term; not
# merely one that mentions it): the search must list that page first. A new language adds its own here.
SEARCHES = {
    "ja": [("因果", "causal-mask.md"),  # 因果マスク：後ろを覗いてはいけない
           ("スケーリング", "scaling.md"),  # このステップを**スケーリング**と呼びます
           ("クエリ", "query-key.md"),  # クエリとキー：…
           ("下三角", "averaging.md")],  # 下三角の行列を作り、… (causal-mask.md compares its weights with it)
    "en": [("causal", "causal-mask.md"),  # The causal mask: no peeking ahead
           ("scaling", "scaling.md")],  # This step is called **scaling**
    # jieba cuts the pages into words (docs/zh/strings.yml's search: words: names those it would cut wrongly)
    "zh": [("因果掩码", "causal-mask.md"),  # 因果掩码：不许偷看后面
           ("下三角", "averaging.md"),  # 构造一个下三角矩阵 (causal-mask.md compares its weights with it)
           ("缩放", "scaling.md"),  # 这一步叫作**缩放**
           ("查询", "query-key.md")],  # 查询和键：…
}


def prefix(lang: str) -> str:
    return "" if lang == SOURCE_LANG else f"{lang}/"


def address(page: str) -> str:
    """A page's path in its language's site: "" for the home page, "query-key/", "notebooks/exercise-1/"."""
    stem = page.removesuffix(".md").removesuffix(".py")
    return "" if stem == "index" else f"{stem}/"


def read(page: str, lang: str = SOURCE_LANG) -> source.Page:
    """A page as the language has it (the Japanese one where it is not translated yet)."""
    return PROJECT.read(lang if (PROJECT.docs / lang / page).is_file() else SOURCE_LANG, page)


def figures_of(page: str, kind: str, lang: str = SOURCE_LANG) -> list[dict]:
    specs = [source.figure_spec(f, f"{page}:{f.line}") for f in read(page, lang).fences if f.lang == "figure"]
    return [spec for spec in specs if spec["kind"] == kind]


def questions(page: str, lang: str = SOURCE_LANG) -> int:
    return sum(line.lstrip().startswith("??? question") for _, line in read(page, lang).prose)


HEAT_PAGES = [page for page in pages() if figures_of(page, "heatmap")]
EXPLORER_PAGES = [page for page in pages() if figures_of(page, "explorer")]
QUIZ_PAGES = [page for page in pages() if questions(page)]
ANSWER_PAGES = [page for page in pages() if figures_of(page, "answer")]


def fill(template: str, **values: str) -> str:
    """``{name}`` in a translated text replaced by `values`, as lesson.js fills its texts (only those names: a
    translation is not a format string, so ``{0.__class__}`` stays as it is)."""
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m[1], m[0]), template)


def in_every_language(these: list[str]) -> pytest.MarkDecorator:
    cases = [(lang, page) for lang in LANGS for page in these]
    return pytest.mark.parametrize(("lang", "page"), cases, ids=[f"{lang}-{address(p) or 'home'}" for lang, p in cases])


# -------------------- A browser, a server, what a tab does
@pytest.fixture(scope="session", autouse=True)  # before anything else, the site's build included
def browser() -> Iterator[Browser]:
    if os.environ.get("LESSON_NO_BROWSER"):
        pytest.skip(f"LESSON_NO_BROWSER: {os.environ['LESSON_NO_BROWSER']}")
    if not CHROMIUM.is_file():
        reason = f"{CHROMIUM} not found: apt-get install chromium-headless-shell (or set LESSON_CHROMIUM)"
        pytest.fail(reason) if os.environ.get("CI") else pytest.skip(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


class _Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: fewer connections for Chromium to open
    log_message = staticmethod(lambda *args: None)


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # Chromium drops connections it no longer needs
            super().handle_error(request, client_address)


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:  # a built site over HTTP on 127.0.0.1 (a free port), from a thread
    server = _Server(("127.0.0.1", 0), functools.partial(_Handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def site_url(browser: Browser, site: Path) -> Iterator[str]:
    with served(site) as url:
        yield url


@pytest.fixture(scope="module")
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP")
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@dataclass
class Visit:
    """What a tab did on one page, and what the page showed."""
    lang: str = ""
    path: str = ""
    console: list[str] = field(default_factory=list)  # console errors
    errors: list[str] = field(default_factory=list)  # uncaught exceptions
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    status: int | None = None
    html_lang: str | None = None
    switcher: dict[str, str] = field(default_factory=dict)  # hreflang → absolute href
    text: str = ""
    policy: str = ""  # its Content-Security-Policy
    violations: list[str] = field(default_factory=list)  # what the browser blocked by that policy
    axe: list[str] = field(default_factory=list)  # axe-core's violations, in each palette and width
    covered: set[str] = field(default_factory=set)  # code under a copy button on a phone: each block's first line
    wide: set[str] = field(default_factory=set)  # code wider than its block on a 1280 px screen: its longest line

    def trouble(self) -> list[str]:
        return self.console + self.errors + self.dialogs


def watch(tab: Page, current: Callable[[], Visit]) -> None:
    """Record into current() what the tab does; a dialog is noted and dismissed (nothing waits on it)."""
    tab.on("console", lambda msg: current().console.append(msg.text) if msg.type == "error" else None)
    tab.on("pageerror", lambda error: current().errors.append(str(error)))
    tab.on("request", lambda request: current().requests.append(request.url))
    tab.on("dialog", lambda dialog: (current().dialogs.append(f"{dialog.type}: {dialog.message}"), dialog.dismiss()))


@dataclass
class Tab:
    """The interaction tests' tab (a new one per test would cost a renderer process) and what it did."""
    page: Page
    visit: Visit = field(default_factory=Visit)

    def open(self, url: str) -> Page:
        self.visit = Visit()
        self.page.goto(url)
        return self.page


@pytest.fixture(scope="module")
def tab(context: BrowserContext) -> Iterator[Tab]:
    tab = Tab(context.new_page())
    watch(tab.page, lambda: tab.visit)
    yield tab
    tab.page.close()


# -------------------- Every page
TABS = 3  # pages loading side by side: on two cores three tabs keep both busy while this process reads one
SEARCH_READY = """() => {
    const meta = document.querySelector(".md-search-result__meta"), config = document.getElementById("__config");
    if (!meta || !config) return true;
    return meta.textContent.trim() === JSON.parse(config.textContent).translations["search.result.placeholder"];
}"""
"""Material's search worker has loaded the language's index and scripts: the last requests a page makes."""


AXE = importlib.resources.files("axe_playwright_python") / "axe.min.js"
"""axe-core (4.12.1), as the PyPI package axe-playwright-python ships it: injected into the page, nothing fetched."""
AXE_COLOURS = ["color-contrast", "link-in-text-block"]  # the rules whose verdict depends on the palette
AROUND, LISTINGS = [".md-content"], [".highlight", ".jupyter-wrapper .jp-InputArea"]
AUDITS = {  # (width, Material's palette, the only rules run or None, rules not run, what is left out)
    SOURCE_LANG: [(1280, "default", None, [], []), (390, "slate", None, [], []),
                  (1280, "slate", AXE_COLOURS, [], AROUND), (390, "default", AXE_COLOURS, [], AROUND)],
    "translated": [(390, "slate", None, ["color-contrast"], []), (1280, "default", ["color-contrast"], [], LISTINGS)],
}
"""A Japanese page: every rule in each width and each palette, and the colour rules in both palettes at both widths
where a width shows something else. The content's colours do not change with the width (no stylesheet sets a colour
by width), its layout does: the first two; what is around it (header, menus, footer) is laid out anew for a phone:
the other two. A translated page has the Japanese page's elements, classes and code, its text in another language:
every rule but color-contrast (the slowest by far: each span of each listing) on a phone in the dark palette
(where text is the narrowest; the menus are in the DOM as on a desktop), color-contrast but on the listings (the
Japanese page's) in the light one."""
AXE_START = """([scheme, only, skip, exclude]) => {
    document.body.setAttribute("data-md-color-scheme", scheme);
    window.lessonAxe = (async () => {
        await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));  // resize handled
        const rules = only ? {runOnly: {type: "rule", values: only}}
            : {rules: Object.fromEntries(skip.map((rule) => [rule, {enabled: false}]))};
        const {violations} = await axe.run({exclude}, {resultTypes: ["violations"], ...rules});
        return violations.flatMap((v) => v.nodes.map((n) => `${v.id} ${n.target.join(" ")}: ${n.failureSummary}`));
    })();
}"""
"""Switch the palette as Material's toggle does and start axe-core once the page has taken the new width."""
AXE_EXCLUDE: list[str] = []
"""Material's own markup that the project cannot change (ARCHITECTURE.md, "Audits"): none at present."""
COVERED = """() => [...document.querySelectorAll("pre > code")].flatMap((code) => {
    const text = document.createRange();
    text.selectNodeContents(code);
    const under = (b) => [...text.getClientRects()].some((t) => {
        const r = b.getBoundingClientRect();
        return t.width && t.right > r.left && t.left < r.right && t.bottom > r.top && t.top < r.bottom;
    });
    const buttons = code.parentElement.parentElement.querySelectorAll("button, clipboard-copy");
    return [...buttons].filter((b) => b.offsetParent && under(b)).map(() => code.textContent.split("\\n")[0]);
})"""
"""The first line of each code block whose text a copy button covers (a phone shows the buttons always)."""
WIDE = """() => [...document.querySelectorAll(".md-typeset pre > code, .jp-InputArea pre, .jp-OutputArea pre")]
    .filter((code) => code.scrollWidth > code.clientWidth + 1)
    .map((code) => code.textContent.split("\\n").reduce((a, line) => (line.length > a.length ? line : a), ""))"""
"""The longest line of each code block a reader must scroll sideways to read whole."""
NO_TRANSITIONS = "*, ::before, ::after { transition: none !important; animation: none !important; }"
NO_TRANSITIONS_SHEET = """(rules) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(rules);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}"""
AXE_SOURCE = functools.cache(lambda: AXE.read_text("utf-8"))
"""Material fades colours in over 250 ms: without this, a palette switched just before a run is measured midway."""


def audit(tab: Page, visit: Visit) -> Generator[None]:
    """axe-core on the page as it is, in each of its AUDITS (the palette as Material's toggle sets it, the width as
    a window's); yields while a run goes on in the tab, so that the other tabs run theirs meanwhile."""
    tab.evaluate(AXE_SOURCE())  # as the driver's: a <script> or <style> added to the page would meet its policy
    tab.evaluate(NO_TRANSITIONS_SHEET, NO_TRANSITIONS)
    for width, scheme, only, skip, exclude in AUDITS[SOURCE_LANG if visit.lang == SOURCE_LANG else "translated"]:
        tab.set_viewport_size({"width": width, "height": 900})
        tab.evaluate(AXE_START, [scheme, only, skip, AXE_EXCLUDE + exclude])
        yield
        visit.axe += [f"{scheme} {width} px: {found}" for found in tab.evaluate("() => window.lessonAxe")]
        visit.covered |= set(tab.evaluate(COVERED)) if width < 600 else set()
        visit.wide |= set(tab.evaluate(WIDE)) if width == 1280 else set()


@pytest.fixture(scope="module")
def visits(browser: Browser, site_url: str) -> dict[str, list[Visit]]:
    """Every page of every language, once each, a few tabs taking turns (a tab is reused: a new one costs a
    renderer process); on each, axe-core's audits (``audit``). A tab's listeners record into the visit it is on.
    The tabs are a touch screen's (no hover: what Material does for a phone), 1280 then 390 px wide."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP", has_touch=True)
    context.set_default_timeout(10_000)
    context.add_init_script(VIOLATIONS)
    todo = [Visit(lang, address(page)) for lang in LANGS for page in PAGES]
    waiting, turns = iter(todo), deque()

    def load_next(tab: Page, slot: dict) -> None:
        visit = next(waiting, None)
        if visit is None:
            tab.close()
            return
        slot["v"], slot["audit"] = visit, None
        tab.set_viewport_size({"width": 1280, "height": 900})
        response = tab.goto(site_url + prefix(visit.lang) + visit.path, wait_until="commit")
        visit.status = response.status if response else None
        turns.append((tab, slot))

    for _ in range(min(TABS, len(todo))):
        tab, slot = context.new_page(), {}
        watch(tab, lambda slot=slot: slot["v"])
        load_next(tab, slot)
    patience = 10_000
    while turns:  # a page's load event, then its search ready (all it requests by itself), then its audits
        tab, slot = turns.popleft()
        visit = slot["v"]
        if slot["audit"]:
            if next(slot["audit"], "done") == "done":
                load_next(tab, slot)
            else:
                turns.append((tab, slot))
            continue
        tab.wait_for_load_state("load")
        try:
            tab.wait_for_function(SEARCH_READY, polling=50, timeout=patience)
        except PlaywrightTimeoutError:
            visit.errors.append(f"the search was not ready after {patience / 1000:g} s")
            patience = 1_000  # broken once, most likely broken everywhere: say so soon
        visit.html_lang = tab.get_attribute("html", "lang")
        visit.switcher = dict(tab.eval_on_selector_all(
            "a.md-select__link", "els => els.map(e => [e.getAttribute('hreflang'), e.href])"))
        visit.text = tab.inner_text("body")
        visit.policy = tab.get_attribute(POLICY, "content") if tab.locator(POLICY).count() == 1 else ""
        visit.violations = tab.evaluate("() => window.lessonViolations")
        slot["audit"] = audit(tab, visit)
        next(slot["audit"])
        turns.append((tab, slot))
    context.close()
    return {lang: [v for v in todo if v.lang == lang] for lang in LANGS}


VIOLATIONS = """window.lessonViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.lessonViolations.push(
    `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));"""
"""Run before any of the page's scripts (by the driver, which the policy does not govern): what it blocks."""
POLICY = 'meta[http-equiv="Content-Security-Policy"]'
STRICT = ["default-src 'none'", "script-src 'self' 'sha256-", "style-src 'self'", "img-src 'self' data:",
          "connect-src 'self'", "base-uri 'none'", "form-action 'none'"]
"""What every page's policy says: nothing from another site, scripts by their hashes, no base, no form target."""


def _policy_problems(visit: Visit) -> list[str]:
    policy = visit.policy
    return ([] if policy else ["no Content-Security-Policy"]) + [f"its policy lacks {rule!r}" for rule in STRICT
                                                                if policy and rule not in policy] + (
        ["its policy allows inline scripts or eval"] if "unsafe-inline'" in policy.split("style-src-attr")[0]
        or "unsafe-eval" in policy else [])


EVERY_PAGE: dict[str, Callable[[Visit, str], list[str]]] = {  # one property each: what is wrong with a visit
    "strict-policy": lambda v, url: _policy_problems(v),
    "no-policy-violation": lambda v, url: v.violations,
    "loads": lambda v, url: [] if v.status == 200 else [f"HTTP {v.status}"],
    "no-console-error": lambda v, url: v.console,
    "no-page-error": lambda v, url: v.errors,
    "no-dialog": lambda v, url: v.dialogs,
    # nothing from a third party, the search worker's requests included (each page loads its language's index)
    "no-third-party-request": lambda v, url: [u for u in v.requests if urlsplit(u)[:2] != urlsplit(url)[:2]
                                              and not u.startswith(("data:", "blob:"))] + (
        [] if f"{url}{prefix(v.lang)}search/search_index.json" in v.requests else ["no request of its search index"]),
    "html-lang": lambda v, url: [] if v.html_lang == v.lang else [f"<html lang={v.html_lang!r}>"],
    "no-raw-tex": lambda v, url: [m.group() for m in RAW_TEX.finditer(v.text)],
    "no-traceback-or-template": lambda v, url: [v.text[max(0, i - 40):i + 40] for word in ("Traceback", "{{")
                                                 if (i := v.text.find(word)) >= 0],
    "nothing-under-a-copy-button": lambda v, url: sorted(v.covered),
    "code-read-whole-at-1280-px": lambda v, url: sorted(v.wide),
    "axe": lambda v, url: v.axe,  # WCAG A and AA and axe's best practices, in both palettes, 1280 and 390 px wide
    "switcher-links-the-same-page": lambda v, url: [] if v.switcher == (want := {
        code: url + prefix(code) + v.path for code in LANGS}) else [f"links {v.switcher}, expected {want}"],
}


@pytest.mark.parametrize(("check", "lang"), [(c, lang) for c in EVERY_PAGE for lang in LANGS],
                         ids=[f"{c}-{lang}" for c in EVERY_PAGE for lang in LANGS])
def test_every_page(visits: dict[str, list[Visit]], site_url: str, check: str, lang: str) -> None:
    bad = [f"/{prefix(lang)}{v.path}: {problem!r}" for v in visits[lang] for problem in EVERY_PAGE[check](v, site_url)]
    assert not bad, f"{check}: {len(bad)} problem(s):\n" + "\n".join(bad)


# -------------------- A translator's text is text: HTML in strings.yml shows as written and never runs
@pytest.fixture(scope="module")
def hostile_url(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy whose English name, site name, description and every ui value end in HTML, built (with the
    session's store, warm once `site` is built) and served."""
    folder = tmp_path_factory.mktemp("hostile")
    project = copy_project(folder)
    for code in set(LANGS) - {SOURCE_LANG, "en"}:  # the Japanese and English pages are the ones visited
        shutil.rmtree(project / "docs" / code)
    path = project / "docs" / "en" / "strings.yml"
    words = yaml.safe_load(path.read_text(encoding="utf-8"))
    words |= {key: f"{words.get(key, key)} {HOSTILE}" for key in ("name", "site_name", "site_description")}
    words["ui"] = {key: f"{value} {HOSTILE}" for key, value in words["ui"].items()}
    path.write_text(yaml.safe_dump(words, allow_unicode=True, sort_keys=False, width=10_000), encoding="utf-8")
    assert_ok(build(project, folder / "site"))
    with served(folder / "site") as url:
        yield url


DOM = """() => ({
    text: document.body.innerText,
    made: document.querySelectorAll('img[src="x"]').length
        + [...document.scripts].filter((s) => s.text.trim() === "alert(1)").length,
    names: [...document.querySelectorAll('a.md-select__link[hreflang="en"]')].map((a) => a.textContent),
})"""  # what a page shows, the elements made of HOSTILE, what its switcher calls English


def test_html_in_strings_yml_shows_as_text_and_never_runs(tab: Tab, hostile_url: str) -> None:
    """The Japanese home page (its switcher names English), the English pages with a heatmap, the explorer,
    a notebook, the status page and the 404 page: no dialog, no element made of the text, the text on
    screen as written."""
    notebook = next(page for page in PAGES if page.startswith("notebooks/"))
    shown = [HEAT_PAGES[0], EXPLORER_PAGES[0], notebook, translations.STATUS_PAGE]
    bad = []
    for path in ["", *(f"en/{address(page)}" for page in shown), "en/404.html"]:
        tab_page = tab.open(hostile_url + path)
        if tab_page.locator("[data-heat]").count():  # the heatmap's words, written by the script
            tab_page.locator(".lesson-heat__row").first.focus()
        dom = tab_page.evaluate(DOM)
        bad += [f"/{path}: {problem}" for problem in tab.visit.dialogs]
        bad += [f"/{path}: {dom['made']} element(s) made of the text"] if dom["made"] else []
        bad += [] if HOSTILE in dom["text"] else [f"/{path}: the text is not on screen as written"]
        if path == "" and not any(HOSTILE in name for name in dom["names"]):
            bad.append(f"/: the switcher names English {dom['names']}")
    assert not bad, "\n".join(bad)


# -------------------- A hostile translation in the browser: the corpus's pages as the build writes them
@pytest.fixture(scope="module")
def corpus_url(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """The hostile corpus's pages (tests/test_trust.py) built with the translators' source check switched off,
    every page written as the build writes it (a refused one: its placeholder) in place of the honest site's,
    served; and the translated pages' addresses."""
    from test_trust import _hostile_copy, build_without_source_check, pages_only

    folder = tmp_path_factory.mktemp("corpus-browser")
    project, _ = _hostile_copy(folder)
    _, written = build_without_source_check(pages_only({"project": project}), folder / "out")
    served_site = folder / "site"
    shutil.copytree(site, served_site)
    for path, text in written.items():
        (served_site / path).mkdir(parents=True, exist_ok=True)  # a language the tree does not have: not visited
        (served_site / path / "index.html").write_text(text, encoding="utf-8")
    with served(served_site) as url:
        yield url, sorted(path for path in written if path.split("/")[0] in set(LANGS) - {SOURCE_LANG})


RUNS = """() => [...document.querySelectorAll("*")].flatMap((e) => [...e.attributes]
    .filter((a) => a.name.startsWith("on") || /^(javascript|vbscript):/i.test(a.value.replace(/[\\s\\0]/g, "")))
    .map((a) => `<${e.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 40)}">`))"""
"""Every attribute of the page, as the browser parsed it, that runs script: a handler, a javascript: address."""


def test_hostile_corpus_runs_nothing_in_the_browser(tab: Tab, corpus_url: tuple[str, list[str]]) -> None:
    """Each translated page of the corpus, as written by a build whose source check is off, loaded: no dialog,
    no handler, no javascript: address anywhere in it."""
    url, paths = corpus_url
    assert paths, "the corpus wrote no translated page"
    bad = []
    for path in paths:
        page = tab.open(url + path)
        page.wait_for_load_state("load")
        bad += [f"/{path}: {problem}" for problem in [*tab.visit.dialogs, *page.evaluate(RUNS)]]
    assert not bad, "\n".join(bad)


# -------------------- What a notebook printed, on a phone: no number cut in two at the end of a line
SPLIT = """() => [...document.querySelectorAll(".jp-OutputArea-output pre")].flatMap((pre) => {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT), split = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.textContent.matchAll(/-?\\d+(\\.\\d+)?(e[-+]?\\d+)?/g)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) split.push(m[0]);
        }
    }
    return split;
})"""
"""Every number in the notebooks' outputs that the page shows on two lines."""


@in_every_language([page for page in PAGES if page.startswith("notebooks/")])
def test_notebook_output_never_cuts_a_number_on_a_phone(browser: Browser, site_url: str, lang: str,
                                                         page: str) -> None:
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        phone.goto(site_url + prefix(lang) + address(page))
        assert phone.locator(".jp-OutputArea-output pre").count(), "no output shown"
        assert phone.evaluate(SPLIT) == [], "numbers cut in two at the end of a line"
    finally:
        phone.close()


# -------------------- One page at a time: the live figures, the quiz, the search
NUMBER, CELL = re.compile(r"-?\d+\.\d\d"), re.compile(r"^\s*(-?\d+\.\d\d|[-–—×·])\s*$")  # a cell: a value, or a mark
READOUT = """f => [f.querySelector(".lesson-heat__readout").textContent,
                  [...f.querySelectorAll(".lesson-heat__readout strong")].map((s) => s.textContent),
                  document.activeElement.getAttribute("aria-label")]"""  # the words, the bold ones, the focus's


def heat_words(ui: dict[str, str], labels: list[str], row: list[str], masked_row: list[bool],
               i: int) -> tuple[str, list[int]]:
    """What row i of a heatmap says, and the columns it attends to (a masked cell is hatched, and the figure's
    data says so): the words of the language's strings.yml, the numbers the figure draws."""
    seen = [j for j, v in enumerate(row) if NUMBER.fullmatch(v) and not masked_row[j]]
    masked = ui["list_sep"].join(labels[j] for j in range(len(row)) if j not in seen)
    text = fill(ui["heat_row"], query=labels[i], weights=ui["list_sep"].join(f"{labels[j]} {row[j]}" for j in seen))
    return text + (fill(ui["heat_masked"], words=masked) if masked else ""), seen


def printed(texts: list[str], labels: list[str]) -> list[tuple[dict[str, float], ...]]:
    """The (scores, weights, weights ×5) each output prints, one line each, as {character: value}."""
    found = []
    for text in texts:
        dicts = []
        for line in text.splitlines():
            with contextlib.suppress(ValueError, SyntaxError):
                value = ast.literal_eval(line[line.index("{"):])
                dicts += [value] if isinstance(value, dict) and list(value) == labels else []
        found += [tuple(dicts)] if len(dicts) == 3 else []
    return found


class TestOnePageAtATime:  # a class: its own xdist scope, run beside the visits and the hostile build
    @in_every_language(HEAT_PAGES)
    def test_heatmap_rows_answer_pointer_and_keyboard(self, tab: Tab, site_url: str, lang: str, page: str) -> None:
        """Pointing at a cell (in every row: the diagonal's and the next) writes its row in words: what that character
        attends to with the numbers the figure draws, the masked ones named, the cell pointed at in bold; a focused
        row, then ↓ Home End, do the same."""
        ui, tab_page = PROJECT.strings(lang).ui, tab.open(site_url + prefix(lang) + address(page))
        specs, figs = figures_of(page, "heatmap", lang), tab_page.locator("[data-heat]")
        assert figs.count() == len(specs)
        for spec, fig in zip(specs, figs.all(), strict=True):
            labels, cells = list(spec["labels"]), fig.locator("svg text").filter(has_text=CELL)
            n, drawn = len(labels), [text.strip() for text in cells.all_text_contents()]
            assert len(drawn) == n * n, drawn
            masked = [[v is None for v in r] for r in json.loads(fig.get_attribute("data-heat"))["weights"]]
            rows = [heat_words(ui, labels, drawn[i * n:(i + 1) * n], masked[i], i) for i in range(n)]
            fig.scroll_into_view_if_needed()
            centres = cells.evaluate_all("els => els.map((e) => { const r = e.getBoundingClientRect(); "
                                         "return [r.x + r.width / 2, r.y + r.height / 2]; })")
            readout = functools.partial(fig.evaluate, READOUT)
            assert readout()[:2] == [ui["heat_hint"], []]
            for i, (words, seen) in enumerate(rows):
                for j in (i, (i + 1) % n):
                    tab_page.mouse.move(*centres[i * n + j])
                    bold = [f"{labels[j]} {drawn[i * n + j]}"] if j in seen else []
                    assert readout()[:2] == [words, bold], f"the pointer on row {i + 1}, column {j + 1}"
            tab_page.mouse.move(0, 0)
            assert readout()[:2] == [ui["heat_hint"], []]
            assert fig.locator(".lesson-heat__row").count() == n
            fig.locator(".lesson-heat__row").first.focus()
            for key, i in [(None, 0), *(("ArrowDown", i) for i in range(1, n)), ("Home", 0), ("End", n - 1)]:
                if key:
                    tab_page.keyboard.press(key)
                text, _, focused = readout()
                assert text == focused == rows[i][0], f"row {i + 1} by the keyboard ({key}): {text} / {focused}"
        assert not tab.visit.trouble(), tab.visit.trouble()

    @in_every_language(EXPLORER_PAGES)
    def test_explorer_moves_by_keyboard_and_its_presets_are_the_printed_weights(
            self, tab: Tab, site: Path, site_url: str, lang: str, page: str) -> None:
        """The first preset shows the scores and weights (×1, ×5) the page's own listing printed; the second those the
        exercise's solution printed (a notebook of the language); the arrow keys take the query from one to the other
        by the grid's steps, and Home brings it back."""
        tab_page = tab.open(site_url + prefix(lang) + address(page))
        fig, labels = tab_page.locator("[data-qk]"), list(figures_of(page, "explorer", lang)[0]["labels"])
        data, n = json.loads(fig.get_attribute("data-qk")), len(labels)
        listing = printed(tab_page.locator(".result pre").all_inner_texts(), labels)
        assert len(listing) == 1, f"the listing's printed scores and weights: {listing}"
        outputs = [html.unescape(re.sub(r"<[^>]+>", "", pre)) for other in PAGES if other != page
                   for pre in re.findall(r"<pre[^>]*>(.*?)</pre>", page_html(site, lang, other), re.S)]
        presets, handle = fig.locator(".lesson-qk__preset"), fig.locator(".lesson-qk__handle")

        def shown() -> tuple[dict[str, float], dict[str, float]]:
            words = fig.locator(".lesson-qk__word").all_inner_texts()
            values = [float(v) for v in fig.locator(".lesson-qk__value").all_inner_texts()]
            return dict(zip(words[:n], values[:n], strict=True)), dict(zip(words[n:], values[n:], strict=True))

        def multiply(by: float) -> None:
            fig.locator(".lesson-qk__scale input").fill(str(data["scales"].index(by)))
            assert fig.locator(".lesson-qk__scale output").text_content() == f"×{by:g}"

        assert presets.count() == 2 and presets.first.is_enabled()
        presets.nth(1).click()
        solution = [t for t in printed(outputs, labels) if t[0] == shown()[0]]
        assert solution, f"the exercise's preset shows {shown()}, printed nowhere in {lang}"
        for by, line in ((1.0, 1), (5.0, 2)):  # the listings print the weights of the scores, then of the scores ×5
            multiply(by)
            presets.nth(0).click()
            assert shown() == (listing[0][0], listing[0][line]), f"the listing's preset ×{by:g}"
            presets.nth(1).click()
            assert shown() == (solution[0][0], solution[0][line]), f"the exercise's preset ×{by:g}"
        multiply(1.0)
        presets.nth(0).click()
        handle.focus()
        (x0, y0), (x1, y1) = data["presets"]
        for keys, steps in ((("ArrowLeft", "ArrowRight"), x1 - x0), (("ArrowDown", "ArrowUp"), y1 - y0)):
            for _ in range(round(abs(steps) / data["step"])):
                tab_page.keyboard.press(keys[steps > 0])
        assert handle.get_attribute("aria-valuetext") == f"q = [{x1:.2f}, {y1:.2f}]"
        assert shown() == solution[0][:2], "the exercise's query reached by the keyboard"
        tab_page.keyboard.press("ArrowDown")
        assert handle.get_attribute("aria-valuetext") == f"q = [{x1:.2f}, {y1 - data['step']:.2f}]"
        tab_page.keyboard.press("Home")
        assert shown() == listing[0][:2], "Home: back to the listing's query"
        assert not tab.visit.trouble(), tab.visit.trouble()

    @in_every_language(QUIZ_PAGES)
    def test_quiz_answers_open(self, tab: Tab, site_url: str, lang: str, page: str) -> None:
        details = tab.open(site_url + prefix(lang) + address(page)).locator("article details")
        assert details.count() == questions(page, lang)
        for i, item in enumerate(details.all(), 1):
            answer = item.locator(":scope > :not(summary)").first
            assert item.evaluate("d => d.open") is False and not answer.is_visible(), f"answer {i} open before a click"
            item.locator("summary").click()
            answer.wait_for(state="visible", timeout=2_000)
            assert item.evaluate("d => d.open") is True and answer.inner_text().strip(), f"answer {i} did not open"
        assert not tab.visit.trouble(), tab.visit.trouble()

    @pytest.mark.parametrize("lang", list(SEARCHES), ids=list(SEARCHES))
    def test_search_finds_the_lesson_terms(self, tab: Tab, site_url: str, lang: str) -> None:
        """Each of the language's SEARCHES finds the page that teaches its term, ahead of the other pages SEARCHES
        names (a page an editor adds may rank anywhere: its text is theirs)."""
        if lang not in LANGS:
            pytest.skip(f"no docs/{lang}/ in the tree")
        tab_page = tab.open(site_url + prefix(lang))
        tab_page.wait_for_function(SEARCH_READY, polling=50)
        box = tab_page.locator("input.md-search__input")
        box.click()
        for query, expected in SEARCHES[lang]:
            for typed, no in (("", "!"), (query, "")):  # an empty query first: the last results go
                box.fill(typed)
                box.press("End")  # Material reads the query on keyup
                tab_page.wait_for_function(f"() => {no}document.querySelector('a.md-search-result__link')")
            hrefs = tab_page.eval_on_selector_all("a.md-search-result__link", "els => els.map(e => e.href)")
            results = [urlunsplit((*urlsplit(h)[:3], "", "")) for h in hrefs]
            want = site_url + prefix(lang) + address(expected)
            named = [r for r in results if r in {site_url + prefix(lang) + address(p) for _, p in SEARCHES[lang]}]
            assert named[:1] == [want], f"search {query!r} on /{prefix(lang)}: {want} is not first; got {results}"
        assert not tab.visit.trouble(), tab.visit.trouble()


# -------------------- The explorer's tasks: ticked ✓ once the reader meets them, by keyboard or pointer, not before
TASK_PAGES = [page for page in EXPLORER_PAGES if any(spec.get("tasks") for spec in figures_of(page, "explorer"))]
TIE = 1e-12  # closer than this to a goal's edge (and not on it), a state is met or not as the last bit falls


def slack(goal: dict, w: list[float]) -> float:
    """How far weights `w` are inside a goal (above 0: met), for the goal kinds the pages declare."""
    if goal["kind"] == "above":
        return w[goal["at"]] - goal["value"]
    if goal["kind"] == "more":
        return w[goal["at"]] - w[goal["than"]]
    assert goal["kind"] == "even", f"a goal kind this test does not know: {goal}"
    return goal["within"] - max(abs(v - sum(w) / len(w)) for v in w)


def verdict(goal: dict, w: list[float]) -> bool | None:
    """Whether weights `w` meet a goal as the script decides it (strictly above, strictly more, even within),
    None where a last bit could decide it."""
    margin = slack(goal, w)
    return None if 0 < abs(margin) < TIE else margin > 0 or (margin == 0 and goal["kind"] == "even")


def explorer_weights(data: dict, q: tuple[float, float], scale: float) -> list[float]:
    """softmax(scale × k @ q): the scores in float32 (torch's k @ q), the softmax in double."""
    f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]  # noqa: E731
    scores = [f32(f32(a * f32(q[0])) + f32(b * f32(q[1]))) * scale for a, b in data["keys"]]  # as lesson.js
    e = [math.exp(s - max(scores)) for s in scores]
    return [v / sum(e) for v in e]


def routes(data: dict, goal: dict) -> tuple[list[str], list[str], tuple[int, float, float]]:
    """How a reader meets a goal from the figure as drawn, through states clearly not meeting it until the last,
    which clearly does: by the keyboard, the fewest presses on the multiplier's slider then on the query's handle;
    by the pointer, a multiplier that alone does not meet it and the point of the plane to click (the nearest).
    Returns (slider keys, handle keys, (the pointer's multiplier index, x, y))."""
    grid, scales = round(1 / data["step"]), data["scales"]
    x0, y0 = (round(v * grid) for v in data["presets"][0])
    low, high = (round(v * grid) for v in data["range"])
    s0 = scales.index(1.0)
    cache: dict[tuple[int, int, int], bool | None] = {}

    def at(s: int, x: int, y: int) -> bool | None:  # the query's grid points as the script has them: k / grid
        if (s, x, y) not in cache:
            cache[s, x, y] = verdict(goal, explorer_weights(data, (x / grid, y / grid), scales[s]))
        return cache[s, x, y]

    def walk(a: int, b: int) -> list[int]:  # the values after a, one step at a time, to b
        return list(range(a + 1, b + 1)) if b > a else list(range(a - 1, b - 1, -1))

    states = sorted(((s, x, y) for s in range(len(scales)) for x in range(low, high + 1) for y in range(low, high + 1)),
                    key=lambda c: abs(c[0] - s0) + abs(c[1] - x0) + abs(c[2] - y0))
    keys = pointer = None
    for s, x, y in states:
        if keys and pointer:
            break
        if at(s, x, y) is not True:
            continue
        path = [(t, x0, y0) for t in walk(s0, s)] + [(s, t, y0) for t in walk(x0, x)] + [(s, x, t) for t in walk(y0, y)]
        if keys is None and path and all(at(*state) is False for state in path[:-1]):
            keys = (["ArrowRight" if s > s0 else "ArrowLeft"] * abs(s - s0),
                    ["ArrowRight" if x > x0 else "ArrowLeft"] * abs(x - x0)
                    + ["ArrowUp" if y > y0 else "ArrowDown"] * abs(y - y0))
        if pointer is None and (x, y) != (x0, y0) and at(s, x0, y0) is False:
            pointer = (s, x / grid, y / grid)
    assert keys and pointer, f"no route meets {goal} through states that do not: keys {keys}, pointer {pointer}"
    return *keys, pointer


TASKS_STATE = """f => ({
    done: [...f.querySelectorAll(".lesson-qk__task")].map((t) => t.classList.contains("is-done")),
    marks: [...f.querySelectorAll(".lesson-qk__mark")].map((m) => m.textContent),
    texts: [...f.querySelectorAll(".lesson-qk__text")].map((t) => t.textContent),
    news: f.querySelector(".lesson-qk__news").textContent,
    why: [...f.querySelectorAll(".lesson-qk__task")].map((t) => t.querySelector(".lesson-qk__why")?.textContent ?? ""),
})"""


class TestExplorerTasks:  # a class: its own xdist scope
    @in_every_language(TASK_PAGES)
    def test_a_task_is_ticked_when_met_by_keyboard_and_by_pointer_and_not_before(
            self, tab: Tab, site_url: str, lang: str, page: str) -> None:
        """The page's tasks (its text, in the language) are a list under the explorer, none ticked when the page
        opens. For each task: keys on the multiplier and the query, one press at a time, leave it unticked until
        the press that meets its goal, which ticks it ✓ and says so in the live region in the language's words;
        then, on a fresh page, one click on the plane where the goal is met does the same."""
        ui, spec = PROJECT.strings(lang).ui, next(s for s in figures_of(page, "explorer", lang) if s.get("tasks"))
        url = site_url + prefix(lang) + address(page)
        tab_page = tab.open(url)
        fig = tab_page.locator("[data-qk]").filter(has=tab_page.locator(".lesson-qk__task"))
        data = json.loads(fig.get_attribute("data-qk"))
        goals = data["goals"]
        state = fig.evaluate(TASKS_STATE)
        assert state["texts"] == spec["tasks"] and len(goals) == len(spec["tasks"]), state["texts"]
        assert state == {"done": [False] * len(goals), "marks": [""] * len(goals), "texts": spec["tasks"], "news": "",
                         "why": [""] * len(goals)}
        trouble: list[str] = []
        for i, goal in enumerate(goals):
            task = spec["tasks"][i]
            said = fill(ui["qk_task_live"], task=task)
            # the keyboard: the multiplier's slider, then the query's handle, one press at a time
            slider_keys, handle_keys, (scale, x, y) = routes(data, goal)
            trouble += tab.visit.trouble()
            fig = tab.open(url).locator("[data-qk]").filter(has=tab.page.locator(".lesson-qk__task"))
            slider, handle = fig.locator(".lesson-qk__scale input"), fig.locator(".lesson-qk__handle")
            presses = [(slider, key) for key in slider_keys] + [(handle, key) for key in handle_keys]
            assert presses, f"task {i + 1}: met as the page opens"
            for n, (control, key) in enumerate(presses, 1):
                if n == 1 or control is not presses[n - 2][0]:
                    control.focus()
                tab.page.keyboard.press(key)
                state = fig.evaluate(TASKS_STATE)
                last = n == len(presses)
                assert state["done"][i] is last and (state["marks"][i] == "✓") is last, \
                    f"{lang} task {i + 1} ({task}) after {n} of {len(presses)} presses: {state}"
            assert said in state["news"], f"{lang} task {i + 1}: the live region says {state['news']!r}"
            assert re.search(r"\d\.\d\d", state["why"][i]), f"{lang} task {i + 1}: no reason given: {state['why']}"
            # the pointer: a multiplier that alone does not meet the goal, then one click where the query does
            trouble += tab.visit.trouble()
            fig = tab.open(url).locator("[data-qk]").filter(has=tab.page.locator(".lesson-qk__task"))
            fig.locator(".lesson-qk__scale input").fill(str(scale))
            assert not fig.evaluate(TASKS_STATE)["done"][i], f"{lang} task {i + 1}: ticked by the multiplier alone"
            fig.scroll_into_view_if_needed()
            point = fig.evaluate("""(f, [x, y, plane]) => {
                const p = new DOMPoint(plane.origin[0] + plane.unit * x, plane.origin[1] - plane.unit * y);
                const s = p.matrixTransform(f.querySelector("svg").getScreenCTM());
                return [s.x, s.y];
            }""", [x, y, data["plane"]])
            # one drag through that point, let go where no goal is met: nothing ticked
            grid = round(1 / data["step"])
            span = range(round(data["range"][0] * grid), round(data["range"][1] * grid))
            end = next((a / grid, b / grid) for a in span for b in span
                       if not any(verdict(g, explorer_weights(data, (a / grid, b / grid), data["scales"][scale]))
                                  is not False for g in goals))
            start, through, there = (screen(fig, data, *p) for p in (data["presets"][0], (x, y), end))
            tab.page.mouse.move(*start)
            tab.page.mouse.down()
            for target in (through, there):
                tab.page.mouse.move(*target, steps=8)
            assert not any(fig.evaluate(TASKS_STATE)["done"]), f"{lang} task {i + 1}: ticked while dragging"
            tab.page.mouse.up()
            assert not any(fig.evaluate(TASKS_STATE)["done"]), \
                f"{lang} task {i + 1}: ticked by a drag through q = [{x:.2f}, {y:.2f}] let go at {end}"
            tab.page.mouse.click(*point)
            state = fig.evaluate(TASKS_STATE)
            assert state["done"][i] and state["marks"][i] == "✓" and said in state["news"], \
                f"{lang} task {i + 1} ({task}): a click at q = [{x:.2f}, {y:.2f}] ×{data['scales'][scale]:g}: {state}"
        trouble += tab.visit.trouble()
        assert not trouble, trouble


def screen(fig, data: dict, x: float, y: float) -> tuple[float, float]:  # noqa: ANN001 - a Playwright locator
    """Where a point of the explorer's plane is on the screen."""
    return tuple(fig.evaluate("""(f, [x, y, plane]) => {
        const p = new DOMPoint(plane.origin[0] + plane.unit * x, plane.origin[1] - plane.unit * y);
        const s = p.matrixTransform(f.querySelector("svg").getScreenCTM());
        return [s.x, s.y];
    }""", [x, y, data["plane"]]))


class TestAnswers:  # a class: its own xdist scope
    @in_every_language(ANSWER_PAGES)
    def test_a_typed_prediction_is_checked_against_the_run(self, tab: Tab, site_url: str, lang: str, page: str) -> None:
        """Each answer box takes a number: the run's value (as shown, or within what the box allows) is right, a
        number well off it is wrong, each said in the language's words, and the explanation below opens."""
        ui = PROJECT.strings(lang).ui
        url = site_url + prefix(lang) + address(page)
        forms = tab.open(url).locator("form.lesson-answer")
        assert forms.count() == len(figures_of(page, "answer", lang)) > 0
        for i in range(forms.count()):
            for right in (True, False):
                form = tab.open(url).locator("form.lesson-answer").nth(i)
                data = json.loads(form.get_attribute("data-answer"))
                details = form.locator("xpath=following-sibling::*[1]")
                assert form.is_visible() and details.evaluate("d => d.tagName === 'DETAILS' && !d.open")
                form.locator("input").fill(data["shown"] if right else f"{data['value'] + 10 * data['within'] + 1:g}")
                form.locator("button").click()
                said = fill(ui["answer_right" if right else "answer_wrong"], value=data["shown"])
                assert form.locator(".lesson-answer__result").inner_text() == said, f"{lang} answer {i + 1}"
                assert details.evaluate("d => d.open"), f"{lang} answer {i + 1}: the explanation did not open"
            form = tab.open(url).locator("form.lesson-answer").nth(i)
            data, result = json.loads(form.get_attribute("data-answer")), form.locator(".lesson-answer__result")
            value, right = data["value"], fill(ui["answer_right"], value=data["shown"])
            for written in (f"{value * 100:.6g} %", f"{round(value * 10**6)}/{10**6}",  # as a page writes it
                            "".join(chr(ord(c) + 0xFEE0) if c in "0123456789." else c for c in f"{value:.6g}")):
                form.locator("input").fill(written)
                form.locator("button").click()
                assert result.inner_text() == right, f"{lang} answer {i + 1}: {written!r} read as another number"
            form.locator("input").fill("seven")
            assert result.inner_text() == "", "an old verdict stays beside a changed answer"
            form.locator("button").click()
            assert result.inner_text() == ui["answer_unread"], f"{lang} answer {i + 1}: 'seven' not said unread"
        assert not tab.visit.trouble(), tab.visit.trouble()


# -------------------- A right-to-left language: code, inline code, numbers and figures stay left to right
def arabic_page(japanese: str) -> str:
    """The Japanese page with its prose in Arabic words; headings, values, inline code and code blocks kept."""
    lines, fence = [], None
    for line in japanese.splitlines():
        opening = re.match(r"^\s*(`{3,}|~{3,})", line)
        if opening and fence is None:
            fence = opening[1]
        elif fence and line.strip().startswith(fence):
            fence = None
        elif fence is None and line.strip():
            kept = " ".join(re.findall(r"`[^`]*`|\{\{.*?\}\}|\[[^\]]*\]\([^)]*\)", line))
            line = ("# " if line.startswith("# ") else "") + f"نص عربي {kept} نهاية"
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def rtl_url(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A copy with a scratch right-to-left language, ``ar``: its name and one translated page (the explorer's)."""
    folder = tmp_path_factory.mktemp("rtl")
    project = copy_project(folder)
    for code in set(LANGS) - {SOURCE_LANG}:
        shutil.rmtree(project / "docs" / code)
    page = EXPLORER_PAGES[0]
    (project / "docs" / "ar").mkdir()
    (project / "docs" / "ar" / "strings.yml").write_text(f'name: "العربية"\nliterals:\n  "{SHAPED}": "شكل المدخل"\n',
                                                          encoding="utf-8")
    (project / "docs" / "ar" / page).write_text(arabic_page((ROOT / "docs" / SOURCE_LANG / page).read_text("utf-8")),
                                               encoding="utf-8")
    shutil.copy(ROOT / "docs" / SOURCE_LANG / SHAPED_PAGE, project / "docs" / "ar" / SHAPED_PAGE)
    assert_ok(build(project, folder / "site"))
    with served(folder / "site") as url:
        yield url, page


LTR = """() => {
  const inline = [...document.querySelectorAll(".md-typeset p code")].filter((c) => /\\d, \\d/.test(c.textContent));
  const order = inline.map((c) => { const r = document.createRange(), t = c.firstChild;
    r.setStart(t, 0); r.setEnd(t, 1); const first = r.getBoundingClientRect().left;
    r.setStart(t, t.length - 1); r.setEnd(t, t.length); return first < r.getBoundingClientRect().left; });
  const dir = (sel) => [...document.querySelectorAll(sel)].map((e) => getComputedStyle(e).direction);
  return {page: getComputedStyle(document.body).direction, inline: order, code: dir(".md-typeset pre"),
          figures: dir(".lesson-figure svg"), japanese: dir(".md-content [lang=ja]")};
}"""


SHAPED_PAGE, SHAPED = next((page, m[1]) for page in pages() for m in [re.search(
    r'--8<-- "snippets/(\w+\.py)"', (ROOT / "docs" / SOURCE_LANG / page).read_text("utf-8"))] if m
    for m in [re.search(r'print\("([^"]+)", tuple\(', (ROOT / "snippets" / m[1]).read_text("utf-8"))] if m)
"""A page whose listing prints a string, then a shape: in Arabic, the string is right to left beside the numbers."""
GLYPHS = """() => [...document.querySelectorAll(".md-typeset pre code")].flatMap((code) => {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT), found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.textContent.matchAll(/\\((\\d+), (\\d+)\\)/g)) {
            const at = (i, n) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + n);
                                   return r.getBoundingClientRect().left; };
            const second = m.index + m[0].indexOf(m[2], m[1].length + 1);
            found.push([m[0], at(m.index, 1), at(m.index + 1, m[1].length), at(second, m[2].length)]);
        }
    }
    return found;
})"""
"""Every shape printed in a listing's output, with the left edge of its "(", its first and its second number."""


def test_a_right_to_left_page_shows_printed_shapes_as_printed(tab: Tab, rtl_url: tuple[str, str]) -> None:
    """The Arabic page of a listing that prints an Arabic string before a shape: "(5, 16)" reads (, 5, 16 from
    left to right, as printed, measured by each glyph's position in Chromium."""
    url, _ = rtl_url
    shapes = tab.open(url + "ar/" + address(SHAPED_PAGE)).evaluate(GLYPHS)
    assert shapes, "no shape printed on the page"
    reversed_ = [shape for shape, paren, first, second in shapes if not paren < first < second]
    assert not reversed_, f"drawn out of order: {reversed_}"


def test_a_right_to_left_page_keeps_code_numbers_and_figures_left_to_right(tab: Tab, rtl_url: tuple[str, str]) -> None:
    url, page = rtl_url
    seen = tab.open(f"{url}ar/{address(page)}").evaluate(LTR)
    assert seen["page"] == "rtl"
    assert seen["inline"] and all(seen["inline"]), f"inline code such as [1, 0] read out of order: {seen['inline']}"
    assert seen["code"] and set(seen["code"]) == {"ltr"}
    assert seen["figures"] and set(seen["figures"]) == {"ltr"}
    fallback = next(p for p in PAGES if p.endswith(".md") and p != page and p != "index.md")
    seen = tab.open(f"{url}ar/{address(fallback)}").evaluate(LTR)
    assert seen["japanese"] == ["ltr"], "an untranslated page keeps the Japanese direction"


# -------------------- The policy: markup forced into a published page by hand runs nothing and loads nothing
FORCED = ('<script>alert("inline")</script><script src="https://example.org/x.js"></script>'
          '<img src="x" onerror="alert(1)"><link rel="stylesheet" href="https://example.org/x.css">'
          '<a href="javascript:alert(1)" id="forced-link">x</a>')
BLOCKED = ["script-src-elem inline", "script-src-elem https://example.org/x.js", "script-src-attr inline",
           "style-src-elem https://example.org/x.css"]
"""What the browser reports blocking, by directive and address (the handler and the inline script: 'inline')."""


@pytest.fixture(scope="module")
def forced_url(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """The site with FORCED written into the content of a page of every language, as if a check had missed it."""
    folder = tmp_path_factory.mktemp("forced") / "site"
    shutil.copytree(site, folder)
    paths = [prefix(lang) + address(PAGES[1]) for lang in LANGS]
    for path in paths:
        page = folder / path / "index.html"
        text = page.read_text("utf-8")
        at = text.index(">", text.index('<article class="md-content__inner')) + 1
        page.write_text(text[:at] + FORCED + text[at:], encoding="utf-8")
    with served(folder) as url:
        yield url, paths


def test_the_policy_blocks_markup_forced_into_a_page(browser: Browser, forced_url: tuple[str, list[str]]) -> None:
    url, paths = forced_url
    context = browser.new_context()
    context.add_init_script(VIOLATIONS)
    bad, asked = [], []  # what reached the network layer (a request the policy blocks never does)
    context.route("https://example.org/**", lambda route: (asked.append(route.request.url), route.abort()))
    try:
        tab = Tab(context.new_page())
        watch(tab.page, lambda: tab.visit)
        for path in paths:
            page = tab.open(url + path)
            page.wait_for_load_state("load")
            page.click("#forced-link")
            page.wait_for_timeout(100)
            blocked = page.evaluate("() => window.lessonViolations")
            bad += [f"/{path}: {problem}" for problem in tab.visit.dialogs]
            bad += [f"/{path}: asked {u}" for u in asked]
            asked.clear()
            bad += [f"/{path}: not reported: {want}" for want in BLOCKED
                    if not any(b.startswith(want) for b in blocked)]
    finally:
        context.close()
    assert not bad, "\n".join(bad)


# -------------------- The check parses as the browser does
PARSED = {  # markup that html.parser (Python 3.11) read otherwise than a browser does, and other raw-text cases
    "comment-short": "<p>a<!--><img src=x onerror=alert(1)>-->b</p>",
    "comment-dash": "<p>a<!---><img src=x onerror=alert(1)>-->b</p>",
    "cdata": "<p><![CDATA[><img src=x onerror=alert(1)>]]></p>",
    "processing-instruction": "<p><?x><img src=x onerror=alert(1)>?></p>",
    "noscript": '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
    "textarea": '<textarea><p title="</textarea><img src=x onerror=alert(1)>"></textarea>',
    "title": '<title><p title="</title><img src=x onerror=alert(1)>"></title>',
    "style": '<style><p title="</style><img src=x onerror=alert(1)>"></style>',
    "xmp": '<xmp><p title="</xmp><img src=x onerror=alert(1)>"></xmp>',
    "noembed": '<noembed><p title="</noembed><img src=x onerror=alert(1)>"></noembed>',
    "svg-style": "<svg><style><img src=x onerror=alert(1)></style></svg>",
    "math-style": "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "template": "<template><img src=x onerror=alert(1)></template>",
    "end-tag-attribute": '<p>a</p title="><img src=x onerror=alert(1)>">',
    "closing-content": '<div><article class="md-content__inner"><p>`</article><script>alert(1)</script>`</p>',
}
DOM_TREE = """() => {
    const walk = (node) => [...(node.content || node).childNodes].flatMap((child) => child.nodeType === 1
        ? [[child.localName.toLowerCase(), [...child.attributes].map((a) => [a.name, a.value]).sort(),
            walk(child), [...(child.content || child).childNodes].filter((t) => t.nodeType === 3)
                .map((t) => t.data).join("")]]
        : []);
    return walk(document);
}"""
"""The document as Chromium built it: per element, its name, attributes, children and text."""


def _tree(element: object) -> list:
    from attention_lesson.site import boundary

    assert isinstance(element, boundary.Element)
    return [[child.tag.lower(), sorted([list(a) for a in child.attrs]), _tree(child), "".join(child.text)]
            for child in element.children]


@pytest.mark.parametrize("case", list(PARSED), ids=list(PARSED))
def test_the_check_reads_a_page_as_chromium_does(tab: Tab, case: str) -> None:
    from attention_lesson.site import boundary

    document = f"<!doctype html><html><head></head><body>{PARSED[case]}</body></html>"
    tab.page.set_content(document)
    assert _tree(boundary.parse(document)) == tab.page.evaluate(DOM_TREE)
