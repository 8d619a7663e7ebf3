"""`mkdocs serve` of every language: the source language rebuilt in the server's process, each other language
previewed by its worker (:mod:`attention_lesson.site.workers`) and linked into the served site.

An edit under ``docs/<code>/`` rebuilds that language alone; the source language's build runs again only when
what it is built from changed. A language whose strings.yml is broken shows its mistakes at ``/<code>/`` while
the others keep serving.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Callable
from html import escape
from pathlib import Path

import watchdog.events
import watchdog.observers
from mkdocs.config.defaults import MkDocsConfig

from attention_lesson.site import i18n, project
from attention_lesson.site.workers import LogLines, Worker

log = logging.getLogger("mkdocs.plugins.attention_lesson")

PREVIEWS = ".previews"
"""The folder of the other languages' previews, inside the served site: MkDocs empties that folder for every build
but leaves its hidden entries (``utils.clean_directory``), and removes it, this folder with it, when it stops."""


def _inputs(lang: str) -> str:
    """A digest of what a language's pages come from: its folder, the Japanese pages it lacks (shown in their
    place), Japanese strings, the code and mkdocs.yml."""
    root = project.root()
    own, source = root / "docs" / lang, root / "docs" / project.DEFAULT_LANG
    paths = [root / project.CONFIG_FILE, source / i18n.STRINGS_FILE]
    paths += sorted(p for p in source.rglob("*") if p.is_file() and not (own / p.relative_to(source)).exists())
    for folder in (own, root / "snippets", root / "src" / "attention_lesson"):
        paths += sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return project.digest(*(part for p in paths for part in (p.relative_to(root).as_posix(), p.read_bytes())))


def source_inputs() -> str:
    """What the source language's build depends on: its own inputs and every language's strings.yml (the
    switcher names the sound ones)."""
    strings = sorted((project.root() / "docs").glob(f"*/{i18n.STRINGS_FILE}"))
    return project.digest(_inputs(project.DEFAULT_LANG),
                          *(part for p in strings for part in (p.parent.name, p.read_bytes())))


def error_page(folder: Path, lang: str, problems: list[str]) -> None:
    """What the preview of a broken language shows: its mistakes, one per line, instead of its pages."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "index.html").write_text(_problems_page(f"docs/{lang}/ is not built", problems), encoding="utf-8")


def guarded(builder: Callable[[], None], site_dir: Path) -> Callable[[], None]:
    """The server's rebuild, made to answer when it fails: MkDocs' server waits for a rebuild that succeeds
    before it answers again ("the server will appear stuck"), so a failed rebuild instead puts a page naming
    the mistake in the place of every page (the server shows its 404.html for any missing page), and returns;
    the browsers reload onto it, and the next save that fixes the mistake brings the pages back."""

    def rebuild() -> None:
        errors = LogLines(logging.ERROR)
        mkdocs_log = logging.getLogger("mkdocs")
        mkdocs_log.addHandler(errors)
        try:
            builder()
        except Exception as error:  # noqa: BLE001 - any failure: show it instead of hanging every request
            problems = [line for line in errors.lines if not line.startswith("Error reading page")]
            problems = problems or [f"{type(error).__name__}: {error}"]
            page = _problems_page("The site is not built", problems)
            # A build that failed before MkDocs emptied the folder (in on_config: a listing that does not parse)
            # left the last pages there, which would be served as if nothing were wrong: none is kept.
            shutil.rmtree(site_dir, ignore_errors=True)
            site_dir.mkdir(parents=True, exist_ok=True)
            for name in ("index.html", "404.html"):
                (site_dir / name).write_text(page, encoding="utf-8")
            log.error("The pages show what is wrong until it is fixed: %s", problems[-1])
        finally:
            mkdocs_log.removeHandler(errors)

    return rebuild


def _problems_page(title: str, problems: list[str]) -> str:
    items = "".join(f"<li><code>{escape(p)}</code></li>" for p in problems)
    return (f'<!doctype html><html><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<h1>{escape(title)}</h1><p>Fix this and save; the page reloads when the site is built again:</p>"
            f"<ul>{items}</ul></html>")


class EditsObserver(watchdog.observers.Observer):
    """watchdog's native observer, passing on what an edit does to a file (written, created, deleted, moved)
    and not its being opened or read: MkDocs rebuilds on every event it is handed, and every build opens the
    sources, so opens would make each build start the next."""

    EDITS = [watchdog.events.FileModifiedEvent, watchdog.events.FileClosedEvent, watchdog.events.FileCreatedEvent,
             watchdog.events.FileDeletedEvent, watchdog.events.FileMovedEvent]

    def schedule(self, event_handler, path, *, recursive=False, event_filter=None, **kwargs):
        return super().schedule(event_handler, path, recursive=recursive, event_filter=event_filter or self.EDITS,
                                **kwargs)


SETTLE = 0.02
"""How long the server waits after an edit's last event before it builds (s), with inotify. MkDocs waits 0.1 s,
which suits its scan every 0.5 s; inotify reports a save as it happens, and the events of one save (written,
closed; an editor's temporary file renamed over the page; vim's backup moved and deleted) all arrive within
1 ms of each other (measured), so 0.02 s still sees a save whole, 80 ms sooner."""


def watch_natively(server, config: MkDocsConfig) -> None:
    """On Linux, learn of an edit from inotify (watchdog's native observer) instead of MkDocs' default, a scan
    of every watched folder each 0.5 s: that scan was a quarter of a second of the average edit's wait; then
    wait SETTLE for the edit's other events. Other systems keep MkDocs' own observer and wait. The folders
    MkDocs watched are moved to the new observer."""
    if not sys.platform.startswith("linux"):
        return
    server.build_delay = SETTLE
    moved = []
    for path in [config.docs_dir, config.config_file_path, *config.theme.dirs]:
        try:
            server.unwatch(path)
        except KeyError:  # not watched (the theme is watched only with --watch-theme)
            continue
        moved.append(path)
    server.observer = EditsObserver()
    for path in moved:
        server.watch(path)


class Previews:
    """Every other language's preview under one server: its worker, its last inputs, its folder."""

    def __init__(self, config_file: str, logs: Path, served: Path) -> None:
        """Previews are built in the served site's PREVIEWS folder, on its file system, so that serving one is a
        hard link per file; each worker's log goes to `logs`."""
        self.config_file, self.logs = config_file, logs
        self.folder = served / PREVIEWS
        self.folder.mkdir(parents=True, exist_ok=True)
        self.workers: dict[str, Worker] = {}
        self.built: dict[str, str] = {}  # language → the inputs of its last preview
        self.linking = True  # hard links work between the previews and the served site (see _serve_preview)
        self.watched: set[str] = set()
        self.serving = False
        self.source = ""
        self.store = ""  # the store the previews read: the server's own build's (set by the plugin)

    def start(self, server, config: MkDocsConfig, rebuild_all: Callable[[], None]) -> Callable[[], None]:
        """Watch every language folder; return the server's new builder, which rebuilds the source language
        only when what it is built from changed, and otherwise refreshes the previews alone."""
        for code in i18n.languages():
            if code != project.DEFAULT_LANG:
                server.watch(str(project.root() / "docs" / code))
                self.watched.add(code)
        self.serving = True
        self.source = source_inputs()

        def rebuild() -> None:
            with project.building(Path(config.config_file_path).parent):
                inputs = source_inputs()
                if inputs == self.source and (Path(config.site_dir) / "index.html").is_file():
                    self.refresh(config)
                    return
            rebuild_all()
            self.source = inputs

        return rebuild

    def start_workers(self, languages: list[str]) -> None:
        """Start a worker for each of `languages` but the source one, before their first build: each imports
        MkDocs, the theme and the plugins while the server's first build runs the code, as `mkdocs build`'s
        workers do, instead of after it."""
        for lang in languages:
            if lang != project.DEFAULT_LANG and lang not in self.workers:
                self.workers[lang] = Worker(self.config_file, lang, self.logs / f"{lang}.log")

    def refresh(self, config: MkDocsConfig) -> None:
        """Rebuild the languages whose inputs changed (side by side), then put each new preview, and each the
        served site lacks (MkDocs empties it for every build of the source language), into the served site, so
        the switcher works under `mkdocs serve` too."""
        usable = set(i18n.usable_languages())
        started, changed = [], set()
        for lang in (code for code in i18n.languages() if code != project.DEFAULT_LANG):
            if lang not in self.watched and self.serving:
                self.watched.add(lang)  # the server watches the folders there were when it started
                log.info("New language folder docs/%s/: previewed at /%s/ from now on; restart mkdocs serve for "
                         "its own edits to rebuild it", lang, lang)
            target, digest = self.folder / lang, _inputs(lang)
            if lang not in usable:
                error_page(target, lang, i18n.validate(lang))
                self.built.pop(lang, None)
                changed.add(lang)
            elif self.built.get(lang) != digest or not (target / "index.html").is_file():
                worker = self.workers.get(lang)
                if worker is None or not worker.alive():
                    worker = self.workers[lang] = Worker(self.config_file, lang, self.logs / f"{lang}.log")
                worker.send(site_dir=str(target), store=self.store, strict=None, preview=True)
                started.append((lang, digest, worker))
        for lang, digest, worker in started:  # every worker is building by now: they run side by side
            result = worker.answer()
            changed.add(lang)
            if result["ok"]:
                self.built[lang] = digest
                log.info("Preview of '%s' rebuilt in %.2f s", lang, result["seconds"])
            else:
                error_page(self.folder / lang, lang, result["problems"])
                self.built.pop(lang, None)
                print(f"ERROR    -  [{lang}] " + "; ".join(result["problems"]), file=sys.stderr)
        for lang in (code for code in i18n.languages() if code != project.DEFAULT_LANG):
            preview, served = self.folder / lang, Path(config.site_dir) / lang
            if (preview / "index.html").is_file() and (lang in changed or not (served / "index.html").is_file()):
                self._serve_preview(preview, served)

    def _serve_preview(self, preview: Path, served: Path) -> None:
        """Put a copy of `preview` at `served`: hard links (a language's 67 files in 0.007 s, against 0.04 s
        copied), which is safe because every build empties its folder before it writes, so no file of a
        preview is ever written again in place. Copies where the file system has no hard links. Not a symlink,
        which Windows allows only to administrators."""
        shutil.rmtree(served, ignore_errors=True)
        if self.linking:
            try:
                shutil.copytree(preview, served, copy_function=os.link)
                return
            except (OSError, shutil.Error):
                self.linking = False
                shutil.rmtree(served, ignore_errors=True)
        shutil.copytree(preview, served)

    def stop(self) -> None:
        for worker in self.workers.values():
            worker.stop()
        self.workers.clear()
        shutil.rmtree(self.folder, ignore_errors=True)
