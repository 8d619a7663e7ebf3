"""The one runner: every listing, figure block, prose value and notebook cell runs through it, once per build.

Pages use it as the formatter of the ``python`` fence (mkdocs.yml), built on markdown-exec's public API:
:func:`validator` is ``markdown_exec.validator`` plus a check of the options, and :func:`formatter` calls
``markdown_exec.base_format`` with this module's ``run``. The road a number travels:

1. The block's code has its printed Japanese strings replaced by markers (:func:`i18n.neutralize`), so one
   execution serves every language.
2. Its key is a SHA-256 of the Python and torch versions, the session's name, the code of the blocks before
   it in its session, its own neutral code and the modules of this package it imports
   (:func:`project.imports_key`): a figure block is keyed on the figures module, a listing on nothing of the
   site's machinery. A stored result with that key is used as it is; otherwise the code runs in the session's
   namespace, and the result is stored.
3. The page shows the result in its language: markers become the language's strings. A block that reads the
   page's language itself (a figure, whose captions are translated) is run once for each language while its
   session is live, and each language's output is stored.

So a measurement (the cost table, the √d study) runs once per build, whatever the number of languages, and
every language shows the same numbers. The other language builds (separate processes, see
:mod:`attention_lesson.site.workers`) find every result in the store and import neither torch nor matplotlib.
A figure block also stores the names it read: a figure whose module changed, or a language added later, is
drawn from them without measuring the machine again.

A session belongs to one page (or one notebook). When a block's result is not in the store but earlier blocks
of its session were, those blocks run again first, so it sees the same names as in a clean build; if one of
them then prints something else than it did (a timing), their stored results are replaced and
:meth:`Runner.take_rerender` tells the hook to render the page once more, so one page never mixes two runs.

A block that raises stops the build with a :class:`BlockError` naming the block (its page, the snippet file
and the line in that file) and the exception: an exception, not a log record, so it fails at every log level
and no page with a traceback is ever written. Only a block that completed cleanly is stored: an interrupt, an
exception Python reports as "ignored" while the block runs, or a traceback in its output fails the build
instead.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import importlib
import io
import logging
import os
import pickle
import re
import sys
import time
import tokenize
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import markdown_exec
from filelock import FileLock
from mkdocs.exceptions import PluginError
from pymdownx.superfences import SuperFencesException

from attention_lesson.site import i18n, project
from attention_lesson.site.store import Store, StoreError

log = logging.getLogger("mkdocs.plugins.attention_lesson")

SESSION_MODULE = "_lesson_block_"
"""The name prefix of the module each live session runs in."""

KINETO_QUIET = "6"
"""Kineto's log level above its last kind of message (USDT): it prints nothing."""

OPTIONS = {"exec", "html", "source", "result", "session", "id", "idprefix", "returncode", "updatetoc", "tabs",
           "workdir", "width", "title"}
"""The fence options markdown-exec knows (and ``title``); any other word is a typo to report."""


class BlockError(PluginError, SuperFencesException):
    """A block could not run. A SuperFencesException so that pymdownx passes it on instead of swallowing it."""


@dataclass
class _Session:
    chain: str
    namespace: dict[str, Any] | None = None
    pending: list[tuple[str, str, str]] = field(default_factory=list)
    """(key, neutral code, title) of blocks taken from the store since the namespace was last live."""


@dataclass
class Stats:
    executed: int = 0
    reused: int = 0
    seconds: float = 0.0


class Runner:
    """Runs blocks of code for one build at a time (see the module docstring)."""

    def __init__(self, store: Store) -> None:
        # torch.profiler's C++ half (Kineto) writes a "USDT: ... profiler_start" and a "profiler_stop" line
        # straight to the process's stderr around every profile, at any KINETO_LOG_LEVEL below 6 (torch 2.13):
        # not a block's output, but 12 lines of noise in the editor's terminal from the cost listing alone.
        # Kineto reads its level once, when the process first profiles; a level the user set stands.
        os.environ.setdefault("KINETO_LOG_LEVEL", KINETO_QUIET)
        self.store = store
        self.lang = project.DEFAULT_LANG
        self.languages = [project.DEFAULT_LANG]
        self.environment = ""
        self.stats = Stats()
        self._page = ""
        self._sessions: dict[str, _Session] = {}
        self._rerender = False
        self._lock: FileLock | None = None
        self._imported_at = time.time()

    def start_build(self, lang: str, store: Store, languages: list[str]) -> None:
        """Begin a build of `lang` (whose figures are drawn for every one of `languages`): a new environment
        key, empty sessions, and fresh lesson modules."""
        self._refresh_modules()
        for name in [name for name in sys.modules if name.startswith(SESSION_MODULE)]:
            del sys.modules[name]  # the last build's sessions (mkdocs serve): their names go with them
        self.end_page()
        self.lang, self.store, self.languages = lang, store, list(languages)
        self.environment = project.environment_key()
        self.stats = Stats()
        self._page, self._sessions, self._rerender = "", {}, False

    def begin_page(self, page: str) -> None:
        """Sessions belong to a page: a page never sees another page's names, whatever the build order.

        `page` (the page's file, e.g. ``docs/ja/cost.md``) also names the page in every error of its blocks.
        The page's results are read and written under a lock of the store's, held until the next page: two
        builds sharing a store render a page one after the other, so the second finds the first one's run
        whole, and no page (nor its other languages, read later from the store) mixes two runs. The lock is
        the page's in every language (``docs/<code>/cost.md`` is ``cost.md``): each language's page runs the
        same blocks under the same keys (their strings are neutral), and an English build (``LESSON_LANG=en``,
        or a language worker) would otherwise run the cost listing while a Japanese one does, each storing its
        own run under the one key."""
        if page != self._page or self._lock is None:
            self.end_page()
            self._lock = self.store.lock(project.digest("page", _in_every_language(page))[:32])
            self._lock.acquire()
        self._page, self._sessions, self._rerender = page, {}, False

    def end_page(self) -> None:
        """Let another build render the current page (the end of a page, of a build, or a failure)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def where(self, title: str) -> str:
        """A block's name in an error: its page and its title (the snippet file, or the notebook cell)."""
        if not self._page or title.startswith(self._page):
            return title
        return f"{self._page}: {title}" if title else f"{self._page}: a Python block"

    def take_rerender(self) -> bool:
        """Whether the current page showed a stored result that a re-run has since replaced (then cleared)."""
        rerender, self._rerender = self._rerender, False
        return rerender

    def _session(self, name: str) -> _Session:
        if name not in self._sessions:
            self._sessions[name] = _Session(chain=project.digest(self.environment, "session", name))
        return self._sessions[name]

    def run(self, code: str, *, session: str = "", title: str = "", lang: str | None = None) -> str:
        """The output of one block in `lang` (default: the build's language), from the store or run now. A store
        that cannot be written (a disk filled mid-build) stops the build in one line naming the block and the
        store's folder, whatever runs the block (a page, a notebook cell)."""
        title = self.where(title)
        try:
            return self._run(code, session, title, lang or self.lang)
        except StoreError as error:
            raise BlockError(f"{title}: {error.strerror}") from None

    def _run(self, code: str, session: str, title: str, lang: str) -> str:
        """:meth:`run`, with the block's title already naming its page."""
        if session:
            state = self._session(session)
        else:  # no session: a namespace of its own
            state = _Session(chain=project.digest(self.environment, "no session"))
        try:
            check_source(code, title)  # a syntax error names the file's line, as a run-time error does
            neutral, texts = i18n.neutralize(code)
        except (ValueError, tokenize.TokenError) as error:
            raise BlockError(f"{title}: {error}") from None
        lesson, render = _split_imports(neutral)
        state.chain = project.digest(state.chain, neutral, project.imports_key(lesson) if lesson else "")
        # a module that only renders what the session computed (a figure) keys the output, not the session:
        # editing it draws again from the stored names and measures nothing
        key = project.digest(state.chain, "output", project.imports_key(render)) if render else state.chain
        inputs = project.digest(state.chain, "inputs")
        stored = self._stored(key)
        if stored is None and state.namespace is None:
            stored = self._from_inputs(key, inputs, neutral, title)
        if stored is not None:
            self.stats.reused += 1
            state.pending.append((key, inputs, neutral, title))
            return self._output(stored, key, texts, lang, title)
        namespace = self._live(state)
        self._execute_and_store(key, inputs, neutral, namespace, title)
        return self._output(self._stored(key), key, texts, lang, title)

    def namespace(self, session: str) -> dict[str, Any]:
        """The live names of a session of the current page, re-running its stored blocks if needed."""
        if session not in self._sessions:
            raise KeyError(session)
        return self._live(self._sessions[session])

    def chain(self, session: str) -> str | None:
        """The key of the last block of a session of the current page (None: no such session)."""
        state = self._sessions.get(session)
        return state.chain if state else None

    # -- internals --------------------------------------------------------------------------------------------

    def _language_key(self, key: str, lang: str) -> str:
        strings = [(i18n.docs_dir() / code / i18n.STRINGS_FILE).read_bytes() for code in (lang, i18n.DEFAULT_LANG)]
        return project.digest(key, "language", lang, *strings)

    def _stored(self, key: str) -> dict | None:
        """The stored result of a block, complete for every language, or None."""
        entry = self.store.get(key)
        if not isinstance(entry, dict) or not ("template" in entry or entry.get("by_language")):
            return None
        if entry.get("by_language"):
            for lang in self.languages:
                if not isinstance(self.store.get(self._language_key(key, lang)), str):
                    return None
        return entry

    def _output(self, entry: dict | None, key: str, texts: list[str], lang: str, title: str) -> str:
        if entry is None:  # written a moment ago and already gone (pruned by another build): a clear error
            raise BlockError(f"{title}: its result vanished from the store {self.store.path}")
        raw = self.store.get(self._language_key(key, lang)) if entry.get("by_language") else entry["template"]
        if raw is None:
            raise BlockError(f"{title}: no output stored for language {lang!r}")
        try:
            return i18n.localize_output(raw, texts, lang)
        except ValueError as error:
            raise BlockError(f"{title}: {error}") from None

    def _live(self, state: _Session) -> dict[str, Any]:
        if state.namespace is None:
            module = types.ModuleType(f"{SESSION_MODULE}{len(sys.modules)}")
            sys.modules[module.__name__] = module  # dataclasses and pickle look classes up by module name
            state.namespace = module.__dict__
        pending, state.pending = state.pending, []
        for key, inputs, neutral, title in pending:
            before = self._snapshot(key)
            self._execute_and_store(key, inputs, neutral, state.namespace, title)
            if before != self._snapshot(key):
                self._rerender = True
        return state.namespace

    def _snapshot(self, key: str) -> list:
        entry = self.store.get(key)
        languages = entry.get("by_language") if isinstance(entry, dict) else False
        return [entry, *(self.store.get(self._language_key(key, lang)) for lang in self.languages if languages)]

    def _execute_and_store(self, key: str, inputs: str, neutral: str, namespace: dict, title: str,
                           languages: list[str] | None = None) -> None:
        """Run a block (for each language, if it reads the language) and store what it printed; the names a
        figure read are stored under `inputs`. `languages`: only these are missing (the rest are stored)."""
        given = {name: namespace[name] for name in _names_read(neutral) if name in namespace}
        if languages is None:
            with i18n.language(self.lang):
                i18n.consulted(reset=True)
                output = self._execute(neutral, namespace, title)
                if not i18n.consulted():
                    self.store.put(key, {"template": output})
                    return
            self.store.put(self._language_key(key, self.lang), output)
        for lang in self.languages:  # its output depends on the language: one run per language
            if lang != self.lang if languages is None else lang in languages:
                with i18n.language(lang):
                    self.store.put(self._language_key(key, lang), self._execute(neutral, namespace, title))
        packed = _pack(given)
        if packed is not None:
            self.store.put(inputs, packed)
        self.store.put(key, {"by_language": True})

    def _from_inputs(self, key: str, inputs: str, neutral: str, title: str) -> dict | None:
        """A figure whose module changed, or that a language added later has no output of: draw it from the
        names it read when its session last ran (stored with it), instead of replaying the session (the cost
        page's measures the machine for seconds). None: no such names, or they cannot be restored; the caller
        then replays the session."""
        given = _unpack(self.store.get(inputs))
        if given is None:
            log.debug("%s: no stored inputs to draw it from; its session runs again", title)
            return None
        entry = self.store.get(key)
        missing = None
        if isinstance(entry, dict) and entry.get("by_language"):
            missing = [lang for lang in self.languages
                       if not isinstance(self.store.get(self._language_key(key, lang)), str)]
        try:
            self._execute_and_store(key, inputs, neutral, dict(given), title, languages=missing)
        except BlockError as error:  # it needs more than it read directly: replay the session instead
            log.debug("%s: its stored inputs were not enough (%s); its session runs again", title, error)
            return None
        log.debug("%s: drawn from its stored inputs", title)
        return self._stored(key)

    def _execute(self, code: str, namespace: dict, title: str) -> str:
        """What the block prints, if it completes cleanly. An interrupt goes up as it is; an exception, one that
        Python reports as "ignored" while the block runs (a weakref callback, a __del__), or a traceback in what
        it printed is a BlockError, and nothing of the block is stored."""
        filename = f"<{title}>"
        buffer = io.StringIO()
        ignored: list[str] = []
        previous = sys.unraisablehook
        sys.unraisablehook = lambda report: ignored.append(f"{report.exc_type.__name__}: {report.exc_value}")
        start = time.perf_counter()
        try:
            compiled = compile(code, filename, "exec")
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                exec(compiled, namespace)  # noqa: S102 - running the lesson's code is this module's purpose
        except Exception as error:
            raise BlockError(_describe(error, title, filename, code)) from None
        finally:
            sys.unraisablehook = previous
            seconds = time.perf_counter() - start
            self.stats.executed += 1
            self.stats.seconds += seconds
            log.debug("Ran %s in %.2f s", title, seconds)
        output = buffer.getvalue()
        if ignored:
            raise BlockError(f"{title}: Python ignored an exception while the block ran ({ignored[0]}); nothing of "
                             "it was stored: build again")
        found = _TRACEBACK.search(output)
        if found:
            raise BlockError(f"{title}: its output holds a Python error report ({found[0]!r}); nothing of it was "
                             "stored: fix the code, or build again if it was interrupted")
        return output

    def values(self, session: str, compute: Callable[[dict[str, Any]], dict[str, str]], source: bytes) -> dict:
        """Values computed from a session's names (the prose's {{ measured.* }}), stored like a block's output
        and keyed on the session and on `source` (the code that computes them)."""
        chain = self.chain(session)
        if chain is None:
            raise KeyError(session)
        key = project.digest(chain, "values", source)
        stored = self.store.get(key)
        if isinstance(stored, dict):
            return stored
        try:
            computed = compute(self.namespace(session))
            self.store.put(key, computed)
        except StoreError as error:
            raise BlockError(f"{self._page}: {error.strerror}") from None
        return computed

    def _refresh_modules(self) -> None:
        """Forget lesson modules edited since they were imported, so `mkdocs serve` runs the edited code.

        The runner's own modules (this one, the store, i18n, project) stay: an edit to them needs a restart.
        """
        keep = {"attention_lesson.site.runner", "attention_lesson.site.store", "attention_lesson.site.i18n",
                "attention_lesson.site.project", "attention_lesson.site"}
        for name, module in list(sys.modules.items()):
            if name.split(".")[0] != "attention_lesson" or name in keep:
                continue
            path = getattr(module, "__file__", None)
            with contextlib.suppress(OSError, TypeError):
                if path and Path(path).stat().st_mtime > self._imported_at:
                    del sys.modules[name]
        self._imported_at = time.time()


def _in_every_language(page: str) -> str:
    """A page's file without its language folder: ``docs/en/notebooks/exercise-3.py`` → ``notebooks/exercise-3.py``."""
    parts = PurePosixPath(page).parts
    if len(parts) > 2 and parts[0] == i18n.docs_dir().name:
        return PurePosixPath(*parts[2:]).as_posix()
    return page


def _names_read(code: str) -> set[str]:
    """The names a block's code reads (any of them may come from earlier blocks of its session)."""
    return {node.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)}


def _pack(names: dict[str, Any]) -> dict | None:
    """The names a block read, stored with its result: modules by name, other values pickled (tensors, the
    listings' tables). None when one cannot be stored (a function defined on the page): such a block is
    replayed with its session when a language is added."""
    modules = {name: value.__name__ for name, value in names.items() if isinstance(value, types.ModuleType)}
    values = {name: value for name, value in names.items() if name not in modules}
    try:
        pickled = base64.b64encode(pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")
    except Exception as error:  # noqa: BLE001 - any value pickle refuses: no inputs stored, the block is replayed
        log.debug("Inputs not stored (%s): a new language will replay the session", error)
        return None
    return {"modules": modules, "values": pickled}


def _unpack(inputs: Any) -> dict[str, Any] | None:
    """The names :func:`_pack` stored, or None when they cannot be restored (the store's checksum guards
    against damage; this guards against a module that is gone or a value pickle cannot rebuild)."""
    if not isinstance(inputs, dict):
        return None
    try:
        names = pickle.loads(base64.b64decode(inputs["values"]))  # noqa: S301 - written by this runner
        names.update({name: importlib.import_module(module) for name, module in inputs["modules"].items()})
    except Exception:  # noqa: BLE001 - whatever went wrong, replaying the session gives the right names
        return None
    return names


def _describe(error: BaseException, title: str, filename: str, code: str) -> str:
    """``title:N: Type: message``, N the line in the snippet file the block comes from (section markers
    counted), else ``title, line N`` with N the block's own line."""
    if isinstance(error, SyntaxError) and error.filename == filename:
        return f"{_at(title, code, error.lineno)}: SyntaxError: {error.msg}"
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    where = _at(title, code, frames[-1].lineno) if frames and frames[-1].lineno else title
    message = str(error).strip().splitlines()
    return f"{where}: {type(error).__name__}" + (f": {message[-1]}" if message else "")


_SNIPPET = re.compile(r"(?<![\w/])snippets/[\w.-]+\.py$")
_SECTION = re.compile(r"^\s*#\s*--8<--\s*\[(start|end):[^\]]*\]\s*$")
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")


def _at(title: str, code: str, line: int | None) -> str:
    """Where line `line` of a block is, for an editor: the snippet file's own line when the block is that file
    or a section of it (pymdownx.snippets drops the section markers, so the block's lines are not the file's)."""
    snippet = _SNIPPET.search(title)
    if snippet is None or line is None:
        return f"{title}, line {line}" if line else title
    try:
        lines = (project.root() / snippet[0]).read_text(encoding="utf-8").splitlines()
    except (OSError, LookupError):
        return f"{title}, line {line}"

    def shape(text: str) -> str:  # printed strings are markers in the code that ran
        return _STRING.sub('""', text).rstrip()

    kept = [(number, shape(text)) for number, text in enumerate(lines, 1) if not _SECTION.match(text)]
    block = [shape(text) for text in code.splitlines()]
    for start in range(len(kept) - len(block) + 1):
        if all(kept[start + i][1] == text for i, text in enumerate(block)) and 0 < line <= len(block):
            return f"{title}:{kept[start + line - 1][0]}"
    return f"{title}, line {line}"


_TRACEBACK = re.compile(r"^(Traceback \(most recent call last\):|Exception ignored in|KeyboardInterrupt\b)", re.M)
"""What Python prints when something went wrong: never a block's result."""


# -- the python fence, on markdown-exec's public API ----------------------------------------------------------

_TYPO = re.compile(r"^[a-z]+$")


class Fence:
    """The ``python`` fence of one build's pages, bound to its runner: registered by the plugin's on_config
    (:mod:`attention_lesson.site.plugin`), as markdown-exec's plugin registers its own."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def validator(self, language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any],
                  md) -> bool:
        """markdown-exec's validator, and a clear error for an option it does not know (``sesion="x"``)."""
        unknown = sorted(k for k in inputs if k not in OPTIONS and _TYPO.match(k))
        exec_value = inputs.get("exec")
        if exec_value is not None and exec_value.lower() not in {"on", "off", "yes", "no", "true", "false", "1", "0"}:
            raise BlockError(f'{self.runner.where(inputs.get("title", ""))}: exec="{exec_value}": write exec="on" '
                             "(or leave it out to show the code without running it)")
        accepted = markdown_exec.validator(language, inputs, options, attrs, md)
        if accepted and unknown:
            title = self.runner.where((options.get("extra") or {}).get("title", ""))
            raise BlockError(f"{title}: unknown option {', '.join(unknown)}; known: {', '.join(sorted(OPTIONS))}")
        return accepted

    def formatter(self, source: str, language: str, css_class: str, options: dict[str, Any], md,
                  **kwargs: Any) -> str:
        """Run a block through the runner and render it with markdown-exec, code and output in the page's
        language."""
        runner = self.runner
        title = (options.get("extra") or {}).get("title", "")

        def run(code: str, returncode: int | None = None, session: str | None = None, id: str = "",  # noqa: A002
                **extra) -> str:
            return runner.run(code, session=session or "", title=title)

        def shown(code: str) -> tuple[str, str]:
            check_source(code, runner.where(title))
            try:
                return code, i18n.localize_source(code, runner.lang)
            except (SyntaxError, ValueError, tokenize.TokenError) as error:
                raise BlockError(f"{runner.where(title)}: {error}") from None

        return markdown_exec.base_format(language=language, run=run, code=source, md=md, transform_source=shown,
                                         **options)


def check_source(code: str, title: str) -> None:
    """A block that does not parse stops the build with one line naming its file and line (an unclosed bracket
    included), before anything tokenizes it."""
    try:
        compile(code, f"<{title}>", "exec")
    except SyntaxError as error:
        raise BlockError(_describe(error, title, f"<{title}>", code)) from None


def _split_imports(code: str) -> tuple[str, str]:
    """A block's imports of the lesson's package (the functions its listings mark #@save: they change what the
    block computes) and of the site's modules (a figure's renderer: it changes only how the result is shown)."""
    lesson, render = [], []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        else:
            continue
        for name in names:
            if name == "attention_lesson":
                lesson.append(f"import {name}")
            elif name.startswith("attention_lesson."):
                render.append(f"import {name}")
    return "\n".join(lesson), "\n".join(render)
