"""`mkdocs serve`'s preview of one language other than the source: a process that stays up between rebuilds.

The server starts one per language (see the hooks' ``_refresh_previews``) with ``LESSON_LANG`` set, and writes
a line to its stdin for each rebuild; it answers with one JSON line,
``{"ok": bool, "problems": [...], "seconds": float}``. Kept warm, a language's rebuild costs what MkDocs spends
on its pages (about one second) instead of a new interpreter importing MkDocs, Material and the plugins again
(about five seconds). It builds the way
``mkdocs build`` does (``load_config``, ``on_startup``, ``build``, ``on_shutdown``: FastAPI's docs script
drives MkDocs the same way), reading every result from the store the server's build wrote; nothing runs.

    python -m attention_lesson.site.preview <mkdocs.yml> <site folder>
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time

from mkdocs.commands.build import build
from mkdocs.config import load_config


class _Problems(logging.Handler):
    """The errors and warnings of one build, one line each (a strict build fails on a warning)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def build_once(config_file: str, site_dir: str) -> dict:
    """One build of this process's language into site_dir, as `mkdocs build -f config_file -d site_dir`."""
    started = time.perf_counter()
    problems = _Problems()
    mkdocs_log = logging.getLogger("mkdocs")
    mkdocs_log.addHandler(problems)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries the answers
            config = load_config(config_file, site_dir=site_dir)
            config.plugins.on_startup(command="build", dirty=False)
            try:
                build(config)
            finally:
                config.plugins.on_shutdown()
    except Exception as error:  # noqa: BLE001 - any failure is this build's answer; the next edit tries again
        return {"ok": False, "problems": problems.lines or [f"{type(error).__name__}: {error}"]}
    finally:
        mkdocs_log.removeHandler(problems)
    return {"ok": True, "problems": problems.lines, "seconds": round(time.perf_counter() - started, 2)}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m attention_lesson.site.preview <mkdocs.yml> <site folder>", file=sys.stderr)
        return 2
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    for _ in sys.stdin:  # one line per rebuild; the server closing the pipe ends the process
        print(json.dumps(build_once(*args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
