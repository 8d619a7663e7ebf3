"""The project's commands run in the test's own process, in a project folder: `mkdocs …` through MkDocs' command
line, `python -m attention_lesson.site.translations …` through its main(), `pytest …` through pytest's.

For a copy whose docs, snippets or strings a test changed, not its code: this process imports the package as
this virtual environment installed it (as a second checkout sharing the environment does). The command's
options, log levels, output and exit status are the command's own (MkDocs' `-q` and `-v` set its logger as they
do in a process of their own); what is saved is the interpreter's start, MkDocs' plugins' and torch's imports,
about two seconds a command. A traceback is an exception raised here, which fails the test that ran it.

A module's tests can share one copy this way, each changing it only inside `edited`.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

from conftest import STORE

VARIABLES = ("LESSON_LANG", "LESSON_NO_CACHE", "LESSON_SITE_URL", "LESSON_REPO_URL")
"""What mkdocs.yml reads from the environment besides the store: unset, as conftest.run leaves them."""


@contextlib.contextmanager
def _logging_kept() -> Iterator[None]:
    """MkDocs' command line sets its logger's level, handler and propagation for the rest of its process, and
    adds a filter that drops a message it has logged once: all put back, so the next build logs as its own."""
    mkdocs_log, build_log = logging.getLogger("mkdocs"), logging.getLogger("mkdocs.commands.build")
    level, propagate = mkdocs_log.level, mkdocs_log.propagate
    handlers, filters = mkdocs_log.handlers[:], build_log.filters[:]
    try:
        with warnings.catch_warnings():  # it also sets how warnings are shown
            yield
    finally:
        mkdocs_log.setLevel(level)
        mkdocs_log.propagate = propagate
        mkdocs_log.handlers[:] = handlers
        build_log.filters[:] = filters


def _run_in(project: Path, args: list[str], env: dict[str, str], main: Callable[[], int | None]):
    """Run `main` in `project` with `env`, as a command: what it prints, and its exit status."""
    out, err = io.StringIO(), io.StringIO()
    with (mock.patch.dict(os.environ, env), contextlib.chdir(project), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        try:
            status = main() or 0
        except SystemExit as exit_:  # how both commands end: sys.exit, argparse's exit, MkDocs' Abort
            status = 0 if exit_.code is None else exit_.code if isinstance(exit_.code, int) else 1
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def mkdocs(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`mkdocs <args>` in `project` (the session's store, `env` on top), e.g. ``mkdocs(copy, "build", "--strict",
    "-q", "-d", site)``."""
    from mkdocs.__main__ import cli

    def main() -> None:
        with _logging_kept():
            cli.main(list(args), prog_name="mkdocs")

    values = {**dict.fromkeys(VARIABLES, ""), "LESSON_STORE": str(STORE), **(env or {})}
    return _run_in(project, ["mkdocs", *args], values, main)


def translations(project: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m attention_lesson.site.translations <args>` in `project`: the translators' check, or --init."""
    from attention_lesson.site import translations as command

    return _run_in(project, ["python", "-m", command.__name__, *args], {}, lambda: command.main(list(args)))


def pytest(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m pytest <args>` in `project`: the copy's own tests, with its conftest and test modules. They
    have the names this session's have (conftest, commands, test_*), so this session's are set aside while it
    runs and put back after, the copy's dropped; it is not a worker of this session's (PYTEST_XDIST_*)."""
    import pytest as runner

    def main() -> int:
        for name in [name for name in os.environ if name.startswith("PYTEST_XDIST_")]:
            del os.environ[name]  # put back with the rest of the environment (_run_in)
        ours = _modules_in(Path(__file__).parent)
        path = sys.path[:]
        for name in ours:
            del sys.modules[name]
        try:
            return int(runner.main(list(args)))
        finally:
            for name in _modules_in(project / "tests"):
                del sys.modules[name]
            sys.modules.update(ours)
            sys.path[:] = path

    return _run_in(project, ["pytest", *args], {"LESSON_STORE": str(STORE), **(env or {})}, main)


def _modules_in(folder: Path) -> dict[str, object]:
    """The imported modules whose file is in `folder`."""
    return {name: module for name, module in list(sys.modules.items())
            if (file := getattr(module, "__file__", None)) and Path(file).parent == folder}


@contextlib.contextmanager
def edited(path: Path, text: str | None) -> Iterator[Path]:
    """`path` holding `text` (None: removed) while the test runs, then as it was: its old bytes, or no such file
    (nor the folder made for it)."""
    before = path.read_bytes() if path.exists() else None
    made = next((folder for folder in reversed(path.parents) if not folder.exists()), None)
    if text is None:
        path.unlink()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    try:
        yield path
    finally:
        if before is not None:
            path.write_bytes(before)
        elif made is not None:
            shutil.rmtree(made)
        else:
            path.unlink()
