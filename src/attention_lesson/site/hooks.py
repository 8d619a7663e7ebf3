"""MkDocs hooks: the policy of the build. One base mkdocs.yml, one build per language folder.

`mkdocs build` builds the source language (Japanese) at the site root in this process; its pages run every
block through the runner (:mod:`attention_lesson.site.runner`), which stores each result. As soon as every
Japanese page is rendered, every other ``docs/<code>/`` is built into ``site/<code>/`` by its own
``mkdocs build`` process, as many at once as there are cores (FastAPI's docs do the same): those builds find
every result in the store, so nothing runs twice and every language shows the same run. ``LESSON_LANG=<code>``
builds or serves that language alone.

A hook rather than mkdocs-static-i18n: that plugin publishes mkdocs-jupyter notebooks as raw source, merges all
languages into one search index, and is no longer maintained.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from html import escape as html_escape
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
import jinja2.bccache
import watchdog.events
import watchdog.observers
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from attention_lesson.site import claims, i18n, notebooks, project, translations
from attention_lesson.site.runner import RUNNER, values
from attention_lesson.site.store import Store

log = logging.getLogger("mkdocs.plugins.attention_lesson")

STORE_ENV = "LESSON_STORE"
"""Set by the build for the language builds it starts: the store they read (a private one with no cache)."""
CHILD_ENV = "LESSON_LANGUAGE_BUILD"
WAIT_ENV = "LESSON_WAIT_FOR_RESULTS"
"""Set for the language builds the Japanese build starts early: they wait for GO on stdin before their pages."""
GO = "results stored"
PREVIEW_ENV = "LESSON_PREVIEW"
"""Set for the language builds `mkdocs serve` starts: like serve, they leave a broken language out."""
STATUS_PAGE = "translation-status.md"


class _State:
    """What one build of this process needs from one event to the next (the module is re-imported by every
    `mkdocs serve` rebuild, so nothing here outlives a build)."""

    command = "build"
    lang = project.DEFAULT_LANG
    private_store: Store | None = None
    children: list[tuple[str, subprocess.Popen, Path]] = []
    finished: list[tuple[str, subprocess.Popen, Path]] = []
    started = 0.0


STATE = _State()


def on_startup(command: str, dirty: bool) -> None:
    RUNNER.command = command


@event_priority(100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    STATE.command = getattr(RUNNER, "command", "build")
    STATE.started = time.perf_counter()
    mkdocs_log = logging.getLogger("mkdocs")
    if config.strict and mkdocs_log.level > logging.WARNING:
        # `-q` raises the logger's level past WARNING, so strict mode's counter never sees a warning (a broken
        # link, a missing anchor) and a quiet strict build would pass. Every warning fails a strict build, so
        # it is shown and counted at every log level.
        mkdocs_log.setLevel(logging.WARNING)
    lang = os.environ.get("LESSON_LANG") or project.DEFAULT_LANG
    try:
        i18n.check_language(lang)
    except ValueError as error:
        raise PluginError(f"LESSON_LANG: {error}") from None
    problems = [p for code in i18n.languages() for p in i18n.validate(code)]
    try:
        strings = i18n.strings(lang)
    except i18n.StringsError as error:  # this build's own language is broken: nothing to show
        raise PluginError("\n".join(error.problems)) from None
    previewing = STATE.command == "serve" or os.environ.get(PREVIEW_ENV)
    if problems and not previewing:  # a build publishes every language, so every one must be sound
        raise PluginError("\n".join(problems))
    for problem in problems:
        # `mkdocs serve` goes on with the sound languages. Printed, not logged: strict mode counts every logged
        # warning or error and would stop the preview of the languages that are fine.
        print(f"ERROR    -  {problem} (this language is left out of the preview until it is fixed)",
              file=sys.stderr)
    STATE.lang = lang
    i18n.set_language(lang)

    config.docs_dir = str(project.ROOT / "docs" / lang)
    config.site_name = strings.get("site_name") or config.site_name
    config.theme["language"] = lang
    if lang != project.DEFAULT_LANG and STATE.command != "serve" and not config.site_dir.endswith(f"/{lang}"):
        config.site_dir = os.path.join(config.site_dir, lang)

    # Where the site is published and where its sources are: set by the deployment (the workflow), absent
    # locally. With a site URL, pages get canonical links, the sitemap lists them and every page names the same
    # page in every language as an absolute URL.
    site_url = (os.environ.get("LESSON_SITE_URL") or "").strip()
    if site_url:
        config.site_url = site_url.rstrip("/") + "/" + _prefix(lang)
    repo_url = (os.environ.get("LESSON_REPO_URL") or "").strip().rstrip("/")
    if repo_url:
        config.repo_url = repo_url
        config.repo_name = urlsplit(repo_url).path.strip("/") or repo_url  # MkDocs derives it only from mkdocs.yml
        config.edit_uri = f"edit/main/docs/{lang}/"
    root = urlsplit(site_url).path.rstrip("/") + "/" if site_url else "/"

    # Every language is linked page-to-page by the overridden partials/alternate.html and main.html.
    config.extra["alternate"] = [
        {
            "name": i18n.strings(code).get("name", code),
            "lang": code,
            "link": _prefix(code) if lang == project.DEFAULT_LANG else ("../" + _prefix(code) if code != lang else ""),
            "root": root + _prefix(code),  # from the site's root: the 404 page is served at any path
            "url": site_url.rstrip("/") + "/" + _prefix(code) if site_url else "",
        }
        for code in i18n.usable_languages()
    ]
    config.extra["lesson_lang"] = lang
    config.extra["lesson_default_lang"] = project.DEFAULT_LANG

    # The theme's own words in the page's language: Material translates its interface by theme.language, but
    # the palette toggle's names, the heading anchors' title and the 404 page are configuration or template text.
    config.site_description = strings.get("site_description") or config.site_description
    for option in config.theme["palette"] or []:
        toggle = option.get("toggle") or {}
        key = {"default": "palette_to_dark", "slate": "palette_to_light"}.get(option.get("scheme"))
        if toggle and key:
            toggle["name"] = i18n.ui(key, lang)
    config.mdx_configs.setdefault("toc", {})["permalink_title"] = i18n.ui("permalink_title", lang)
    config.extra["not_found_title"] = i18n.ui("not_found_title", lang)
    config.extra["not_found_text"] = i18n.ui("not_found_text", lang)
    config.extra["not_found_home"] = i18n.ui("not_found_home", lang)

    logging.getLogger("jieba").setLevel(logging.WARNING)  # Material's Chinese segmenter logs its start on stderr
    search = next((p for name, p in config.plugins.items() if name.endswith("search")), None)
    if search is not None:
        search_config = strings.get("search") or {}
        search.config.lang = search_config.get("lang") or [lang]
        search.config.pipeline = search_config.get("pipeline")
        search.config.separator = search_config.get("separator")

    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:  # its rendered HTML, keyed by the executed notebook; one folder per language,
        # because the plugin drops every entry its own build did not use
        jupyter.config["cache_dir"] = str(project.ROOT / ".cache" / "mkdocs-jupyter" / lang)

    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(project.ROOT)]
    snippets["check_paths"] = True

    RUNNER.start_build(lang, _store())
    return config


def _store() -> Store:
    """The store this build reads and writes: the shared cache, or one private to this build (and the
    language builds it starts) when LESSON_NO_CACHE is set."""
    if os.environ.get(STORE_ENV):
        return Store(Path(os.environ[STORE_ENV]))
    if project.no_cache():
        project.CACHE_DIR.parent.mkdir(parents=True, exist_ok=True)
        STATE.private_store = Store(Path(tempfile.mkdtemp(prefix="run-", dir=project.CACHE_DIR.parent)))
        return STATE.private_store
    return Store(project.CACHE_DIR)


def _prefix(code: str) -> str:
    return "" if code == project.DEFAULT_LANG else f"{code}/"


def _is_main_build() -> bool:
    return STATE.lang == project.DEFAULT_LANG and not os.environ.get("LESSON_LANG") and STATE.command != "serve"


def _previews_all() -> bool:
    """`mkdocs serve` without LESSON_LANG previews every language, as the published site has them."""
    return STATE.lang == project.DEFAULT_LANG and not os.environ.get("LESSON_LANG") and STATE.command == "serve"


PREVIEW = project.ROOT / ".cache" / "preview"
"""Under `mkdocs serve`, each other language's latest build; linked into the served site after every rebuild."""


def on_serve(server, config: MkDocsConfig, builder):
    """Watch every language folder. An edit there rebuilds that language's preview alone (see
    _refresh_previews); the Japanese build runs again only when what it is built from changed."""
    _watch_natively(server, config)
    if _previews_all():
        for code in i18n.languages():
            if code != project.DEFAULT_LANG:
                server.watch(str(project.ROOT / "docs" / code))
                RUNNER.watched.add(code)
        RUNNER.serving = True
        RUNNER.source_inputs = _source_inputs()
        rebuild_all = server.builder

        def rebuild() -> None:
            inputs = _source_inputs()
            if inputs == RUNNER.source_inputs and (Path(config.site_dir) / "index.html").is_file():
                _refresh_previews(config)  # only another language's pages changed
                return
            rebuild_all()
            RUNNER.source_inputs = inputs

        server.builder = rebuild
    return server


class _EditsObserver(watchdog.observers.Observer):
    """watchdog's native observer, passing on what an edit does to a file (written, created, deleted, moved)
    and not its being opened or read: MkDocs rebuilds on every event it is handed, and every build opens the
    sources, so opens would make each build start the next."""

    EDITS = [watchdog.events.FileModifiedEvent, watchdog.events.FileClosedEvent, watchdog.events.FileCreatedEvent,
             watchdog.events.FileDeletedEvent, watchdog.events.FileMovedEvent]

    def schedule(self, event_handler, path, *, recursive=False, event_filter=None, **kwargs):
        return super().schedule(event_handler, path, recursive=recursive, event_filter=event_filter or self.EDITS,
                                **kwargs)


def _watch_natively(server, config: MkDocsConfig) -> None:
    """On Linux, the server learns of an edit from inotify (watchdog's native observer) instead of MkDocs'
    default, a scan of every watched folder each 0.5 s: that scan was a quarter of a second of the average
    edit's wait. The folders MkDocs watched before this hook are moved to the new observer; the server starts
    it, as it would have started its own."""
    if not sys.platform.startswith("linux"):
        return
    moved = []
    for path in [config.docs_dir, config.config_file_path, *config.theme.dirs]:
        try:
            server.unwatch(path)
        except KeyError:  # not watched (the theme is watched only with --watch-theme)
            continue
        moved.append(path)
    server.observer = _EditsObserver()
    for path in moved:
        server.watch(path)


def _source_inputs() -> str:
    """What the Japanese build depends on: its own inputs and every language's strings.yml (the switcher names
    the sound ones). Its translation-status page catches up with an edit elsewhere at its next rebuild."""
    strings = sorted((project.ROOT / "docs").glob(f"*/{i18n.STRINGS_FILE}"))
    return project.digest(_inputs(project.DEFAULT_LANG),
                          *(part for p in strings for part in (p.parent.name, p.read_bytes())))


def _inputs(lang: str) -> str:
    """A digest of what a language's pages come from: its folder, the Japanese pages it lacks (shown in their
    place), Japanese strings, the code and mkdocs.yml. A Japanese prose edit leaves the others' previews alone
    (their translation-status page catches up at their next rebuild)."""
    own, source = project.ROOT / "docs" / lang, project.ROOT / "docs" / project.DEFAULT_LANG
    paths = [project.ROOT / "mkdocs.yml", source / i18n.STRINGS_FILE]
    paths += sorted(p for p in source.rglob("*") if p.is_file() and not (own / p.relative_to(source)).exists())
    for folder in (own, project.ROOT / "snippets", project.ROOT / "src" / "attention_lesson"):
        paths += sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return project.digest(*(part for p in paths for part in (p.relative_to(project.ROOT).as_posix(), p.read_bytes())))


def _error_page(folder: Path, lang: str, problems: list[str]) -> None:
    """What the preview of a broken language shows: its mistakes, one per line, instead of its pages."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    items = "".join(f"<li><code>{html_escape(p)}</code></li>" for p in problems)
    (folder / "index.html").write_text(
        f'<!doctype html><html lang="{lang}"><meta charset="utf-8"><title>{lang}: not built</title>'
        f"<h1>docs/{lang}/ is not built</h1><p>Fix these and save; the preview rebuilds:</p><ul>{items}</ul>",
        encoding="utf-8")


def _refresh_previews(config: MkDocsConfig) -> None:
    """Rebuild the other languages whose inputs changed (in parallel, reading the results this build stored),
    then link every preview into the served site, so the switcher works under `mkdocs serve` too."""
    usable = set(i18n.usable_languages())
    started = []
    for lang in (code for code in i18n.languages() if code != project.DEFAULT_LANG):
        if lang not in RUNNER.watched and RUNNER.serving:  # the server watches the folders there were when it
            RUNNER.watched.add(lang)  # started (on_serve, after the first build)
            print(f"INFO     -  New language folder docs/{lang}/: previewed at /{lang}/ from now on; restart "
                  "mkdocs serve for its own edits to rebuild it", file=sys.stderr)
        folder = PREVIEW / lang
        digest = _inputs(lang)
        if lang not in usable:
            _error_page(folder, lang, i18n.validate(lang))
            RUNNER.previews.pop(lang, None)
        elif RUNNER.previews.get(lang) != digest or not (folder / "index.html").is_file():
            worker = _preview_worker(lang, config)
            worker.stdin.write("build\n")
            worker.stdin.flush()
            started.append((lang, digest, worker))
    for lang, digest, worker in started:  # every worker is building by now: they run side by side
        answer = worker.stdout.readline()
        result = json.loads(answer) if answer else {"ok": False, "problems": [_worker_failure(lang, worker)]}
        if result["ok"]:
            RUNNER.previews[lang] = digest
            log.info("Preview of '%s' rebuilt in %.2f s", lang, result["seconds"])
        else:
            _error_page(PREVIEW / lang, lang, result["problems"])
            RUNNER.previews.pop(lang, None)
            print(f"ERROR    -  [{lang}] " + "; ".join(result["problems"]), file=sys.stderr)  # see on_config
    for lang in (code for code in i18n.languages() if code != project.DEFAULT_LANG):
        link = Path(config.site_dir) / lang
        if (PREVIEW / lang).is_dir() and not link.exists():
            link.symlink_to(PREVIEW / lang, target_is_directory=True)


def _preview_worker(lang: str, config: MkDocsConfig) -> subprocess.Popen:
    """The process that builds lang's preview (attention_lesson.site.preview), started at its first rebuild and
    kept for the next ones; it ends when the server does (its stdin closes)."""
    worker = RUNNER.workers.get(lang)
    if worker is None or worker.poll() is not None:
        PREVIEW.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "LESSON_LANG": lang, STORE_ENV: str(RUNNER.store.path), CHILD_ENV: "1",
               PREVIEW_ENV: "1"}
        with open(PREVIEW / f"{lang}.log", "w", encoding="utf-8") as log_file:  # what it prints: for a crash
            worker = subprocess.Popen(
                [sys.executable, "-m", "attention_lesson.site.preview", config.config_file_path, str(PREVIEW / lang)],
                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file, text=True)
        RUNNER.workers[lang] = worker
    return worker


def _worker_failure(lang: str, worker: subprocess.Popen) -> str:
    worker.wait()
    printed = (PREVIEW / f"{lang}.log").read_text(encoding="utf-8", errors="replace").strip()
    return f"the preview build of '{lang}' exited {worker.returncode}: {printed[-2000:]}"


@event_priority(50)  # before mkdocs-jupyter's on_files, which makes the executed notebooks pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Fill pages this language lacks with the Japanese page (a banner on it says so); add the status page."""
    if _is_main_build():
        _start_language_builds(config)
    _wait_for_results()
    lang = STATE.lang
    if lang != project.DEFAULT_LANG:
        source = project.ROOT / "docs" / project.DEFAULT_LANG
        for path in sorted(source.rglob("*.md")):
            rel = path.relative_to(source).as_posix()
            if files.get_file_from_path(rel) is None:
                file = File(rel, str(source), config.site_dir, config.use_directory_urls)
                file.fallback = True
                files.append(file)
    files.append(File.generated(config, STATUS_PAGE, content=_status_page()))
    return notebooks.prepare(files, config, lang)  # the exercise notebooks, run by the runner


def _status_table() -> dict:
    """Page → language → translated / outdated / missing, and each language's label coverage.

    The same for every language's build, so it is computed once per state of the sources (git HEAD, the pages,
    strings.yml, snippets/) and stored: the language builds and `mkdocs serve` rebuilds read it.
    """
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project.ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        head = ""  # not a git checkout: no page is outdated (translations.check says the same)
    sources = sorted([*(project.ROOT / "docs").glob("*/*.md"), *(project.ROOT / "docs").glob("*/strings.yml"),
                      *(project.ROOT / "snippets").glob("*.py")])
    key = project.digest("translation status", head, *(p.relative_to(project.ROOT).as_posix() for p in sources),
                         *(p.read_bytes() for p in sources))
    table = RUNNER.store.get(key)
    if isinstance(table, dict):
        return table
    codes = i18n.usable_languages()
    reports = {code: translations.check(code) for code in codes}
    table = {
        "pages": {page: {code: reports[code].page_status(page) for code in codes}
                  for page in translations.pages(i18n.DEFAULT_LANG)},
        "coverage": {code: reports[code].label_coverage for code in codes},
    }
    RUNNER.store.put(key, table)
    return table


def _status_page() -> str:
    """The translation status page, in this build's language, regenerated at every build from the check."""
    table = _status_table()
    # the store keeps mappings with sorted keys: the columns follow the site's order of languages, whether the
    # table was computed by this build or read back
    codes = [code for code in i18n.languages() if code in table["coverage"]]
    word = {state: i18n.ui(f"status_{state}") for state in ("translated", "outdated", "missing")}
    names = [i18n.strings(code).get("name", code) for code in codes]
    lines = [
        f"# {i18n.ui('status_title')}",
        "",
        i18n.ui("status_intro"),
        "",
        "| " + " | ".join([i18n.ui("status_page"), *names]) + " |",
        "|---" * (len(codes) + 1) + "|",
    ]
    for page, states in sorted(table["pages"].items()):
        lines.append(f"| `{page}` | " + " | ".join(word[states[code]] for code in codes) + " |")
    coverage = [f"{table['coverage'][code]:.0%}" for code in codes]
    lines.append(f"| {i18n.ui('status_labels')} | " + " | ".join(coverage) + " |")
    return "\n".join(lines) + "\n"


def _source(page: Page) -> str:
    """The page's file as an editor knows it: docs/<code>/<page>.md."""
    try:
        return Path(page.file.abs_src_path).resolve().relative_to(project.ROOT).as_posix()
    except (TypeError, ValueError):
        return page.file.src_uri


FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")


def _check_fences(markdown: str, where: str) -> None:
    """A fence left open turns the rest of the page into code without a word: name its line instead."""
    opened: tuple[int, str] | None = None
    for number, line in enumerate(markdown.splitlines(), 1):
        match = FENCE.match(line)
        if not match:
            continue
        fence = match["fence"]
        if opened is None:
            opened = (number, fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]) and not line.strip()[len(fence):].strip():
            opened = None
    if opened is not None:
        raise PluginError(f"{where}:{opened[0]}: the code fence opened here ({opened[1]}) is never closed; "
                          f"add a line with {opened[1]} after its code")


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    RUNNER.begin_page(_source(page))
    _check_fences(markdown, _source(page))
    repo = (config.repo_url or "").rstrip("/")
    if repo and page.file.src_uri.endswith(".ipynb"):  # the notebook's source: a jupytext .py file
        source = notebooks.sources(STATE.lang).get(page.file.src_uri.removesuffix(".ipynb") + ".py")
        if source is not None:
            page.edit_url = f"{repo}/edit/main/{source.relative_to(project.ROOT).as_posix()}"
    if not getattr(page.file, "fallback", False):
        return markdown
    guide = ""
    if repo:  # the page to create, in this language's folder, and the guide to translating
        page.edit_url = f"{repo}/new/main/docs/{STATE.lang}?filename={page.file.src_uri}"
        guide = (f' · <a href="{page.edit_url}">{i18n.ui("translate_page")}</a>'
                 f' (<a href="{repo}/blob/main/docs/TRANSLATING.md">{i18n.ui("translate_guide")}</a>)')
    depth = page.url.count("/") + 1  # the page's folder, then the language folder, reach the Japanese root
    original = "../" * depth + page.url
    banner = (
        f'!!! warning "{i18n.ui("untranslated_title")}"\n\n'
        f'    {i18n.ui("untranslated")} <a href="{original}" hreflang="ja">{i18n.ui("original")}</a>{guide}\n\n'
    )
    return banner + markdown


MEASURED = re.compile(r"\{\{\s*measured\.(\w+)\s*\}\}")


@event_priority(100)  # before the search plugin indexes the page's text
def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Fill {{ measured.* }} from this page's own run; render the page again if that run was replaced."""
    html = _fill_measured(html, page)
    if page.file.src_uri.endswith(".ipynb"):
        html = _localize_notebook_page(html)
    if RUNNER.take_rerender():
        log.info("%s: a stored result was replaced by a new run; rendering the page again", _source(page))
        RUNNER.begin_page(_source(page))
        page.render(config, files)
        html = _fill_measured(page.content, page)
    return html


def _localize_notebook_page(html: str) -> str:
    """The notebook pages' copy buttons in the page's language: mkdocs-jupyter's template writes them in
    English and has no setting for it, so its two fixed strings are replaced in the rendered page."""
    return (html.replace('aria-label="Copy to Clipboard"', f'aria-label="{i18n.ui("copy_code")}"')
                .replace(">Copied!<", f">{i18n.ui('copied')}<"))


def _fill_measured(html: str, page: Page) -> str:
    """Replace {{ measured.name }} with the value computed from this page's run (attention_lesson.site.claims).

    A plain substitution rather than a Jinja macros plugin: only this one form is touched, so braces in code
    and prose stay as written, and an unknown name stops the build naming the page.
    """
    found: dict[str, str] = {}

    def value(match: re.Match) -> str:
        name = match[1]
        session = claims.NAMES.get(name)
        if session is None:
            raise PluginError(f"{_source(page)}: unknown {match[0]}; known: {', '.join(sorted(claims.NAMES))}")
        if name not in found:
            try:
                found.update(values(session, claims.SESSIONS[session]))
            except KeyError:
                raise PluginError(f"{_source(page)}: {match[0]} is measured by the session {session!r}, "
                                  "which this page does not run") from None
        return found[name]

    return MEASURED.sub(value, html)


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled theme templates, kept in the store's folder and shared by every build, language and rebuild.

    MkDocs makes a new Jinja environment for each build, which compiles Material's templates again every time
    (about 0.6 s of each `mkdocs serve` rebuild). Jinja's own bytecode cache keys each template by its source's
    checksum and writes atomically; this subclass only adds that an unreadable file is a miss, not an error."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a damaged file: compile again, and the dump replaces it
            bucket.reset()


def on_env(env, config: MkDocsConfig, files: Files):
    """Every page of the source language is rendered, so every result is stored: let the other languages go on."""
    folder = RUNNER.store.path / "templates"
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = _CompiledTemplates(str(folder))
    if _is_main_build():
        _release_language_builds()
    return env


def _start_language_builds(config: MkDocsConfig) -> None:
    """Start every other language's `mkdocs build` now, while this build runs the code: each one imports and
    configures MkDocs, then waits (see _wait_for_results) until on_env says every result is stored."""
    env = {**os.environ, STORE_ENV: str(RUNNER.store.path), CHILD_ENV: "1", WAIT_ENV: "1"}
    args = [sys.executable, "-m", "mkdocs", "build", "-f", config.config_file_path]
    if config.strict:
        args.append("--strict")
    level = logging.getLogger("mkdocs").getEffectiveLevel()
    if level > logging.INFO:
        args.append("-q")
    elif level < logging.INFO:
        args.append("-v")
    STATE.children = []
    for lang in i18n.languages():
        if lang == project.DEFAULT_LANG:
            continue
        site_dir = Path(config.site_dir) / lang
        log.info("Building language '%s' into %s", lang, site_dir)
        proc = subprocess.Popen([*args, "-d", str(site_dir)], env={**env, "LESSON_LANG": lang},
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        STATE.children.append((lang, proc, site_dir))


def _release_language_builds() -> None:
    for _, proc, _ in STATE.children:
        with contextlib.suppress(BrokenPipeError):  # it failed already: _wait_for_language_builds says why
            proc.stdin.write(GO + "\n")
            proc.stdin.flush()  # communicate() closes it


def _wait_for_results() -> None:
    """In a language build started by the Japanese one: wait until it has stored every result."""
    if os.environ.pop(WAIT_ENV, None) and sys.stdin.readline().strip() != GO:
        raise PluginError("the Japanese build stopped before every result was stored")


def _wait_for_language_builds() -> None:
    failed = []
    for lang, proc, _ in STATE.children:
        output, _ = proc.communicate()
        for line in output.splitlines():
            level, _, text = line.partition(" - ")
            level = level.strip()
            if level in {"WARNING", "ERROR"}:
                log.log(logging.WARNING if level == "WARNING" else logging.ERROR, "[%s] %s", lang, text.strip())
            elif line.strip():
                log.debug("[%s] %s", lang, line)
        if proc.returncode != 0:
            errors = [line for line in output.splitlines() if line.startswith(("ERROR", "Aborted"))]
            failed.append(f"{lang}: " + ("; ".join(errors) or output.strip()[-500:]))
    STATE.finished, STATE.children = STATE.children, []
    if failed:
        raise PluginError("language build failed: " + " | ".join(failed))


@event_priority(-100)
def on_post_build(config: MkDocsConfig) -> None:
    stats = RUNNER.stats
    log.info("Runner (%s): %d blocks run in %.1f s, %d taken from the store %s", STATE.lang, stats.executed,
             stats.seconds, stats.reused, RUNNER.store.path)
    if _previews_all():
        _refresh_previews(config)
    if _is_main_build():
        try:
            _wait_for_language_builds()
            _merge_sitemaps(config)
        finally:
            _finish()
        log.info("All languages built in %.1f s", time.perf_counter() - STATE.started)


def _merge_sitemaps(config: MkDocsConfig) -> None:
    """One sitemap at the site's root: every page of every language, each with the same page in every language
    (hreflang, plus x-default) as search engines read it from a sitemap.

    The hreflang links live here rather than in each page's <head>: Material's script fetches ``sitemap.xml``
    relative to every ``<link rel="alternate">`` of a page, so same-page links there would each cost a 404."""
    root = Path(config.site_dir) / "sitemap.xml"
    if not config.site_url or not root.is_file():
        return
    site_url = config.site_url.rstrip("/") + "/"  # the default language's, i.e. the site's root
    sitemaps = {STATE.lang: root, **{lang: site / "sitemap.xml" for lang, _, site in STATE.finished}}
    entries: dict[str, dict[str, str]] = {}  # page path → language → lastmod
    for lang, path in sitemaps.items():
        if not path.is_file():
            continue
        base = site_url + _prefix(lang)
        for loc, lastmod in re.findall(r"<loc>([^<]+)</loc>\s*<lastmod>([^<]*)</lastmod>", path.read_text("utf-8")):
            entries.setdefault(loc.removeprefix(base), {})[lang] = lastmod
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">']
    for page, langs in entries.items():
        links = [f'    <xhtml:link rel="alternate" hreflang="{code}" href="{site_url}{_prefix(code)}{page}"/>'
                 for code in langs]
        links.append(f'    <xhtml:link rel="alternate" hreflang="x-default" href="{site_url}{page}"/>')
        for code, lastmod in langs.items():
            lines += ["  <url>", f"    <loc>{site_url}{_prefix(code)}{page}</loc>", f"    <lastmod>{lastmod}</lastmod>",
                      *links, "  </url>"]
    root.write_text("\n".join([*lines, "</urlset>"]) + "\n", encoding="utf-8")
    with open(root.with_suffix(".xml.gz"), "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(root.read_bytes())


def on_build_error(error: Exception) -> None:
    for _, proc, _ in STATE.children:
        proc.kill()
        proc.wait()
    STATE.children = []
    _finish()


def _finish() -> None:
    if STATE.private_store is not None:
        STATE.private_store.remove()
        STATE.private_store = None
    elif STATE.command != "serve" and not os.environ.get(STORE_ENV):
        Store(project.CACHE_DIR).prune()
        notebooks.prune()
