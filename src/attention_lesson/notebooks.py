"""The exercise notebooks: ``docs/<code>/notebooks/*.py``, executed at build time, rendered by mkdocs-jupyter.

Each notebook is a plain-text jupytext "percent" file, so it diffs and reviews like the rest of the lesson. At
every build :func:`prepare` (called from the hook's ``on_files``) turns each one into an executed ``.ipynb``:

* the key is a SHA-256 of the notebook source, its language (the folder it is in), every file under
  ``src/attention_lesson/`` and ``snippets/`` (sorted paths and contents; bytecode excluded) and the torch
  version;
* ``.cache/notebooks/<key>/notebooks/<name>.ipynb`` is used when it exists (logged as "cached"); otherwise the
  notebook is converted with jupytext, executed with nbclient in the ``python3`` kernel that ipykernel
  provides (cwd: the project root, this project's ``src/`` first on the kernel's path) and written there
  (logged as "executed");
* a cell that raises stops the build with an error naming the notebook file, the cell and its line;
* the ``.py`` File is replaced by a File for the executed ``notebooks/<name>.ipynb`` (its src_dir is the cache
  entry), which mkdocs-jupyter renders as the page ``notebooks/<name>/``, the URL the source would get, with
  the ``.ipynb`` copied next to it for download (``include_source``). So the nav and the pages name
  ``notebooks/<name>.ipynb``; the ``.py`` sources are in ``exclude_docs``.

A prose edit (``docs/*/*.md``) changes no key, so such a rebuild executes nothing; an edit under ``snippets/``
or ``src/`` changes every key, so every notebook runs again. A language without a notebook of its own gets the
Japanese one, as it does for pages (the same cache entry: it is the same notebook, run in Japanese).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import re
import time
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from attention_lesson import i18n

ROOT = i18n.ROOT
FOLDER = "notebooks"
"""Notebooks live in ``docs/<code>/notebooks/`` and are published under ``notebooks/``."""
CACHE = ROOT / ".cache" / "notebooks"
KEYED = ("src/attention_lesson", "snippets")
"""Folders whose every file is part of each notebook's cache key: what the notebooks import or mirror."""
KERNEL = "python3"
CELL_TIMEOUT = 600  # seconds per cell: exercise 3 times the head at T = 4000 on whatever machine builds

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


def _keyed_files() -> list[Path]:
    files = [
        path
        for folder in KEYED
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    ]
    return sorted(files, key=lambda p: p.relative_to(ROOT).as_posix())


def _update(hasher, name: str, data: bytes) -> None:
    # Length-prefixed, so that moving bytes from one part to the next cannot give the same key.
    for part in (name.encode(), data):
        hasher.update(len(part).to_bytes(8, "big"))
        hasher.update(part)


def _code_digest() -> hashlib._Hash:
    """The key's shared part: every file under src/attention_lesson/ and snippets/, and the torch version."""
    hasher = hashlib.sha256()
    for path in _keyed_files():
        _update(hasher, path.relative_to(ROOT).as_posix(), path.read_bytes())
    _update(hasher, "torch", importlib.metadata.version("torch").encode())
    return hasher


def language_of(source: Path) -> str:
    """The language a notebook is written in: its folder, ``docs/<code>/notebooks/``."""
    return source.parent.parent.name


def cache_key(source: Path, code_digest: hashlib._Hash | None = None) -> str:
    hasher = (code_digest or _code_digest()).copy()
    _update(hasher, "lang", language_of(source).encode())
    _update(hasher, "notebook", source.read_bytes())
    return hasher.hexdigest()


def _display(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def _cell_lines(source: Path) -> list[int]:
    """1-based line of each ``# %%`` cell marker: where each cell of the notebook starts in the file."""
    lines = source.read_text(encoding="utf-8").splitlines()
    return [number for number, line in enumerate(lines, 1) if line.startswith("# %%")]


def execute(source: Path):
    """Convert a percent-format notebook and run it; a cell that raises raises NotebookError."""
    import jupytext
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from traitlets.config import Config

    name = _display(source)
    try:
        nb = jupytext.read(source, fmt="py:percent")
    except Exception as error:  # jupytext raises many types for a malformed file
        raise NotebookError(f"{name}: not a readable jupytext percent notebook: {error}") from None
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = expand_includes(cell.source, source)
    config = Config()
    # ipykernel's kernelspec declares CurveZMQ support: encrypt the local channels (and the kernel does not
    # warn on every start that they are plain text).
    config.KernelManager.transport_encryption = "auto"
    client = NotebookClient(
        nb,
        config=config,
        timeout=CELL_TIMEOUT,
        kernel_name=KERNEL,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(ROOT)}},
    )
    # The kernel imports this project's package (a copy of the project runs its own src/) and prints labels
    # in the notebook's language.
    python_path = os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": python_path, "LESSON_LANG": language_of(source), "MPLBACKEND": "Agg"}
    try:
        client.execute(env=env)
    except CellExecutionError as error:
        index = next((i for i, cell in enumerate(nb.cells)
                      if any(o.get("output_type") == "error" for o in cell.get("outputs", []))), None)
        where = ""
        if index is not None:
            lines = _cell_lines(source)
            where = f" cell {index + 1}" + (f" (line {lines[index]})" if len(lines) == len(nb.cells) else "")
        raise NotebookError(f"{name}:{where} raised {error.ename}: {error.evalue}") from None
    except Exception as error:  # no kernel, a dead kernel, a timeout: still name the notebook
        raise NotebookError(f"{name}: could not be executed: {type(error).__name__}: {error}") from None
    return _deterministic(nb)


INCLUDE = re.compile(r'^--8<-- "(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"\s*$')


def expand_includes(code: str, source: Path) -> str:
    """Replace each ``--8<-- "snippets/x.py"`` (or ``"snippets/x.py:section"``) line of a code cell with that
    code, comments in the notebook's language, as pymdownx.snippets does on the pages.

    The exercise code then exists once, in snippets/, for every language's notebook, and the executed
    ``.ipynb`` a reader downloads holds the code itself. A section is the lines between
    ``# --8<-- [start:name]`` and ``# --8<-- [end:name]``; marker lines are never copied.
    """
    from attention_lesson import i18n

    lines = []
    for line in code.splitlines():
        match = INCLUDE.match(line.strip())
        if not match:
            lines.append(line)
            continue
        path = ROOT / match["path"]
        if not path.is_file():
            raise NotebookError(f"{_display(source)}: includes {match['path']}, which does not exist")
        text = path.read_text(encoding="utf-8").splitlines()
        if match["section"]:
            start, end = f"# --8<-- [start:{match['section']}]", f"# --8<-- [end:{match['section']}]"
            stripped = [t.strip() for t in text]
            if start not in stripped or end not in stripped:
                raise NotebookError(f"{_display(source)}: no section {match['section']!r} in {match['path']}")
            text = text[stripped.index(start) + 1 : stripped.index(end)]
        lines += [t for t in text if not t.strip().startswith("# --8<-- [")]
    expanded = "\n".join(lines).strip("\n")
    return i18n.localize_comments(expanded + "\n", language_of(source)).rstrip("\n")


def _deterministic(nb):
    """Drop what differs between two runs of the same code: cell ids, timings, widget state."""
    nb.metadata.pop("widgets", None)
    for index, cell in enumerate(nb.cells, 1):
        cell["id"] = f"cell-{index}"
        cell.metadata.pop("execution", None)
        cell.metadata.pop("ExecuteTime", None)
    return nb


def executed_notebook(source: Path, code_digest: hashlib._Hash | None = None) -> Path:
    """The executed ``.ipynb`` of a notebook source, from the cache or run now."""
    import nbformat

    target = CACHE / cache_key(source, code_digest) / FOLDER / f"{source.stem}.ipynb"
    if target.is_file():
        log.info("Notebook %s: cached (%s)", _display(source), _display(target))
        return target
    start = time.perf_counter()
    nb = execute(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".ipynb.partial")
    nbformat.write(nb, partial)
    os.replace(partial, target)  # never a half-written notebook in the cache
    log.info("Notebook %s: executed in %.1f s (%s)", _display(source), time.perf_counter() - start,
             _display(target))
    return target


def prepare(files: Files, config: MkDocsConfig, lang: str) -> Files:
    """Replace every ``notebooks/*.py`` of the language by its executed notebook (see the module docstring)."""
    notebooks = sources(lang)
    if not notebooks:
        return files
    digest = _code_digest()
    for uri, source in notebooks.items():
        notebook = executed_notebook(source, digest)
        original = files.get_file_from_path(uri)
        if original is not None:
            files.remove(original)
        # A real file rather than File.generated: mkdocs-jupyter wraps it and re-derives the path from
        # src_dir + src_uri, so the cache entry is laid out as a docs folder holding notebooks/<name>.ipynb.
        src_dir = notebook.parents[1]
        files.append(File(notebook.relative_to(src_dir).as_posix(), str(src_dir), config.site_dir,
                          config.use_directory_urls))
    config.extra["notebook_download"] = i18n.ui("notebook_download", lang)
    return files
