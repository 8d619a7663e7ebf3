"""MkDocs hooks: one base mkdocs.yml, one MkDocs build per language folder.

`mkdocs build` builds Japanese at the site root, then every other ``docs/<code>/`` under ``site/<code>/``, each
as a build of its own (its own search index and search language, its own ``<html lang>``).
``LESSON_LANG=<code>`` builds or serves that language alone. A hook rather than mkdocs-static-i18n: that plugin
publishes mkdocs-jupyter notebooks as raw source, merges all languages into one search index, and is no longer
maintained.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import logging
import os
import re
import sys
import types
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from pymdownx.superfences import SuperFencesException

ROOT = Path(__file__).resolve().parents[2]


def _serve_cache() -> types.ModuleType:
    """State that must outlive a rebuild: `mkdocs serve` reloads the config, and so re-imports this hook, for
    every rebuild, and calls on_startup only once, so the command and the output cache live here."""
    cache = sys.modules.setdefault("_attention_lesson_serve_cache", types.ModuleType("_attention_lesson_serve_cache"))
    if not hasattr(cache, "outputs"):
        cache.outputs, cache.pending, cache.enabled, cache.code_key, cache.command = {}, {}, False, "", "build"
    return cache


_SERVE_CACHE = _serve_cache()
DEFAULT_LANG = "ja"
log = logging.getLogger("mkdocs.plugins.attention_lesson")


def _fresh_package():
    """Import attention_lesson from this project's src/, re-reading edited modules.

    `mkdocs serve` rebuilds in one process: without this, an edit under src/ would be ignored until restart,
    and a copy of the project (as the tests make) would run the installed package instead of its own.
    """
    src = str(ROOT / "src")
    if sys.path[0] != src:
        sys.path.insert(0, src)
    for name in [m for m in sys.modules if m == "attention_lesson" or m.startswith("attention_lesson.")]:
        del sys.modules[name]
    return importlib.import_module("attention_lesson.i18n")


def on_startup(command: str, dirty: bool) -> None:
    _SERVE_CACHE.command = command


@event_priority(100)
def _configure_language(config: MkDocsConfig) -> MkDocsConfig:
    i18n = _fresh_package()
    lang = os.environ.get("LESSON_LANG") or DEFAULT_LANG
    try:
        i18n.check_language(lang)
    except ValueError as error:
        raise PluginError(f"LESSON_LANG: {error}") from None
    i18n.set_language(lang)
    strings = i18n.strings(lang)

    config.docs_dir = str(ROOT / "docs" / lang)
    config.site_name = strings.get("site_name") or config.site_name
    config.theme["language"] = lang
    if lang != DEFAULT_LANG and _SERVE_CACHE.command != "serve" and not config.site_dir.endswith(f"/{lang}"):
        config.site_dir = os.path.join(config.site_dir, lang)

    # Every language is linked page-to-page by the overridden partials/alternate.html.
    config.extra["alternate"] = [
        {
            "name": i18n.strings(code).get("name", code),
            "lang": code,
            "link": _prefix(code) if lang == DEFAULT_LANG else ("../" + _prefix(code) if code != lang else ""),
        }
        for code in i18n.languages()
    ]
    config.extra["lesson_lang"] = lang

    logging.getLogger("jieba").setLevel(logging.WARNING)  # Material's Chinese segmenter logs its start on stderr
    search = next((p for name, p in config.plugins.items() if name.endswith("search")), None)
    if search is not None:
        search_config = strings.get("search") or {}
        search.config.lang = search_config.get("lang") or [lang]
        search.config.pipeline = search_config.get("pipeline")
        search.config.separator = search_config.get("separator")

    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(ROOT)]
    snippets["check_paths"] = True

    # markdown-exec keeps session globals at module level; clear them so nothing leaks between builds or
    # languages, and `mkdocs serve` fails on an undefined name exactly as a clean build does.
    from markdown_exec._internal.formatters import python as exec_python

    exec_python._sessions_globals.clear()
    exec_python._sessions_counter.clear()
    exec_python._code_blocks.clear()

    _SERVE_CACHE.enabled = _SERVE_CACHE.command == "serve"
    _SERVE_CACHE.pending = {}
    _SERVE_CACHE.code_key = _code_key(lang)
    return config


def _code_key(lang: str) -> str:
    """A digest of everything a listing's output depends on besides its own source."""
    digest = hashlib.sha256(lang.encode())
    paths = [*sorted((ROOT / "src").rglob("*.py")), *sorted((ROOT / "snippets").glob("*.py")),
             ROOT / "docs" / lang / "strings.yml", ROOT / "docs" / DEFAULT_LANG / "strings.yml"]
    for path in paths:
        digest.update(path.as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _prefix(code: str) -> str:
    return "" if code == DEFAULT_LANG else f"{code}/"


class SnippetError(PluginError, SuperFencesException):
    """A listing raised: stop the build before the page (with its traceback) is written."""


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _run_listing(original, source: str, *args, **kwargs) -> str:
    """markdown-exec's Python fence, with comments in the page's language and a failing block fatal.

    Only comments change, so the code shown is the code that runs. markdown-exec reports a failing block as a
    warning and renders the traceback into the page; strict mode would stop the build only after writing that
    page, so the failure is raised here instead, naming the snippet file (the block's title).

    Under `mkdocs serve` a block whose source, session, language and code (src/, snippets/, strings.yml) are
    unchanged since the last rebuild reuses its output, so a prose edit re-runs nothing; a changed block first
    replays the earlier blocks of its session that were reused, so it sees the same names as in a clean build.
    """
    from attention_lesson import i18n

    options = kwargs.get("options") or (args[2] if len(args) > 2 else {})
    session = options.get("session") or ""
    key = hashlib.sha256("\0".join([_SERVE_CACHE.code_key, session, source]).encode()).hexdigest()
    if _SERVE_CACHE.enabled:
        if key in _SERVE_CACHE.outputs:
            if session:
                _SERVE_CACHE.pending.setdefault(session, []).append(source)
            return _SERVE_CACHE.outputs[key]
        for earlier in _SERVE_CACHE.pending.pop(session, []) if session else []:
            original(i18n.localize_comments(earlier), *args, **kwargs)

    capture = _Capture()
    exec_logger = logging.getLogger("mkdocs.plugins.markdown_exec")
    exec_logger.addHandler(capture)
    try:
        html = original(i18n.localize_comments(source), *args, **kwargs)
    finally:
        exec_logger.removeHandler(capture)
    if capture.messages:
        title = (options.get("extra") or {}).get("title") or "a Python block without a title"
        lines = [line.strip() for line in capture.messages[0].splitlines() if line.strip()]
        raise SnippetError(f"{title} raised {lines[-1]}; the page was not written")
    if _SERVE_CACHE.enabled:
        _SERVE_CACHE.outputs[key] = html
    return html


@event_priority(-100)
def _wrap_python_fence(config: MkDocsConfig) -> MkDocsConfig:
    fences = config.mdx_configs.get("pymdownx.superfences", {}).get("custom_fences", [])
    for fence in fences:
        if fence.get("name") in {"python", "py"}:
            fence["format"] = functools.partial(_run_listing, fence["format"])
    return config


on_config = CombinedEvent(_configure_language, _wrap_python_fence)


@event_priority(50)  # before mkdocs-jupyter's on_files, which makes the executed notebooks pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Fill pages this language lacks with the Japanese page (a banner on it says so); add the status page."""
    lang = config.extra["lesson_lang"]
    if lang != DEFAULT_LANG:
        source = ROOT / "docs" / DEFAULT_LANG
        for path in sorted(source.rglob("*.md")):
            rel = path.relative_to(source).as_posix()
            if files.get_file_from_path(rel) is None:
                file = File(rel, str(source), config.site_dir, config.use_directory_urls)
                file.fallback = True
                files.append(file)
    files.append(File.generated(config, STATUS_PAGE, content=_status_page()))
    from attention_lesson import notebooks

    files = notebooks.prepare(files, config, lang)  # the exercise notebooks, executed or cached
    return files


STATUS_PAGE = "translation-status.md"


def _status_page() -> str:
    """Language × page → translated / outdated / missing, regenerated at every build from the check."""
    from attention_lesson import i18n, translations

    codes = i18n.languages()
    reports = {code: translations.check(code) for code in codes}
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
    for page in translations.pages(i18n.DEFAULT_LANG):
        cells = [word[reports[code].page_status(page)] for code in codes]
        lines.append(f"| `{page}` | " + " | ".join(cells) + " |")
    coverage = [f"{reports[code].label_coverage:.0%}" for code in codes]
    lines.append(f"| {i18n.ui('status_labels')} | " + " | ".join(coverage) + " |")
    return "\n".join(lines) + "\n"


MEASURED = re.compile(r"\{\{\s*measured\.(\w+)\s*\}\}")


def _fill_measured(markdown: str, page: Page) -> str:
    """Replace {{ measured.name }} with the value the code measures (attention_lesson.claims).

    A plain substitution rather than a Jinja macros plugin: only this one form is touched, so braces in code
    and prose stay as written, and an unknown name stops the build naming the page.
    """
    if not MEASURED.search(markdown):
        return markdown
    from attention_lesson import claims

    values = claims.measured()

    def value(match: re.Match) -> str:
        if match[1] not in values:
            raise PluginError(f"{page.file.src_uri}: unknown {match[0]}; known: {', '.join(sorted(values))}")
        return values[match[1]]

    return MEASURED.sub(value, markdown)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    markdown = _fill_measured(markdown, page)
    if not getattr(page.file, "fallback", False):
        return markdown
    from attention_lesson import i18n

    depth = page.url.count("/") + 1  # the page's folder, then the language folder, reach the Japanese root
    original = "../" * depth + page.url
    banner = (
        f'!!! warning "{i18n.ui("untranslated_title")}"\n\n'
        f'    {i18n.ui("untranslated")} <a href="{original}" hreflang="ja">{i18n.ui("original")}</a>\n\n'
    )
    return banner + markdown


@event_priority(-100)
def on_post_build(config: MkDocsConfig) -> None:
    """After the default language, build every other language folder into site/<code>/."""
    if config.extra["lesson_lang"] != DEFAULT_LANG or os.environ.get("LESSON_LANG") or _SERVE_CACHE.command == "serve":
        return
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from attention_lesson import i18n

    for lang in i18n.languages():
        if lang == DEFAULT_LANG:
            continue
        log.info("Building language '%s' into %s/%s", lang, config.site_dir, lang)
        os.environ["LESSON_LANG"] = lang
        try:
            build(load_config(config.config_file_path, strict=config.strict, site_dir=config.site_dir))
        finally:
            del os.environ["LESSON_LANG"]
    _fresh_package().set_language(DEFAULT_LANG)
