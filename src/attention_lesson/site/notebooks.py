"""The exercise notebooks: ``docs/<code>/notebooks/*.py``, run by the runner, rendered by mkdocs-jupyter.

Each notebook is a plain-text jupytext "percent" file, so it diffs and reviews like the rest of the lesson. At
every build :func:`prepare` (called from the hooks' ``on_files``) turns each one into an executed ``.ipynb``:

* its code cells are ``--8<-- "snippets/exercise_N.py:section"`` lines, expanded as pymdownx.snippets does on
  the pages, so the exercise code exists once, in snippets/;
* the cells run in this process through the same runner as the pages' blocks, one session per notebook: no
  kernel, results stored and reused like a listing's, and every language's notebook shows the one run;
* each code cell of the ``.ipynb`` holds the code in the notebook's language (comments and printed strings
  translated) and its output as a ``stream`` output, so the download is a valid executed notebook;
* a cell that raises stops the build with an error naming the notebook file, the cell and its line;
* the ``.py`` File is replaced by a File for the executed ``notebooks/<name>.ipynb`` (written once per content
  under the cache's ``notebooks/``), which mkdocs-jupyter renders as the page ``notebooks/<name>/`` with the
  ``.ipynb`` copied next to it for download (``include_source``).

A language without a notebook of its own gets the Japanese one, as it does for pages.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import time
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from attention_lesson.site import fallback, i18n, project, translations
from attention_lesson.site.runner import BlockError, Runner
from attention_lesson.site.store import MAX_AGE, write_atomically

FOLDER = "notebooks"
"""Notebooks live in ``docs/<code>/notebooks/`` and are published under ``notebooks/``."""
WRITTEN = "notebooks"
"""The executed .ipynb files handed to mkdocs-jupyter: this folder of the cache, one folder per content digest."""

log = logging.getLogger("mkdocs.plugins.attention_lesson")


class NotebookError(PluginError):
    """A notebook could not be executed: the message names the notebook file."""


def sources(lang: str) -> dict[str, Path]:
    """``notebooks/<name>.py`` → its source file: the language's own, else the Japanese one."""
    found: dict[str, Path] = {}
    for code in dict.fromkeys([i18n.DEFAULT_LANG, lang]):
        for path in sorted((i18n.docs_dir() / code / FOLDER).glob("*.py")):
            found[f"{FOLDER}/{path.name}"] = path
    return dict(sorted(found.items()))


def language_of(source: Path) -> str:
    """The language a notebook is written in: its folder, ``docs/<code>/notebooks/``."""
    return source.parent.parent.name


def _display(path: Path) -> str:
    try:
        return path.relative_to(project.root()).as_posix()
    except ValueError:
        return str(path)


def _cell_lines(source: Path) -> list[int]:
    """1-based line of each ``# %%`` cell marker: where each cell of the notebook starts in the file."""
    lines = source.read_text(encoding="utf-8").splitlines()
    return [number for number, line in enumerate(lines, 1) if line.startswith("# %%")]


def execute(source: Path, runner: Runner, lang: str | None = None):
    """Read a percent-format notebook and run its code cells; a cell that raises raises NotebookError.

    The notebook is shown in `lang` (default: the language of its folder).
    """
    import jupytext
    import nbformat

    name = _display(source)
    lang = lang or language_of(source)
    try:
        nb = jupytext.read(source, fmt="py:percent")
    except Exception as error:  # jupytext raises many types for a malformed file
        raise NotebookError(f"{name}: not a readable jupytext percent notebook: {error}") from None
    lines = _cell_lines(source)
    runner.begin_page(name)
    count = 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        count += 1
        where = f"{name}: cell {index + 1}" + (f" (line {lines[index]})" if len(lines) == len(nb.cells) else "")
        code = expand_includes(cell.source, source)
        try:
            output = runner.run(code + "\n", session="notebook", title=where, lang=lang)
            cell.source = i18n.localize_source(code + "\n", lang).rstrip("\n")
        except BlockError as error:
            raise NotebookError(str(error)) from None
        cell.execution_count = count
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=output)] if output else []
    if language_of(source) != lang:  # this language has no notebook of its own yet: say so under the title
        first = 1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0
        banner = fallback.notebook_banner(lang, f"{FOLDER}/{source.stem}/")
        nb.cells.insert(first, nbformat.v4.new_markdown_cell(banner))
    return _deterministic(nb)


INCLUDE = re.compile(r'^--8<-- "(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"\s*$')


def expand_includes(code: str, source: Path) -> str:
    """Replace each ``--8<-- "snippets/x.py"`` (or ``"snippets/x.py:section"``) line of a code cell with that
    code, comments in the notebook's language, as pymdownx.snippets does on the pages.

    The exercise code then exists once, in snippets/, for every language's notebook, and the executed
    ``.ipynb`` a reader downloads holds the code itself. A section is the lines between
    ``# --8<-- [start:name]`` and ``# --8<-- [end:name]``; marker lines are never copied. Hand-written (15 lines)
    because pymdownx.snippets is a Markdown preprocessor and these are the code cells of a notebook.
    """
    lines = []
    for line in code.splitlines():
        match = INCLUDE.match(line.strip())
        if not match:
            lines.append(line)
            continue
        path = project.root() / match["path"]
        if not path.is_file():
            raise NotebookError(f"{_display(source)}: includes {match['path']}, which does not exist")
        text = path.read_text(encoding="utf-8").splitlines()
        if match["section"]:
            start, end = f"# --8<-- [start:{match['section']}]", f"# --8<-- [end:{match['section']}]"
            stripped = [t.strip() for t in text]
            if start not in stripped or end not in stripped:
                raise NotebookError(f"{_display(source)}: no section {match['section']!r} in {match['path']}")
            text = text[stripped.index(start) + 1 : stripped.index(end)]
        text = [t for t in text if not t.strip().startswith("# --8<-- [")]
        while text and not text[0].strip():
            text.pop(0)
        while text and not text[-1].strip():
            text.pop()
        if lines and lines[-1].strip():
            lines += ["", ""]  # two included parts: PEP 8's two blank lines between them
        lines += text
    return "\n".join(lines).strip("\n")


def _deterministic(nb):
    """Drop what differs between two runs of the same code: cell ids, timings, widget state."""
    nb.metadata.pop("widgets", None)
    for index, cell in enumerate(nb.cells, 1):
        cell["id"] = f"cell-{index}"
        cell.metadata.pop("execution", None)
        cell.metadata.pop("ExecuteTime", None)
    return nb


def executed_notebook(source: Path, lang: str, runner: Runner, cache: Path) -> Path:
    """The executed ``.ipynb`` of a notebook source in `lang`, written once per content under `cache`."""
    import nbformat

    start = time.perf_counter()
    text = nbformat.writes(execute(source, runner, lang))
    digest = hashlib.sha256(text.encode()).hexdigest()[:32]
    target = cache / WRITTEN / digest / FOLDER / f"{source.stem}.ipynb"
    if not target.is_file():
        write_atomically(target, text)  # never a half-written notebook
    else:
        os.utime(target.parent.parent)
    log.info("Notebook %s (%s): %.2f s", _display(source), lang, time.perf_counter() - start)
    return target


def prune(cache: Path, max_age: float = MAX_AGE) -> None:
    """Drop written notebooks not used for max_age seconds (their folder's mtime is touched on use)."""
    now = time.time()
    for folder in (cache / WRITTEN).glob("*"):
        try:
            old = now - folder.stat().st_mtime > max_age
        except OSError:
            continue
        if old or len(folder.name) != 32:  # the old layout keyed by 64 hex digits: replaced, so removed
            shutil.rmtree(folder, ignore_errors=True)


def prepare(files: Files, config: MkDocsConfig, lang: str, runner: Runner, cache: Path) -> Files:
    """Replace every ``notebooks/*.py`` of the language by its executed notebook (see the module docstring)."""
    notebooks = sources(lang)
    if not notebooks:
        return files
    for uri, source in notebooks.items():
        drifted = translations.page_drift(lang, uri) if language_of(source) == lang else None
        if drifted:  # a changed include in a translated notebook would run other code than the Japanese one
            raise NotebookError(drifted)
        notebook = executed_notebook(source, lang, runner, cache)
        original = files.get_file_from_path(uri)
        if original is not None:
            files.remove(original)
        # A real file rather than File.generated: mkdocs-jupyter wraps it and re-derives the path from
        # src_dir + src_uri, so the written notebook is laid out as a docs folder holding notebooks/<name>.ipynb.
        src_dir = notebook.parents[1]
        files.append(File(notebook.relative_to(src_dir).as_posix(), str(src_dir), config.site_dir,
                          config.use_directory_urls))
    config.extra["notebook_download"] = i18n.ui("notebook_download", lang)
    return files
