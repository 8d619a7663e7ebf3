"""The other languages' builds, each in a process of its own that stays up between builds.

`mkdocs build` of the source language starts one process per other language as soon as it is configured (the
process imports MkDocs, Material and the plugins meanwhile), hands each its build when every result is stored,
and collects one answer each; `mkdocs serve` keeps them for its previews, so a translator's edit costs what
MkDocs spends on that language's pages. The channel is JSON lines:

    python -m attention_lesson.site.workers <mkdocs.yml>

reads one request per line on stdin, ``{"lang": "en", "site_dir": "…", "store": "…", "strict": true,
"preview": false}`` (``strict`` null: mkdocs.yml's), builds that language the way `mkdocs build` does
(``load_config``, ``on_startup``, ``build``, ``on_shutdown``: FastAPI's docs script drives MkDocs the same
way), with every result read from the store, and answers one line, ``{"ok": bool, "problems": ["…"],
"seconds": 1.2}``. It ends when stdin closes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PLUGIN = "attention-lesson"
"""The plugin's name in mkdocs.yml (its entry point)."""


class LogLines(logging.Handler):
    """What MkDocs logs at `level` or above during one build, one line each (warnings and errors of a worker's
    build: a strict build fails on a warning; the errors of a serve rebuild, for its error page)."""

    def __init__(self, level: int = logging.WARNING) -> None:
        super().__init__(level)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def build_language(config_file: str, request: dict[str, Any]) -> dict[str, Any]:
    """One build of one language, as `mkdocs build -f config_file -d site_dir` with the plugin told which."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    started = time.perf_counter()
    problems = LogLines()
    mkdocs_log = logging.getLogger("mkdocs")
    mkdocs_log.addHandler(problems)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries the answers
            strict = {} if request.get("strict") is None else {"strict": bool(request["strict"])}  # else mkdocs.yml's
            config = load_config(config_file, site_dir=request["site_dir"], **strict)
            plugin = config.plugins[PLUGIN]
            plugin.assign(lang=request["lang"], store=request["store"], preview=bool(request.get("preview")))
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


class Worker:
    """The parent's end of one language's process."""

    def __init__(self, config_file: str, lang: str, log_file: Path) -> None:
        self.lang, self.log_file = lang, log_file
        log_file.parent.mkdir(parents=True, exist_ok=True)
        with open(log_file, "w", encoding="utf-8") as err:  # what it prints besides its answers: for a crash
            self.process = subprocess.Popen(
                [sys.executable, "-m", "attention_lesson.site.workers", config_file],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, encoding="utf-8")
        self.busy = False

    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, **request: Any) -> None:
        self.process.stdin.write(json.dumps({"lang": self.lang, **request}) + "\n")
        self.process.stdin.flush()
        self.busy = True

    def answer(self) -> dict[str, Any]:
        line = self.process.stdout.readline() if self.busy else ""
        self.busy = False
        if line:
            return json.loads(line)
        self.process.wait()
        printed = self.log_file.read_text(encoding="utf-8", errors="replace").strip()
        return {"ok": False, "problems": [f"the build of '{self.lang}' exited {self.process.returncode}: "
                                          f"{printed[-2000:]}"]}

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m attention_lesson.site.workers <mkdocs.yml>", file=sys.stderr)
        return 2
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    try:
        with contextlib.suppress(Exception), contextlib.redirect_stdout(sys.stderr):
            from mkdocs.config import load_config

            load_config(args[0])  # imports the theme and every plugin while the parent runs the code, not after

        for line in sys.stdin:  # one request per line; the parent closing the pipe ends the process
            print(json.dumps(build_language(args[0], json.loads(line))), flush=True)
    except KeyboardInterrupt:
        # Ctrl-C in a terminal reaches the whole process group: the parent build or server stops and says so; this
        # process ends with the shell's status for it, and no traceback in its log (kept for a crash).
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
