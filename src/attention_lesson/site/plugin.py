"""The site's MkDocs plugin, ``attention-lesson``: one base mkdocs.yml, one build per language folder, every
listing run once per build for all of them.

Configured in mkdocs.yml, the one place the build reads its environment variables::

    plugins:
      - attention-lesson:
          lang: !ENV [LESSON_LANG, ""]           # build or serve this language alone
          no_cache: !ENV [LESSON_NO_CACHE, false]  # run every block again, in a store private to this build
          store: !ENV [LESSON_STORE, ""]         # a results store to share (the tests' builds share one)
          site_url: !ENV [LESSON_SITE_URL, ""]   # where the site is published (canonical links, sitemap)
          repo_url: !ENV [LESSON_REPO_URL, ""]   # where its sources are (edit links)

The project is the folder of the mkdocs.yml being built (:mod:`attention_lesson.site.project`). `mkdocs build`
builds the source language (Japanese) at the site root in this process: its pages run every block through the
runner (:mod:`attention_lesson.site.runner`), which stores each result; then every other ``docs/<code>/`` is
built into ``site/<code>/`` by a worker process of its own, in parallel, from the stored results
(:mod:`attention_lesson.site.workers`). `mkdocs serve` previews every language (:mod:`attention_lesson.site.serve`).
Everything a build keeps between events lives on the plugin instance, which MkDocs keeps across `mkdocs
serve` rebuilds because it defines ``on_startup``.

A plugin rather than mkdocs-static-i18n: that plugin publishes mkdocs-jupyter notebooks as raw source, merges
all languages into one search index, and is no longer maintained. Its configuration is the model for this one.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from filelock import FileLock
from mkdocs.config import config_options
from mkdocs.config.base import Config, ValidationError
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from attention_lesson.site import (
    checks,
    claims,
    excerpts,
    fallback,
    i18n,
    languages,
    mathml,
    notebooks,
    project,
    segmenter,
    shutdown,
    sitemap,
    translations,
)
from attention_lesson.site.runner import Fence, Runner
from attention_lesson.site.serve import Previews, guarded, watch_natively
from attention_lesson.site.store import Store, StoreError
from attention_lesson.site.templates import theme_environments
from attention_lesson.site.workers import Worker

log = logging.getLogger("mkdocs.plugins.attention_lesson")

PRIVATE = "lesson-run-"
"""The name of a store private to one build (no cache, or an unwritable shared store): removed after it."""
BUILDING = "-building-"
"""``.site-building-…``: the folder a build writes into, beside the site, until it takes the site's place."""


class Flag(config_options.BaseConfigOption[bool]):
    """A yes/no option that an environment variable can set: true, false, 1, 0, yes, no, on, off."""

    WORDS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False,
             "off": False, "": False}

    def __init__(self, default: bool = False) -> None:
        super().__init__()
        self.default = default

    def run_validation(self, value: object) -> bool:
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower() if value is not None else ""
        if word not in self.WORDS:
            raise ValidationError(f"expected true or false (1 or 0), got {value!r}")
        return self.WORDS[word]


class LessonConfig(Config):
    lang = config_options.Type(str, default="")
    """Build (or serve) this language alone; empty: every language, the source language at the site root."""
    no_cache = Flag(default=False)
    """Ignore stored results: every block runs again, in a store private to this build."""
    store = config_options.Type(str, default="")
    """A results store folder to use instead of ``<cache_dir>/runs`` (builds that share one run nothing twice)."""
    cache_dir = config_options.Type(str, default=".cache")
    """Results, written notebooks, compiled templates and preview logs, relative to the project's folder."""
    site_url = config_options.Type(str, default="")
    """Where the site is published: canonical links, the sitemap, hreflang between languages."""
    repo_url = config_options.Type(str, default="")
    """Where its sources are: "edit this page" and "translate this page" links."""


class LessonPlugin(BasePlugin[LessonConfig]):
    """See the module docstring."""

    def __init__(self) -> None:
        self.command = "build"
        self.role = "main"  # "language": one language for a parent build; "preview": one under `mkdocs serve`
        self.lang = project.DEFAULT_LANG
        self.runner: Runner | None = None
        self.workers: dict[str, Worker] = {}
        self.previews: Previews | None = None
        self.private: Store | None = None
        self._project: contextvars.Token | None = None
        self._started = 0.0
        self._config: MkDocsConfig | None = None
        self._site: Path | None = None  # where `mkdocs build` publishes, once every language is built
        self._notebook_cache: FileLock | None = None  # held while mkdocs-jupyter evicts (see _on_post_build_first)
        self._interrupted = False
        self._sigint: Any = None  # the SIGINT handler this build replaced (see _catch_interrupts)

    # -- told by a worker -------------------------------------------------------------------------------------

    def assign(self, *, lang: str, store: str, preview: bool) -> None:
        """Build `lang` alone from the results in `store`, for a parent build (or a serve preview)."""
        self.config["lang"], self.config["store"], self.config["no_cache"] = lang, store, False
        self.role = "preview" if preview else "language"

    # -- events ----------------------------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command
        shutdown.skip_final_collections()  # `mkdocs build` ends 1.2-1.4 s sooner (README, Budgets)
        if command == "build":
            self._catch_interrupts()

    def _catch_interrupts(self) -> None:
        """A Ctrl-C stops `mkdocs build` even where Python swallows the KeyboardInterrupt it raises: in a weakref
        callback or a ``__del__``, Python reports it as "Exception ignored" and carries on, and the build would
        publish and exit 0. The handler raises it as Python's does and also notes it; the build's next event
        raises it again (:meth:`_stop_if_interrupted`). Only in the main thread, where a handler can be set, and
        only over Python's own handler."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return

        def interrupted(signum: int, frame: Any) -> None:
            self._interrupted = True
            raise KeyboardInterrupt

        self._interrupted = False
        self._sigint = signal.signal(signal.SIGINT, interrupted)

    def _stop_if_interrupted(self) -> None:
        if self._interrupted:
            raise KeyboardInterrupt

    @property
    def root(self) -> Path:
        return project.root()

    @property
    def cache(self) -> Path:
        return self.root / self.config.cache_dir

    def _builds_every_language(self) -> bool:
        """The README's `mkdocs build`: the source language here, every other one by a worker."""
        return self.role == "main" and not self.config.lang and self.command != "serve"

    def _previews_every_language(self) -> bool:
        return self.role == "main" and not self.config.lang and self.command == "serve"

    @event_priority(100)
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self._started = time.perf_counter()
        self._config = config
        mkdocs_log = logging.getLogger("mkdocs")
        if config.strict and mkdocs_log.level > logging.WARNING:
            # `-q` raises the logger's level past WARNING, so strict mode's counter never sees a warning (a
            # broken link, a missing anchor) and a quiet strict build would pass. Every warning fails a strict
            # build, so it is shown and counted at every log level.
            mkdocs_log.setLevel(logging.WARNING)
        project.leave(self._project)
        self._project = project.enter(Path(config.config_file_path).parent)
        lang = self.config.lang or project.DEFAULT_LANG
        try:
            i18n.check_language(lang)
        except ValueError as error:
            raise PluginError(f"LESSON_LANG (the plugin's lang): {error}") from None
        self._check_snippets()
        problems = [p for code in i18n.languages() for p in i18n.validate(code)]
        try:
            i18n.strings(lang)
        except i18n.StringsError as error:  # this build's own language is broken: nothing to show
            raise PluginError("\n".join(error.problems)) from None
        previewing = self.command == "serve" or self.role == "preview"
        if problems and not previewing:  # a build publishes every language, so every one must be sound
            raise PluginError("\n".join(problems))
        for problem in problems:
            # `mkdocs serve` goes on with the sound languages. Printed, not logged: strict mode counts every
            # logged warning or error and would stop the preview of the languages that are fine.
            print(f"ERROR    -  {problem} (this language is left out of the preview until it is fixed)",
                  file=sys.stderr)
        self.lang = lang
        i18n.set_language(lang)
        languages.configure(config, lang, site_url=self.config.site_url, repo_url=self.config.repo_url,
                            cache=self.cache, nested_site=self.command != "serve")
        self._building_into(config)
        store = self._store()
        theme_environments(config.theme, store.path / "templates")
        if self.runner is None:
            self.runner = Runner(store)
        self.runner.start_build(lang, store, i18n.usable_languages())
        self._register_fences(config)
        if self._builds_every_language():
            # Each starts now, importing MkDocs and the theme while this build runs the code; each builds when
            # on_env says every result is stored.
            self.workers = {code: Worker(config.config_file_path, code, self.cache / "builds" / f"{code}.log")
                            for code in i18n.languages() if code != project.DEFAULT_LANG}
        elif self._previews_every_language():  # serve's first build: the same head start for its previews
            self._previews(config).start_workers(i18n.usable_languages())
        return config

    def _previews(self, config: MkDocsConfig) -> Previews:
        """Serve's previews of the other languages, made once per server."""
        if self.previews is None:
            self.previews = Previews(config.config_file_path, self.cache / "preview", Path(config.site_dir))
        return self.previews

    def _check_snippets(self) -> None:
        """A listing that does not parse stops the build in one line naming its file and line, before the check
        of the translations reads its comments (which an unclosed bracket would stop with a traceback)."""
        for path in sorted((self.root / "snippets").glob("*.py")):
            try:
                compile(path.read_bytes(), str(path), "exec")
            except SyntaxError as error:
                raise PluginError(f"snippets/{path.name}:{error.lineno}: {type(error).__name__}: {error.msg}") from None

    def _building_into(self, config: MkDocsConfig) -> None:
        """`mkdocs build` writes into a new folder beside the site and puts it in the site's place only when
        every language is built: a build that fails, or is interrupted, leaves the last published site whole
        (MkDocs itself empties the site folder first)."""
        self._site = None
        if self.command != "build" or self.role != "main":
            return  # a worker builds into its parent's new folder; serve into its own temporary one
        self._site = Path(config.site_dir)
        self._site.parent.mkdir(parents=True, exist_ok=True)
        config.site_dir = tempfile.mkdtemp(prefix=f".{self._site.name}{BUILDING}", dir=self._site.parent)

    def _publish(self, config: MkDocsConfig) -> None:
        if self._site is None:
            return
        old = self._site.with_name(f".{self._site.name}-old-{time.time_ns()}")
        if self._site.exists():
            os.replace(self._site, old)
        os.replace(config.site_dir, self._site)
        config.site_dir = str(self._site)
        shutil.rmtree(old, ignore_errors=True)
        self._site = None

    def _discard(self, config: MkDocsConfig | None) -> None:
        if self._site is not None and config is not None:
            shutil.rmtree(config.site_dir, ignore_errors=True)
        self._site = None

    def _store(self) -> Store:
        """The shared store (or the one named), else one private to this build: with no cache, or when the
        shared one cannot be written (a read-only checkout, a full disk), which this build then says."""
        if self.config.no_cache and not self.config.store:  # a worker is given its parent's store, private or not
            return self._private(self.cache)
        store = Store(Path(self.config.store) if self.config.store else self.cache / "runs")
        try:
            store.check_writable()
        except StoreError as error:
            private = self._private(Path(tempfile.gettempdir()))
            # Printed, not logged: the pages are right, only slower to build, and strict mode counts every
            # logged warning, so a read-only checkout's `mkdocs build --strict` would run everything, then fail.
            print(f"WARNING -  {error.strerror}; this build runs every block in a private store, {private.path}, "
                  "removed after it", file=sys.stderr)
            return private
        return store

    def _private(self, folder: Path) -> Store:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.private = Store(Path(tempfile.mkdtemp(prefix=PRIVATE, dir=folder)))
            self.private.check_writable()
        except (OSError, StoreError) as error:
            raise PluginError(f"no folder to keep this build's results in ({folder}: {error}); free disk space "
                              "or make the project's folder writable") from None
        return self.private

    def _register_fences(self, config: MkDocsConfig) -> None:
        """The page's fences, as markdown-exec's plugin registers its own: SuperFences asks the last one first."""
        if "pymdownx.superfences" not in config.markdown_extensions:
            raise PluginError("the attention-lesson plugin needs the pymdownx.superfences Markdown extension")
        fence = Fence(self.runner)
        custom = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        custom += [
            {"name": "math", "class": "math", "format": mathml.fence},
            {"name": "python", "class": "python", "validator": fence.validator, "format": fence.formatter},
            # a python fence that is not run (the exercises' excerpts), comments in the page's language; it
            # leaves every exec="on" fence to the runner's
            {"name": "python", "class": "python", "validator": excerpts.validator, "format": excerpts.formatter},
        ]

    @event_priority(50)  # before mkdocs-jupyter's on_files, which makes the executed notebooks pages
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """Fill pages this language lacks with the Japanese page (a banner on it says so); add the status page;
        put the executed notebooks in place of their sources."""
        fallback.add_missing_pages(files, config, self.lang)
        try:
            files.append(fallback.status_file(config, self.lang, self.runner.store))
        except StoreError as error:  # its table is stored: a disk full already
            raise PluginError(f"{fallback.STATUS_PAGE}: {error.strerror}") from None
        return notebooks.prepare(files, config, self.lang, self.runner, self.cache)

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        self._stop_if_interrupted()
        where = checks.source(page)
        self.runner.begin_page(where)
        checks.check_fences(markdown, where)
        checks.check_includes(markdown, where)
        repo = self.config.repo_url.strip().rstrip("/")
        if repo and page.file.src_uri.endswith(".ipynb"):  # the notebook's source: a jupytext .py file
            source = notebooks.sources(self.lang).get(page.file.src_uri.removesuffix(".ipynb") + ".py")
            if source is not None:
                page.edit_url = f"{repo}/edit/main/{source.relative_to(self.root).as_posix()}"
        if fallback.is_fallback(page):
            return fallback.with_banner(markdown, page, self.lang, repo)
        drifted = translations.page_drift(self.lang, page.file.src_uri)
        if drifted:  # a changed fence, include or formula would run other code than the Japanese page's
            raise PluginError(drifted)
        return markdown

    @event_priority(100)  # before the search plugin indexes the page's text
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Fill {{ measured.* }} from this page's own run; render the page again if that run was replaced."""
        self._stop_if_interrupted()
        where = checks.source(page)
        html = claims.fill(html, where, self.runner)
        if page.file.src_uri.endswith(".ipynb"):
            html = self._localize_notebook_page(html)
        if self.runner.take_rerender():
            log.info("%s: a stored result was replaced by a new run; rendering the page again", where)
            self.runner.begin_page(where)
            page.render(config, files)
            html = claims.fill(page.content, where, self.runner)
        return html

    def _localize_notebook_page(self, html: str) -> str:
        """The notebook pages' copy buttons in the page's language: mkdocs-jupyter's template writes them in
        English and has no setting for it, so its two fixed strings are replaced in the rendered page."""
        return (html.replace('aria-label="Copy to Clipboard"', f'aria-label="{i18n.ui("copy_code", self.lang)}"')
                    .replace(">Copied!<", f">{i18n.ui('copied', self.lang)}<"))

    def on_env(self, env: Any, *, config: MkDocsConfig, files: Files) -> Any:
        """Every page of this language is rendered, so every result is stored: let the other languages build."""
        self._stop_if_interrupted()
        # Let go of the last page's lock first: a page has one lock in every language (Runner.begin_page), and
        # the workers would wait on it for ever.
        self.runner.end_page()
        for code, worker in self.workers.items():
            worker.send(site_dir=str(Path(config.site_dir) / code), store=str(self.runner.store.path),
                        strict=bool(config.strict), preview=False)
        return env

    @event_priority(10)  # before mkdocs-jupyter's on_post_build
    def _on_post_build_first(self, *, config: MkDocsConfig) -> None:
        """mkdocs-jupyter's on_post_build deletes every rendered notebook in its cache folder that its build did
        not read: two builds of a language at once both delete a stale one, and the second fails on the file the
        first removed. The folder is locked from here until this plugin's last on_post_build step."""
        folder = languages.jupyter_cache(self.cache, self.lang)
        folder.parent.mkdir(parents=True, exist_ok=True)
        self._notebook_cache = FileLock(folder.parent / f"{folder.name}.lock")
        self._notebook_cache.acquire()

    def _release_notebook_cache(self) -> None:
        if self._notebook_cache is not None:
            self._notebook_cache.release()
            self._notebook_cache = None

    @event_priority(-100)
    def _on_post_build_last(self, *, config: MkDocsConfig) -> None:
        self._release_notebook_cache()
        stats = self.runner.stats
        log.info("Runner (%s): %d blocks run in %.1f s, %d taken from the store %s", self.lang, stats.executed,
                 stats.seconds, stats.reused, self.runner.store.path)
        try:
            self._stop_if_interrupted()
            if self._previews_every_language():
                previews = self._previews(config)
                previews.store = str(self.runner.store.path)
                previews.refresh(config)
            if self.workers:
                self._collect_language_builds(config)
                log.info("All languages built in %.1f s", time.perf_counter() - self._started)
            self._stop_if_interrupted()
            self._publish(config)
        finally:
            self._finish()

    on_post_build = CombinedEvent(_on_post_build_first, _on_post_build_last)

    def _collect_language_builds(self, config: MkDocsConfig) -> None:
        failed = []
        sitemaps = {self.lang: Path(config.site_dir) / "sitemap.xml"}
        workers, self.workers = self.workers, {}
        for code, worker in workers.items():
            result = worker.answer()
            worker.stop()
            if not result["ok"]:
                failed.append(f"{code}: " + "; ".join(result["problems"]))
                continue
            for problem in result["problems"]:
                log.warning("[%s] %s", code, problem)  # counted by strict mode, as this build's own warnings
            sitemaps[code] = Path(config.site_dir) / code / "sitemap.xml"
        if failed:
            raise PluginError("language build failed: " + " | ".join(failed))
        sitemap.merge(config.site_url or "", sitemaps)

    def on_build_error(self, *, error: Exception) -> None:
        for worker in self.workers.values():
            worker.kill()
        self.workers = {}
        self._discard(self._config)
        self._finish()

    def _finish(self) -> None:
        self._release_notebook_cache()
        if self.runner is not None:
            self.runner.end_page()
        if self.private is not None:
            self.private.remove()
            self.private = None
        if self.role == "main" and self.command != "serve":
            if not self.config.store:
                with contextlib.suppress(StoreError, OSError):  # a read-only checkout: nothing to prune there
                    Store(self.cache / "runs").prune()
                    notebooks.prune(self.cache)
                    segmenter.prune(self.cache)
            now = time.time()
            site = Path(self._config.site_dir) if self._config else self.root / "site"
            left = [*self.cache.glob(f"{PRIVATE}*"), *Path(tempfile.gettempdir()).glob(f"{PRIVATE}*"),
                    *site.parent.glob(f".{site.name}{BUILDING}*")]
            for folder in left:
                with contextlib.suppress(OSError):  # an interrupted build's private store or site, a day old
                    if now - folder.stat().st_mtime > 86400:
                        shutil.rmtree(folder, ignore_errors=True)

    def on_serve(self, server: Any, *, config: MkDocsConfig, builder: Any) -> Any:
        """Watch every language folder; an edit there rebuilds that language's preview alone."""
        with project.building(Path(config.config_file_path).parent):
            watch_natively(server, config)
            if self._previews_every_language():
                server.builder = self._previews(config).start(server, config, server.builder)
        server.builder = guarded(server.builder, Path(config.site_dir))
        return server

    @event_priority(-100)  # after the other plugins' (it may raise: see the end)
    def on_shutdown(self) -> None:
        """The end of `mkdocs build` or `mkdocs serve`: nothing of this build stays with the process. A build
        interrupted (Ctrl-C: MkDocs tells no plugin of it but this) leaves neither its unpublished site folder nor
        its private store behind, and lets other builds render the page it was on."""
        if self._site is not None:
            for worker in self.workers.values():
                worker.kill()
            self.workers = {}
            self._discard(self._config)
            if self.runner is not None:
                self.runner.end_page()
            if self.private is not None:
                self.private.remove()
                self.private = None
        if self.previews is not None:
            self.previews.stop()
            self.previews = None
        i18n.set_language(None)
        project.leave(self._project)
        self._project = None
        if self._sigint is not None:
            signal.signal(signal.SIGINT, self._sigint)
            self._sigint = None
        if self._interrupted:  # swallowed after the build's last event: the command still says it was stopped
            self._interrupted = False
            raise KeyboardInterrupt
