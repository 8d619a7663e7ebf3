#!/usr/bin/env python3
"""Speed budgets of the lesson site, as guard rails: a benchmark to run by hand, not a test. Each figure is
the median of --repeat runs (default 3); builds are judged by their median over the floor's, measured in the
same run of this script (floor and builds interleaved run by run), so that the figures compare across machines.

floor    Plain Material on the same pages: one `python .ci/env mkdocs build` per language folder the real build
         builds (docs/<code>/ with a strings.yml), one after another, summed. Each config: that docs_dir, theme
         material in that language, search, and mkdocs.yml's markdown_extensions by name (Python-Markdown's,
         PyMdown's, Material's), so listings render as highlighted code. No lesson plugin; no code runs.
cold     `python .ci/env mkdocs build --strict`, empty results store (LESSON_STORE: a new temporary folder;
         other caches under .cache/ stay as they are)                                            <= 3 x floor
rebuild  the same build again, its store now warm                                                <= 1.5 x floor
serve    `python .ci/env mkdocs serve` on a free loopback port: a marker line appended to docs/ja/values.md,
         seconds until /values/ shows it; the line is removed after each edit                   <= 1 s
suite    (--suite) `python .ci/env pytest` in a fresh `git clone` of HEAD, .venv set up first, untimed  <= 180 s
audit    (--audit, alone) Lighthouse, mobile, on every language's notebook pages of a strict build, judged by LHCI's
         assertions (AUDIT); LHCI from npm into .cache/npm/lhci/ on first use, reports in .cache/lighthouse/

Builds go to a temporary folder (-d), never site/. Exits 0 if all are within budget, 1 if one is over or failed,
2 on bad arguments. Standard library only; imports nothing of the project.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
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
MEASURES = ("floor", "cold", "rebuild", "serve", "suite")
BUDGETS = {"cold": 3.0, "rebuild": 1.5, "serve": 1.0, "suite": 180.0}
PER_FLOOR = ("cold", "rebuild")  # budgets in multiples of the floor; the others in seconds
ENV = [sys.executable, ".ci/env"]  # the README's `python .ci/env ...`, run from the project's folder
EDITED, PAGE = ROOT / "docs" / "ja" / "values.md", "values/"
NEW_GROUP = 0x200 if sys.platform == "win32" else 0  # Windows' CREATE_NEW_PROCESS_GROUP; POSIX: a new session
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith("LESSON_")}  # all languages, default store
LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # whatever http_proxy says


class Failed(RuntimeError):
    """A command failed or timed out, or a page never showed: what happened, then the end of its log."""

    def __init__(self, what: str, log: Path) -> None:
        super().__init__(f"{what}:\n" + (log.read_text("utf-8", "replace")[-2000:] if log.exists() else ""))


def start(cmd: list[str], log: Path, cwd: Path = ROOT, env: dict[str, str] = BASE_ENV) -> subprocess.Popen[bytes]:
    """Start cmd in a process group of its own (so it can be stopped with its children), output to log."""
    with log.open("wb") as out:
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=not NEW_GROUP, creationflags=NEW_GROUP)


def stop(proc: subprocess.Popen[bytes], ctrl_c: bool = False) -> None:
    """Ctrl-C (SIGINT to its process group; terminate on Windows) or kill; kill if a Ctrl-C fails for 20 s."""
    if sys.platform == "win32":
        proc.terminate() if ctrl_c else proc.kill()  # nothing if it has ended
    elif proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT if ctrl_c else signal.SIGKILL)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        if ctrl_c:
            stop(proc)


def timed(cmd: list[str], log: Path, timeout: float, cwd: Path = ROOT, env: dict[str, str] = BASE_ENV) -> float:
    """Run cmd to its end: its wall seconds. Fails if it exits non-zero or still runs after timeout."""
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
        raise Failed(f"`{' '.join(cmd[1:])}` {status}", log)
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
        total += timed([*ENV, "mkdocs", "build", "--quiet", "-f", str(config)], work / "floor.log", 600)
    return {"floor": [total]}


def builds_once(work: Path, rebuild: bool) -> dict[str, list[float]]:
    """The README's strict build with an empty results store, then (if rebuild) the same again."""
    cmd = [*ENV, "mkdocs", "build", "--strict", "-d", str(work / "site")]
    env = {**BASE_ENV, "LESSON_STORE": tempfile.mkdtemp(prefix="store-", dir=work)}
    times = {"cold": [timed(cmd, work / "cold.log", 1800, env=env)]}
    if rebuild:
        times["rebuild"] = [timed(cmd, work / "rebuild.log", 1800, env=env)]
    return times


def wait_for(server: subprocess.Popen[bytes], log: Path, url: str, text: str, present: bool, timeout: float) -> None:
    """Poll url every 20 ms until its page has text (present) or lacks it; fail if serve ends or time is up."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with LOOPBACK.open(url, timeout=2) as response:
                if (text in response.read().decode("utf-8", "replace")) == present:
                    return
        except OSError:
            pass
        what = f"{url} to answer" + (f" {'with' if present else 'without'} {text}" if text else "")
        if server.poll() is not None:
            raise Failed(f"mkdocs serve exited {server.returncode} while waiting for {what}", log)
        if time.monotonic() > deadline:
            raise Failed(f"waited {timeout:.0f} s for {what}", log)
        time.sleep(0.02)


def serve_edits(work: Path, repeat: int) -> dict[str, list[float]]:
    """In one `mkdocs serve`, repeat times: seconds from appending a marker line to EDITED until PAGE shows it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base, log, times = f"http://127.0.0.1:{port}/", work / "serve.log", []
    server = start([*ENV, "mkdocs", "serve", "-a", f"127.0.0.1:{port}"], log)
    try:
        wait_for(server, log, base, "", True, 900)  # its first build
        for run in range(repeat):
            marker = f"budget-marker-{run + 1}-{time.time_ns()}"
            line = f"\n\n{marker}\n".encode()
            try:
                EDITED.write_bytes(EDITED.read_bytes() + line)
                began = time.perf_counter()
                wait_for(server, log, base + PAGE, marker, True, 60)
                times.append(time.perf_counter() - began)
            finally:  # always remove the line, ours only (someone else may edit the file meanwhile)
                EDITED.write_bytes(EDITED.read_bytes().replace(line, b""))
            wait_for(server, log, base + PAGE, marker, False, 60)  # the restored page
            time.sleep(0.5)
    finally:
        stop(server, ctrl_c=True)
    return {"serve": times}


def suite_runs(work: Path, repeat: int) -> dict[str, list[float]]:
    """`python .ci/env pytest` in a fresh clone: its .venv set up first, untimed; `git clean` before each run."""
    clone = work / "clone"
    timed(["git", "clone", "--quiet", str(ROOT), str(clone)], work / "clone.log", 600)
    timed([*ENV, "python", "-c", "pass"], work / "setup.log", 3600, cwd=clone)
    times = []
    for _ in range(repeat):
        timed(["git", "clean", "-xdfq", "-e", ".venv"], work / "clean.log", 300, cwd=clone)
        times.append(timed([*ENV, "pytest"], work / "suite.log", 1800, cwd=clone))
    return {"suite": times}


LHCI = "@lhci/cli@0.14.0"  # Lighthouse 12.1 (13 needs Node 22); a minScore is met by the best of 3 runs
AUDIT = {"categories:performance": ["error", {"minScore": 0.95}],
         "categories:accessibility": ["error", {"minScore": 1}],
         "resource-summary:document:size": ["error", {"maxNumericValue": 150 * 1024}]}  # as sent: gzipped


def audit(work: Path) -> bool:
    """Lighthouse on the notebook pages; True if LHCI's assertions hold and no page is over 150 KB uncompressed."""
    prefix, site, cache = ROOT / ".cache" / "npm" / "lhci", work / "site", ROOT / ".cache" / "lighthouse"
    if not (prefix / "node_modules" / ".bin" / "lhci").exists():
        timed(["npm", "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
               "--loglevel=error", "-E", LHCI], work / "npm.log", 900)
    timed([*ENV, "mkdocs", "build", "--strict", "-d", str(site)], work / "build.log", 1800)
    pages = sorted(site.glob("**/notebooks/*/index.html"))
    urls = [f"http://localhost/{page.parent.relative_to(site).as_posix()}/" for page in pages]
    flags = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --no-first-run"
    (work / "lighthouserc.json").write_text(json.dumps({"ci": {"assert": {"assertions": AUDIT}, "collect": {
        "staticDistDir": str(site), "url": urls, "settings": {"chromeFlags": flags},
        "chromePath": os.environ.get("CHROME_PATH", "/usr/bin/chromium")},
        "upload": {"target": "filesystem", "outputDir": str(cache)}}}))
    shutil.rmtree(cache, ignore_errors=True)
    ok = subprocess.run([str(prefix / "node_modules" / ".bin" / "lhci"), "autorun"], cwd=work).returncode == 0
    for run in json.loads((cache / "manifest.json").read_text(encoding="utf-8")):  # each page's median run of 3
        if run["isRepresentativeRun"]:
            print(run["url"].split("/", 3)[3], {name: round(score * 100) for name, score in run["summary"].items()})
    for page in pages:
        print(f"{page.relative_to(site)}: {page.stat().st_size / 1024:.1f} KB")
    return ok and all(page.stat().st_size <= 150 * 1024 for page in pages)


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
                times.get(name, []).extend(seconds)  # not kept: the cold build that a rebuild alone needs
                print(f"[budget] {name}: {', '.join(f'{t:.2f} s' for t in seconds)}", file=sys.stderr)
        except (Failed, OSError) as error:
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
        if name in errors or not runs or (name in PER_FLOOR and floor is None):
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
    for error in dict.fromkeys(errors.values()):  # cold and rebuild fail together
        names = ", ".join(name for name in errors if errors[name] == error)
        print(f"\n{names} failed: {error}", file=sys.stderr)
    return all(row[5] in ("ok", "-") for row in rows[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # Bad arguments: one line and exit status 2 (argparse's own error() prints the usage as well).
    parser.error = lambda message: parser.exit(2, f"budget.py: {message} (see --help)\n")  # type: ignore[method-assign]
    parser.add_argument("--repeat", type=int, default=3, metavar="N", help="runs per median (default 3)")
    parser.add_argument("--only", metavar="LIST", default="floor,cold,rebuild,serve",
                        help=f"comma-separated, from {','.join(MEASURES)} (default all but suite)")
    parser.add_argument("--suite", action="store_true", help="also time the test suite in a fresh clone")
    parser.add_argument("--audit", action="store_true", help="instead, Lighthouse on the notebook pages")
    args = parser.parse_args()
    if args.audit:
        with tempfile.TemporaryDirectory(prefix="audit-") as work:
            return 0 if audit(Path(work)) else 1
    only = {name.strip() for name in args.only.split(",") if name.strip()} | ({"suite"} if args.suite else set())
    if not only or only - set(MEASURES):
        parser.error(f"--only takes names from {','.join(MEASURES)}, not {args.only!r}")
    if args.repeat < 1:
        parser.error(f"--repeat takes a whole number >= 1, not {args.repeat}")
    only |= {"floor"} if only & set(PER_FLOOR) else set()  # their budgets are multiples of it
    with tempfile.TemporaryDirectory(prefix="budget-") as work:
        return 0 if report(*measure(only, args.repeat, Path(work))) else 1


if __name__ == "__main__":
    sys.exit(main())
