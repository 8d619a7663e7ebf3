"""The MkDocs plugin ``attention-lesson``: the one module that adapts the lesson's machinery to MkDocs, every
language built in one process (ARCHITECTURE.md, "One process for every language").

Its options are in mkdocs.yml, with every environment variable the build reads.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import html
import logging
import os
import posixpath
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import pass_context
from markupsafe import escape
from mkdocs.commands.build import build
from mkdocs.config import config_options, load_config
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import CountHandler

from attention_lesson.site import boundary, extension, prepare, publish, render, strings, translations
from attention_lesson.site.lesson import SOURCE_LANG, Project, Site
from attention_lesson.site.run import Limits
from attention_lesson.site.store import Store, write_atomically
from attention_lesson.site.watch import observer

log = logging.getLogger("mkdocs.plugins.attention_lesson")
ASSETS = "assets/"  # the theme's and the lesson's: under the site's root only, for every language
STORE = ".lesson-store"  # the results store, unless LESSON_STORE names another folder


class LessonConfig(Config):
    lang = config_options.Type(str, default="")
    no_cache = config_options.Type((bool, int), default=False)  # LESSON_NO_CACHE: 1 or 0, true or false
    store = config_options.Type(str, default="")
    cache_dir = config_options.Type(str, default=".cache")
    site_url = config_options.Type(str, default="")
    repo_url = config_options.Type(str, default="")
    timeout = config_options.Type((int, float), default=120)
    max_output = config_options.Type(int, default=1_000_000)


class FenceError(PluginError, extension.FenceError):
    """A page could not render: MkDocs says a PluginError in one line."""


@contextlib.contextmanager
def _stops() -> Any:
    """The build stopped by what :mod:`prepare` found, in MkDocs' words: one line a problem."""
    try:
        yield
    except prepare.Stop as stop:
        raise PluginError(str(stop)) from None


class LessonPlugin(BasePlugin[LessonConfig]):
    def __init__(self) -> None:
        self.command = "build"
        self.site: Site | None = None
        self.parent: Site | None = None  # given by the build that started this language's build
        self.lang = SOURCE_LANG
        self.alone = False  # the Japanese pages a language built alone is compared with: built as it is
        self.root_url = ""  # the address of the site's root this build was given, if any
        self.japanese: tuple[str, dict] = ("", {})  # under serve, a language alone: the Japanese outlines, by mark
        self.published: Path | None = None  # the site folder `mkdocs build` replaces when every language is built
        self.building: Path | None = None  # the folder it builds into meanwhile
        self.fallbacks: set[str] = set()
        self.warnings = CountHandler(level=logging.WARNING)  # a strict build swaps its site in only with none
        self.fingerprints: dict[str, str] = {}  # under `mkdocs serve`: what each language was last built from
        self.loaded = render.machinery(Path(__file__).parent)  # the site's modules as this process imported them
        self.project: Project | None = None
        self.lesson: extension.Lesson | None = None  # the Markdown extension rendering this language's pages

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command

    def on_shutdown(self) -> None:
        """The command's end (in MkDocs' ``finally``). A build stopped by Ctrl-C leaves no half-built folder and
        exits 130, as a command stopped by Ctrl-C does (Click would print "Aborted!" and exit 1)."""
        if self.building is not None:
            shutil.rmtree(self.building, ignore_errors=True)
            self.building = self.published = None
        if self.command == "build" and isinstance(sys.exc_info()[1], KeyboardInterrupt):
            raise SystemExit(130)

    @event_priority(50)  # before the other plugins read the configuration: search's language is set here
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if config.strict and logging.getLogger("mkdocs").level > logging.WARNING:
            logging.getLogger("mkdocs").setLevel(logging.WARNING)  # -q must not hide what fails a strict build
        for handler in logging.getLogger("mkdocs").handlers:  # MkDocs' lines quote a page's links and names
            if strings.printable_record not in handler.filters:
                handler.addFilter(strings.printable_record)
        now = render.machinery(Path(__file__).parent) if self.command == "serve" else self.loaded
        changed = [path for path, stamp in now.items() if self.loaded.get(path) != stamp]
        if changed:  # imported modules cannot be swapped under a running server
            raise PluginError(f"{changed[0]} changed: stop mkdocs serve (Ctrl-C) and start it again to use it")
        root = Path(config.config_file_path).resolve().parent  # serve gives rebuilds a whole path
        if self.project is None or self.project.root != root:  # kept by serve: it remembers what it checked
            self.project = Project(root)
        with _stops():
            self.site = self.parent or prepare.check(self.project)
        self.lang = self.config.lang or SOURCE_LANG
        if self.lang not in self.site.languages:
            raise PluginError(f"LESSON_LANG={self.lang!r}: no such language folder; the languages are "
                              f"{', '.join(self.site.languages)}")
        self._configure(config)
        if self.parent is None and self.command == "build":
            self._build_beside(config)
        return config

    def _configure(self, config: MkDocsConfig) -> None:
        """This language's build: its folder, its words in the theme, the switcher, search and snippets."""
        project, lang, words = self.site.project, self.lang, self.site.words[self.lang]
        config.docs_dir = str(project.docs / lang)
        # escaped once, as Markup: Material prints them raw in some places and with `| e` (a no-op on Markup) in others
        config.site_name = escape(words.names.get("site_name") or config.site_name)
        config.site_description = escape(words.names.get("site_description") or config.site_description or "")
        config.theme["language"] = lang
        # the option's address, else the one MkDocs was given (serve's own, or the first build's for a language's)
        site_url = (self.config.site_url or config.site_url or "").strip().rstrip("/")
        prefix = "" if lang == SOURCE_LANG or self.parent is None else f"{lang}/"
        self.root_url = f"{site_url}/" if site_url else ""
        if site_url:
            config.site_url = f"{site_url}/{prefix}"
        repo = self.config.repo_url.strip().rstrip("/")
        if repo.startswith("https://"):
            config.repo_url = repo
            config.repo_name = urlsplit(repo).path.strip("/")
            config.edit_uri = f"edit/main/docs/{lang}/"
        root_path = (urlsplit(site_url).path.rstrip("/") + "/") if site_url else "/"
        alone = self.alone or (self.config.lang and self.parent is None)  # one language at the root: no switcher
        alternates = [{"name": self.site.words[code].names.get("name", code), "lang": code,
                       "link": ("" if lang == SOURCE_LANG else "../") + ("" if code == SOURCE_LANG else f"{code}/"),
                       "root": root_path + ("" if code == SOURCE_LANG else f"{code}/")}
                      for code in self.site.languages if not alone]
        ui = dict(words.ui)
        config.extra.update(alternate=alternates, lesson_lang=lang, ui=ui, lesson_root=root_path + prefix)
        for option in config.theme["palette"] or []:
            toggle = option.get("toggle") or {}
            key = {"default": "palette_to_dark", "slate": "palette_to_light"}.get(option.get("scheme"))
            if toggle and key and key in ui:
                toggle["name"] = html.escape(ui[key])
        logging.getLogger("jieba").setLevel(logging.WARNING)  # Material's Chinese word splitter logs its start
        if (search := config.plugins.get("search") or config.plugins.get("material/search")) is not None:
            search.config.lang = words.search.get("lang") or translations.search_languages(lang)
            search.config.pipeline = words.search.get("pipeline")
            search.config.separator = words.search.get("separator")
            listed = sorted({w for code in self.site.languages for w in self.site.words[code].search.get("words", [])})
            if listed:  # every language's, in every build (jieba's words belong to the process), written by the first
                if self.parent is None:
                    write_atomically(self._cache / "search-words.txt", "".join(f"{word}\n" for word in listed))
                search.config.jieba_dict_user = str(self._cache / "search-words.txt")
        if (jupyter := config.plugins.get("mkdocs-jupyter")) is not None:
            jupyter.config["cache_dir"] = str(self._cache / "mkdocs-jupyter" / lang)
        for name, settings in extension.settings(project.root, ui).items():
            config.mdx_configs.setdefault(name, {}).update(settings)
        self.lesson = extension.Lesson(self.site, lang, FenceError)
        config.markdown_extensions.append(self.lesson)

    @property
    def _cache(self) -> Path:
        return self.site.project.root / self.config.cache_dir

    def _build_beside(self, config: MkDocsConfig) -> None:
        """`mkdocs build` writes beside the site and swaps the new one in when every language is built."""
        self.published = Path(config.site_dir)
        try:
            self.building = publish.beside(self.published)
        except OSError as error:
            raise PluginError(f"{self.published.parent}: cannot write the site there ({error.strerror}): make the "
                              "folder writable, or free disk space") from None
        config.site_dir = str(self.building)

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        site, lang = self.site, self.lang
        if self.parent is None:  # the store is kept out of .cache/, which other tools' clean commands delete whole
            store = None if self.config.no_cache else Store(Path(self.config.store or site.project.root / STORE))
            with _stops():
                log.info(prepare.run(site, store, Limits(float(self.config.timeout), self.config.max_output),
                                     self._cache / "notebooks"))
            if lang != SOURCE_LANG:  # one language alone: its pages are checked against the Japanese ones
                self._japanese_outlines(config)
        if lang != SOURCE_LANG:  # every file MkDocs would publish from the folder is a translated page
            pages, folder = set(site.project.pages(SOURCE_LANG)), site.project.docs / lang
            with _stops():
                prepare.stop([f"docs/{lang}/{f.src_uri}: not a translation of a page of docs/{SOURCE_LANG}/: remove"
                              " it" for f in files if f.inclusion.is_included() and f.src_uri not in pages
                              and f.abs_src_path and Path(f.abs_src_path).is_relative_to(folder)])
        self.fallbacks = prepare.fallbacks(site, lang)
        with _stops():
            added = prepare.added(site, lang, self._cache / "notebooks")
        if self.parent is not None:  # the site's assets once, at its root: this language links them (on_env)
            theme = [Path(folder) for folder in config.theme.dirs]
            for f in [f for f in files if f.src_uri.startswith(ASSETS) and f.abs_src_path
                      and any(Path(f.abs_src_path).is_relative_to(folder) for folder in theme)]:
                files.remove(f)
        for uri, content in added.items():
            for old in {uri, uri.replace(".ipynb", ".py")} & {f.src_uri for f in files}:
                files.remove(files.get_file_from_path(old))
            files.append(File.generated(config, uri, content=content) if isinstance(content, str) else  # a file:
                         File(uri, str(content.parents[uri.count("/")]), config.site_dir, config.use_directory_urls))
        return files

    def _japanese_outlines(self, config: MkDocsConfig) -> None:
        """The Japanese pages' outlines, for a language built alone: built into a folder that goes; under `mkdocs
        serve`, taken from the last build while what they are made of is unchanged (a translator's edit builds
        the language alone again, not the Japanese pages too)."""
        site = self.site
        mark = render.fingerprint(site.project, SOURCE_LANG, site.runs, dict(self.config)) \
            if self.command == "serve" else ""
        if mark and self.japanese[0] == mark:
            site.outlines.update(self.japanese[1])
            return
        with tempfile.TemporaryDirectory(prefix="lesson-ja-") as folder:
            self._language(config, SOURCE_LANG, Path(folder))
        self.japanese = (mark, dict(site.outlines))

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        src = page.file.src_uri
        lesson = self.lesson
        lesson.open("" if src.endswith(".ipynb") or src == translations.STATUS_PAGE else src, page.url,
                    SOURCE_LANG if src in self.fallbacks else self.lang)
        if src in self.fallbacks:
            ui = self.site.words[self.lang].ui
            markdown = render.with_banner(markdown, page.url, ui, linked=not self.config.lang)
            page.edit_url = None  # there is no file of this language to edit yet
        elif self.lang != SOURCE_LANG and page.meta and lesson.page:  # as MkDocs read it: with --- or without
            self.site.refused.append(f"{lesson.path}:1: front matter ({', '.join(map(str, page.meta))}:) is not "
                                     "allowed in a translation: start the page with its # title")
        elif self.lang != SOURCE_LANG and src.endswith(".md") and src != translations.STATUS_PAGE:  # marked if stale
            stale = translations.outdated_units(self.site.project, self.lang, src)
            markdown = render.with_marks(markdown, [pair.ours.line for pair in stale],
                                         self.site.words[self.lang].ui.get("outdated_paragraph", ""))
        return markdown

    def on_page_content(self, html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        if page.file.src_uri in self.fallbacks:  # Japanese text keeps its language and direction on any page
            html_text = f'<div lang="{SOURCE_LANG}" dir="ltr">\n{html_text}\n</div>'
        if page.file.src_uri.endswith(".ipynb"):  # without JupyterLab's CSS (notebooks.css has what it needs)
            html_text = render.notebook_page(html_text, self.site.words[self.lang].ui)
        return html_text

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """Every page as written, its templates' indentation dropped outside <pre>, <textarea>, <script> and <style>
        (5 KB less to send; whitespace only, where a minifier library would also rewrite Material's markup): a
        Japanese one is kept, a translated one checked against it (:mod:`boundary`)."""
        output, src = re.sub(r"(<(pre|textarea|script|style)\b.*?</\2>)|[ \t]*\n[ \t\r\n]*", lambda m: m[1] or "\n",
                             output, flags=re.S), page.file.src_uri
        if self.lang == SOURCE_LANG:  # remembered by its text: a serve rebuild parses only the pages an edit changed
            ours = self.site.project.remember([], lambda: boundary.outline(output), "outline", output)
            self.site.outlines[src] = ours
            return boundary.with_policy(output, ours.scripts, self.command == "serve")
        written = src.replace(".ipynb", ".py")  # the file the page was written from: a fallback's is Japanese
        path = f"docs/{SOURCE_LANG if written in self.fallbacks else self.lang}/{written}"
        ours = self.site.outlines.get(src)  # remembered by the Japanese page's text, as this check by both texts
        refused = self.site.project.remember([], lambda: boundary.refusals(
            self.site.outlines, src, output, self.site.project.root / path, path, self.root_url),
            "refusals", src, path, output, str(id(ours)), self.root_url)
        self.site.refused += refused
        return boundary.with_policy(output if ours and not refused else boundary.REFUSED, ours.scripts if ours else [],
                                    self.command == "serve")

    def on_post_template(self, output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
        """The 404 page carries the policy too, for the scripts its template runs (its texts are escaped)."""
        if not template_name.endswith(".html"):
            return output_content
        return boundary.with_policy(output_content, boundary.outline(output_content).scripts, self.command == "serve")

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        """Under `mkdocs serve`, other languages' pages are hidden from MkDocs' clean-up (see _language)."""
        if self.parent is None and self.published is not None:
            self.warnings.counts.clear()
            logging.getLogger("mkdocs").addHandler(self.warnings)
        if self.parent is None and self.command == "serve" and not self.config.lang:
            for code in self.site.languages[1:]:
                built, kept = Path(config.site_dir) / code, Path(config.site_dir) / f".{code}"
                if built.is_dir():
                    shutil.rmtree(kept, ignore_errors=True)
                    os.replace(built, kept)

    def on_env(self, env: Any, *, config: MkDocsConfig, files: Files) -> Any:
        """A language beside the Japanese site takes the assets from the site's root, one folder up, so that a
        reader switching language downloads none again (MkDocs' url filters, given ``../assets/…``)."""
        if self.parent is not None:
            for name in ("url", "script_tag"):
                env.filters[name] = pass_context(functools.partial(_assets_up, env.filters[name]))
        return env

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.parent is None and not self.config.lang:
            sitemaps = {SOURCE_LANG: Path(config.site_dir) / "sitemap.xml"}
            for code in self.site.languages[1:]:
                self._language(config, code)
                sitemaps[code] = Path(config.site_dir) / code / "sitemap.xml"
            publish.merge_sitemaps(self.config.site_url, sitemaps)
        if self.parent is None:
            with _stops():
                prepare.stop(self.site.refused)
        if self.published is not None:
            logging.getLogger("mkdocs").removeHandler(self.warnings)
            if not (config.strict and self.warnings.counts):  # else MkDocs stops now, and on_build_error cleans up
                stopped = publish.swap(Path(config.site_dir), self.published)
                config.site_dir, self.published, self.building = str(self.published), None, None
                if stopped:
                    raise KeyboardInterrupt

    def _language(self, config: MkDocsConfig, code: str, folder: Path | None = None) -> None:
        """Build one more language into ``site/<code>/`` from the same runs (serve: kept if nothing of it changed).
        MkDocs keeps one instance of a plugin with ``on_startup`` per process: its state is put back after."""
        kept, mark = Path(config.site_dir) / f".{code}", ""
        if self.command == "serve":
            mark = render.fingerprint(self.site.project, code, self.site.runs, dict(self.config))
            if self.fingerprints.pop(code, None) == mark and kept.is_dir():
                os.replace(kept, Path(config.site_dir) / code)
                self.fingerprints[code] = mark
                return
            shutil.rmtree(kept, ignore_errors=True)
        mine = dict(self.__dict__)
        try:
            child = load_config(config.config_file_path, site_dir=str(folder or Path(config.site_dir) / code),
                                strict=config.strict, site_url=self.root_url or None)
            plugin = child.plugins["attention-lesson"]
            plugin.config.update({**mine["config"], "lang": code})
            plugin.parent, plugin.command, plugin.published, plugin.building = self.site, self.command, None, None
            plugin.alone = folder is not None  # the Japanese pages for a language alone: as that language's are
            try:
                build(child, dirty=False)
            except Abort:  # a strict build's warnings: if pages were refused, those are said, every language's
                if not self.site.refused:
                    raise
        finally:
            self.__dict__.clear()
            self.__dict__.update(mine)
        if mark:
            self.fingerprints[code] = mark

    def on_build_error(self, *, error: Exception) -> None:
        """Every failed build ends here: the half-built folder goes, a full or unwritable disk is one line."""
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        site = self.published
        if self.published is not None and self.building is not None:
            shutil.rmtree(self.building, ignore_errors=True)
        self.published = self.building = None
        self.fingerprints.clear()
        if isinstance(error, OSError) and self.parent is None:  # a language's build passes it on, to name the site
            where = error.filename2 or error.filename or (  # a copy's destination, else the file
                f"{site.parent} (the site's disk)" if site else "the site's or the cache's disk")
            raise PluginError(strings.printable(f"{where}: {error.strerror or error}: nothing was published (free "
                                                "disk space, or make the folder writable)")) from None

    def on_serve(self, server: Any, *, config: MkDocsConfig, builder: Any) -> Any:
        """Watch all of docs/ instead of docs/ja/ (not both: an edit would build twice); on Linux, `watch.Edits`."""
        docs, moved = str(self.site.project.docs), []
        server.unwatch(config.docs_dir)
        if sys.platform.startswith("linux"):
            for path in [config.config_file_path, *config.theme.dirs]:  # the theme's with --watch-theme
                with contextlib.suppress(KeyError):  # not watched
                    server.unwatch(path)
                    moved.append(path)
            edits = observer([docs, *moved, *config.watch], log)
            if edits is not None:
                server.observer = edits  # public: the server starts it, and watch() schedules on it
        for path in [*moved, docs]:
            server.watch(path)
        # a failed rebuild: every address answers with what failed (MkDocs would hold the browser's requests)
        server.builder = functools.partial(self._failures_shown, server.builder, Path(config.site_dir))
        return server

    def _failures_shown(self, builder: Callable[[], None], site: Path) -> None:
        """Under `mkdocs serve`, a build that fails writes, at every page's address of every language and as the
        404 page, a page listing its failures (escaped, one line each) instead of holding every request until a
        build succeeds; MkDocs' reload script on it brings the site back with the next good build."""
        said: list[str] = []  # what the build logged as errors: MkDocs raises a bare Abort after logging them
        heard = logging.Handler(logging.ERROR)
        heard.emit = lambda record: said.extend(record.getMessage().splitlines())
        logging.getLogger("mkdocs").addHandler(heard)
        try:
            builder()
        except Exception as error:  # noqa: BLE001 - whatever stopped the build is what the page says
            lines = [line for line in said if line.strip()] or str(error).splitlines() or [type(error).__name__]
            page = publish.failure_page([strings.printable(line) for line in lines])
            addresses = {"404.html", *(p.relative_to(site).as_posix() for p in site.rglob("index.html"))}
            addresses |= {f"{prefix}{publish.address(name)}index.html" for prefix in
                          ["", *(f"{code}/" for code in self.site.languages[1:])] if self.site
                          for name in [*self.site.project.pages(SOURCE_LANG), translations.STATUS_PAGE]}
            for address in addresses:
                (site / address).parent.mkdir(parents=True, exist_ok=True)
                (site / address).write_text(page, encoding="utf-8")
            log.error("The build failed: the browser shows why until the next build succeeds")
        finally:
            logging.getLogger("mkdocs").removeHandler(heard)


def _assets_up(url: Callable[[Any, Any], str], context: Any, value: Any) -> str:
    if not str(value).startswith(ASSETS):
        return url(context, value)
    moved = f"../{value}"
    if not isinstance(value, str):  # an extra_javascript entry: its type, defer and async stay
        moved = copy.copy(value)
        moved.path = f"../{value.path}"
    shown = url(context, moved)
    return posixpath.normpath(shown) if shown.startswith("/") else shown  # the 404 page's /en/../assets/
