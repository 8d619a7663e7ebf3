#!/usr/bin/env python3
"""Speed budgets of the lesson site, as guard rails: a benchmark to run by hand, not a test.

    python .ci/budget.py [--repeat N] [--only floor,cold,rebuild,serve,suite] [--suite]

Each figure is the median of N runs (default 3); build times are judged as ratios to a floor measured in the
same run of this script (floor and builds interleaved run by run), so that they compare across machines.

floor    Plain Material on the same pages: for every language folder the real build builds (docs/<code>/ with a
         strings.yml), one `python .ci/env mkdocs build` of a generated config, one after another; the floor is
         their sum. The config: docs_dir docs/<code>/, theme material in that language, the search plugin, and
         the names (without options) of mkdocs.yml's markdown_extensions that are Python-Markdown's, PyMdown's
         or Material's, so the included listings render as highlighted code. No lesson plugin, no code runs.
cold     `python .ci/env mkdocs build --strict` with an empty results store (LESSON_STORE set to a new
         temporary folder; other caches under .cache/ stay as they are)                          <= 3 x floor
rebuild  the same build again, with that store now warm                                          <= 1.5 x floor
serve    `python .ci/env mkdocs serve` on a free loopback port: a marker line appended to docs/ja/values.md,
         seconds until /values/ shows it; the line is removed after each edit                   <= 1 s
suite    only with --suite or --only suite: `python .ci/env pytest` in a fresh `git clone` of HEAD, whose
         .venv is set up first, untimed (`git clean` between runs)                               <= 180 s

Builds write into a temporary folder (-d), never site/. Exit status: 0 every measure within budget, 1 one over
budget or failed, 2 bad arguments. Standard library only; it imports nothing of the project.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POSIX = os.name == "posix"
MEASURES = ("floor", "cold", "rebuild", "serve", "suite")
BUDGETS = {"cold": 3.0, "rebuild": 1.5, "serve": 1.0, "suite": 180.0}
PER_FLOOR = ("cold", "rebuild")  # budgets in multiples of the floor; the others in seconds
EDITED, PAGE = ROOT / "docs" / "ja" / "values.md", "values/"
LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # whatever http_proxy says


class Failed(RuntimeError):
    """A command failed or timed out, or a page never showed; the message ends with the tail of the output."""


def env_cmd(root: Path = ROOT) -> list[str]:
    return [sys.executable, str(root / ".ci" / "env")]  # the README's `python .ci/env ...`


def environment(**extra: str) -> dict[str, str]:
    """This environment without LESSON_* settings (every language, the default store), plus extra."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("LESSON_")}, **extra}


def start(cmd: list[str], log: Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start cmd in a process group of its own (so it can be stopped with its children), output to log."""
    own_group: dict[str, object] = (
        {"start_new_session": True} if POSIX else {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP})
    with log.open("ab") as out:
        return subprocess.Popen(cmd, cwd=cwd, env=env or environment(), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, **own_group)  # type: ignore[call-overload]


def stop(proc: subprocess.Popen[bytes], ctrl_c: bool = False) -> None:
    """Ctrl-C (SIGINT to the process group; terminate on Windows) or kill; then wait for it, 20 s at most."""
    if proc.poll() is None:
        if POSIX:
            os.killpg(proc.pid, signal.SIGINT if ctrl_c else signal.SIGKILL)
        else:
            proc.terminate() if ctrl_c else proc.kill()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        stop(proc)


def tail(log: Path) -> str:
    return log.read_text(encoding="utf-8", errors="replace")[-2000:] if log.exists() else ""


def timed(cmd: list[str], log: Path, timeout: float, cwd: Path = ROOT, env: dict[str, str] | None = None) -> float:
    """Run cmd to its end: its wall seconds. Fails if it exits non-zero or still runs after timeout."""
    log.write_bytes(b"")
    began = time.perf_counter()
    proc = start(cmd, log, cwd, env)
    try:
        code: int | None = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        seconds = time.perf_counter() - began
        stop(proc)
    if code != 0:
        status = f"still running after {timeout:.0f} s" if code is None else f"exited {code}"
        raise Failed(f"`{' '.join(cmd[1:])}` {status}:\n{tail(log)}")
    return seconds


def extensions() -> list[str]:
    """mkdocs.yml's top-level markdown_extensions names, Python-Markdown's, PyMdown's and Material's only."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8") + "\n"
    block = re.search(r"^markdown_extensions:[^\n]*\n((?:[ \t#-].*\n|\n)*)", text, re.MULTILINE)
    items = re.findall(r"^([ \t]*)- *([\w.]+)", block.group(1) if block else "", re.MULTILINE)
    top = min((len(indent) for indent, _ in items), default=0)
    return [name for indent, name in items
            if len(indent) == top and ("." not in name or name.startswith(("pymdownx.", "material.")))]


def floor_once(work: Path) -> dict[str, list[float]]:
    """One floor run: plain Material on each language folder, one build after another; the sum of seconds."""
    total = 0.0
    for code in sorted(d.name for d in (ROOT / "docs").iterdir() if (d / "strings.yml").is_file()):
        config = work / f"floor-{code}.yml"  # JSON is YAML
        config.write_text(json.dumps({
            "site_name": f"floor {code}", "docs_dir": str(ROOT / "docs" / code), "site_dir": str(work / "floor"),
            "theme": {"name": "material", "language": code}, "plugins": ["search"],
            "markdown_extensions": extensions(), "exclude_docs": "strings.yml\nnotebooks/*.py\n"}))
        total += timed([*env_cmd(), "mkdocs", "build", "--quiet", "-f", str(config)], work / "floor.log", 600)
    return {"floor": [total]}


def builds_once(work: Path, rebuild: bool) -> dict[str, list[float]]:
    """The README's strict build with an empty results store, then (if rebuild) the same again."""
    cmd = [*env_cmd(), "mkdocs", "build", "--strict", "-d", str(work / "site")]
    env = environment(LESSON_STORE=tempfile.mkdtemp(prefix="store-", dir=work))
    times = {"cold": [timed(cmd, work / "cold.log", 1800, env=env)]}
    if rebuild:
        times["rebuild"] = [timed(cmd, work / "rebuild.log", 1800, env=env)]
    return times


def page(url: str) -> str:
    try:
        with LOOPBACK.open(url, timeout=2) as response:
            return str(response.read().decode("utf-8", "replace"))
    except OSError:
        return ""


def wait_for(check: Callable[[], bool], server: subprocess.Popen[bytes], log: Path, timeout: float, what: str) -> None:
    """Poll check() every 20 ms until it holds; fail if the server exits or timeout passes."""
    deadline = time.monotonic() + timeout
    while not check():
        if server.poll() is not None:
            raise Failed(f"mkdocs serve exited {server.returncode} before {what}:\n{tail(log)}")
        if time.monotonic() > deadline:
            raise Failed(f"waited {timeout:.0f} s for {what}:\n{tail(log)}")
        time.sleep(0.02)


def serve_edits(work: Path, repeat: int) -> dict[str, list[float]]:
    """In one `mkdocs serve`, repeat times: append a marker line to docs/ja/values.md, time until /values/
    shows it, remove the line (always: the finally clauses) and wait until the page no longer shows it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base, log, times = f"http://127.0.0.1:{port}/", work / "serve.log", []
    server = start([*env_cmd(), "mkdocs", "serve", "-a", f"127.0.0.1:{port}"], log)
    try:
        wait_for(lambda: page(base) != "", server, log, 900, "/ answered (its first build)")
        for run in range(repeat):
            marker = f"budget-marker-{run + 1}-{time.time_ns()}"
            line = f"\n\n{marker}\n".encode()
            try:
                EDITED.write_bytes(EDITED.read_bytes() + line)
                began = time.perf_counter()
                wait_for(lambda m=marker: m in page(base + PAGE), server, log, 60, f"/{PAGE} showed {marker}")
                times.append(time.perf_counter() - began)
            finally:  # our line only: someone else may edit the file meanwhile
                EDITED.write_bytes(EDITED.read_bytes().replace(line, b""))
            wait_for(lambda m=marker: m not in page(base + PAGE), server, log, 60, f"/{PAGE} lost {marker}")
            time.sleep(0.5)
    finally:
        stop(server, ctrl_c=True)
    return {"serve": times}


def suite_runs(work: Path, repeat: int) -> dict[str, list[float]]:
    """`python .ci/env pytest` in a fresh clone: its .venv set up first, untimed; `git clean` before each run."""
    clone = work / "clone"
    timed(["git", "clone", "--quiet", str(ROOT), str(clone)], work / "clone.log", 600)
    timed([*env_cmd(clone), "python", "-c", "pass"], work / "setup.log", 3600, cwd=clone)
    times = []
    for _ in range(repeat):
        timed(["git", "clean", "-xdfq", "-e", ".venv"], work / "clean.log", 300, cwd=clone)
        times.append(timed([*env_cmd(clone), "pytest"], work / "suite.log", 1800, cwd=clone))
    return {"suite": times}


def measure(only: set[str], repeat: int, work: Path) -> tuple[dict[str, list[float]], dict[str, str]]:
    """The seconds of every run of the chosen measures, and why a measure failed (its runs end there)."""
    times: dict[str, list[float]] = {name: [] for name in MEASURES if name in only}
    errors: dict[str, str] = {}

    def attempt(names: list[str], once: Callable[[], dict[str, list[float]]]) -> None:
        chosen = [name for name in names if name in only]
        if not chosen or any(name in errors for name in chosen):
            return
        try:
            for name, seconds in once().items():
                times[name] += seconds
                print(f"[budget] {name}: {', '.join(f'{t:.2f} s' for t in seconds)}", file=sys.stderr)
        except Failed as error:
            errors.update(dict.fromkeys(chosen, str(error)))

    for _ in range(repeat):
        attempt(["floor"], lambda: floor_once(work))
        attempt(["cold", "rebuild"], lambda: builds_once(work, "rebuild" in only))
    attempt(["serve"], lambda: serve_edits(work, repeat))
    attempt(["suite"], lambda: suite_runs(work, repeat))
    return times, errors


def report(times: dict[str, list[float]], errors: dict[str, str]) -> bool:
    """Print the table (and each failure on stderr); True if every measure is within its budget."""
    floor = statistics.median(times["floor"]) if times.get("floor") else None
    rows = [("measure", "median", "range", "ratio or s", "budget", "verdict")]
    for name, runs in times.items():
        unit = " x floor" if name in PER_FLOOR else " s"
        budget = f"<= {BUDGETS[name]:g}{unit}" if name in BUDGETS else "-"
        if not runs or (name in PER_FLOOR and floor is None):
            rows.append((name, "-", "-", "-", budget, "failed" if name in errors else "no floor"))
            continue
        median = statistics.median(runs)
        value = median / floor if name in PER_FLOOR and floor else median
        verdict = "-" if name == "floor" else "ok" if value <= BUDGETS[name] else "over"
        rows.append((name, f"{median:.2f} s", f"{min(runs):.2f}-{max(runs):.2f} s",
                     "1 x floor" if name == "floor" else f"{value:.2f}{unit}", budget, verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in [rows[0], tuple("-" * w for w in widths), *rows[1:]]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    for name, error in errors.items():
        print(f"\n{name} failed: {error}", file=sys.stderr)
    return all(row[5] in ("ok", "-") for row in rows[1:])


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"budget.py: {message} (see --help)\n")  # one line, not argparse's usage + message


def main() -> int:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, metavar="N", help="runs per median (default 3)")
    parser.add_argument("--only", metavar="LIST", default="floor,cold,rebuild,serve",
                        help=f"comma-separated, from {','.join(MEASURES)} (default all but suite)")
    parser.add_argument("--suite", action="store_true", help="also time the test suite in a fresh clone")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    if not only or only - set(MEASURES):
        parser.error(f"--only takes names from {','.join(MEASURES)}, not {args.only!r}")
    if args.repeat < 1:
        parser.error(f"--repeat takes a whole number >= 1, not {args.repeat}")
    only |= {"floor"} if only & set(PER_FLOOR) else set()  # their budgets are multiples of it
    only |= {"suite"} if args.suite else set()
    with tempfile.TemporaryDirectory(prefix="budget-") as work:
        return 0 if report(*measure(only, args.repeat, Path(work))) else 1


if __name__ == "__main__":
    sys.exit(main())
