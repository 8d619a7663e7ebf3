#!/usr/bin/env python3
"""Performance budgets of the lesson site. A benchmark to run by hand, not a test: it prints a table.

    .ci/env python .ci/budget.py                       # everything (about 25 minutes on a 2-core machine)
    .ci/env python .ci/budget.py --only b,c            # some of it
    .ci/env python .ci/budget.py --only speed --repeat 1 --tests --json speed.json

(a) Lighthouse 12.2.3 (pinned in .ci/package.json; ``npm ci --prefix .ci`` installs it), mobile emulation
    with Lighthouse's default simulated throttling, on every page of the Japanese site: performance >= 95,
    accessibility = 100.
(b) What a page transfers, gzip-compressed, apart from the search index: the HTML and every asset the page
    and its search worker load (URLs as Chromium requested them, each counted once), <= 300 KB.
(c) A cold build of every language (fresh process, empty site folder, no .cache/notebooks) <= 1.5 x (the
    same build with code execution disabled + one ``import torch`` in a fresh interpreter). Medians of 3.
    markdown-exec has no switch (no environment variable or option turns it off), so "disabled" is a copy
    of the project with every ``exec="on"`` fence set to ``exec="off"``, and the plugin's exercise notebooks
    come from that copy's warmed .cache/notebooks instead of running.
(d) ``mkdocs serve``: a prose edit of a Japanese page until the served page has it, <= 1 s. Median of 3.
    Shown beside it, without a budget: the same on an exec="off" copy, the floor a cache of markdown-exec's
    output could reach. (``--dirty`` is no way out: with ``strict: true`` its own warning aborts the build.)

(speed) Build speed against a floor measured in the same run, so that the figures compare across machines:
    floor    plain Material rendering the same Markdown pages: per docs/<code>/ with a strings.yml, a config
             generated from mkdocs.yml without the lesson's plugin, markdown-exec, mkdocs-jupyter or Python fences
             (listings stay highlighted code), notebooks and translation status out of the nav, strict off;
             one `mkdocs build` per language, one after another; the floor is the sum
    cold     the README's `mkdocs build` (every language) in a fresh copy, no cache    <= 3 x floor
    rebuild  the same build again in that copy, nothing changed                       <= 1.5 x floor
    serve    `mkdocs serve`: a sentence appended to docs/ja/values.md until /values/ has it    <= 1 s
             and the same in docs/en/values.md until /en/values/ has it (one server, edits in turn) <= 1 s
    memory   peak of the summed RSS of the cold build and all its descendants, 50 ms samples   <= 1024 MiB
    tests    with --tests: `CI=true pytest -q -x` in a fresh copy                              <= 120 s
    Medians of --repeat runs (default 3); floor, cold and rebuild are interleaved run by run.

Everything runs on throwaway copies of the project (never the working tree; tracked and untracked-but-not-ignored
files, without .cache/ or site/, with the copy's src/ first on PYTHONPATH) and a local server on 127.0.0.1 that
gzips text the way a static host does. (a) and (b) need Debian's /usr/bin/chromium and Node 20. A build that fails
makes the script exit 1 after the table, with the tail of what the build printed; `--json FILE` keeps the figures.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
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
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import yaml

if TYPE_CHECKING:
    import psutil

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci"
PYTHON = sys.executable
# The tests run in a copy, which has no .venv of its own: the project's, as `.ci/env` would use.
VENV_PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").is_file() else PYTHON
CHROMIUM = os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium")
"""Debian's full browser, as a reader's: Lighthouse and the pages' transfers are measured in it (the tests use
its headless shell, which loads a page for less CPU)."""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LIGHTHOUSE = CI / "node_modules" / "lighthouse" / "cli" / "index.js"
LIGHTHOUSE_VERSION = "12.2.3"
RUNS = 3  # the default of --repeat
NOT_COPIED = {".cache", "site"}  # a copy starts with no build output and no cache, even if they were not ignored
GROUPS = ("a", "b", "c", "d", "speed", "serve")
# The floor drops these plugins: they are what the floor leaves out (code execution, notebooks).
NOT_FLOOR_PLUGINS = {"attention-lesson", "markdown-exec", "mkdocs-jupyter"}
# A markdown-exec fence that runs: exec="on" / "1" / "true" / "yes" (markdown-exec has no global switch).
EXEC_ON = re.compile(r"""\bexec=(["']?)(?:on|1|true|yes)\1""", re.IGNORECASE)
NOT_LESSONS = {"translation-status/"}  # generated for translators, not a lesson page
TEXT_TYPES = (".html", ".css", ".js", ".json", ".xml", ".svg", ".txt", ".map", ".ipynb")


@dataclass
class Row:
    what: str
    value: float | None
    budget: float | None  # None: an info row without one
    unit: str
    higher_is_better: bool = False
    note: str = ""
    info: bool = False  # shown for comparison, not a budget
    runs: list[float] = field(default_factory=list)  # the single runs behind a median
    ratio: float | None = None  # value / the floor measured in the same run of this script
    per_floor: bool = False  # the budget is a multiple of the floor (checked on ratio), not an absolute value

    @property
    def measured(self) -> float | None:
        """What the budget is checked against: a ratio to the floor compares across machines, seconds do not."""
        return self.ratio if self.per_floor else self.value

    @property
    def budget_unit(self) -> str:
        return "x floor" if self.per_floor else self.unit

    @property
    def ok(self) -> bool | None:
        if self.measured is None or self.budget is None or self.info:
            return None
        return self.measured >= self.budget if self.higher_is_better else self.measured <= self.budget

    def verdict(self) -> str:
        if self.info:
            return "(info, no budget)"
        if self.ok is None or self.measured is None or self.budget is None:
            return "not measured"
        if self.ok:
            return "ok"
        miss = abs(self.measured - self.budget)
        pct = miss / self.budget * 100 if self.budget else float("inf")
        return f"MISSED by {fmt(miss)} {self.budget_unit} ({pct:.0f} %)".replace("  ", " ")


def fmt(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 100 or float(x).is_integer() else f"{x:.2f}"


def log(message: str) -> None:
    print(f"[budget {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------------
# Copies, builds, servers


class BuildFailed(RuntimeError):
    """A build, server or test run exited non-zero: the message ends with the tail of what it printed."""


@dataclass
class Run:
    seconds: float
    peak_mib: float  # the summed RSS of the process and its descendants at its highest sample


@functools.cache
def working_tree(work: Path) -> Path:
    """The working tree's files (tracked, and untracked but not ignored, as `git ls-files -co --exclude-standard`
    lists them), copied once per run of this script, so that every copy starts from the same files even while
    someone edits the working tree."""
    listing = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                             capture_output=True).stdout.decode("utf-8", "surrogateescape")
    dest = work / "tree"
    copied = 0
    for rel in sorted(set(filter(None, listing.split("\0")))):
        source = ROOT / rel
        if Path(rel).parts[0] in NOT_COPIED or not os.path.lexists(source) or source.is_dir():
            continue  # deleted but still in the index, or a submodule
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest / rel, follow_symlinks=False)
        copied += 1
    log(f"working tree: {copied} files copied")
    return dest


def copy_project(dest: Path, exec_off: bool = False) -> Path:
    """A throwaway copy of the project (see working_tree), to build without touching the working tree."""
    shutil.copytree(working_tree(dest.parent), dest, symlinks=True)
    if exec_off:
        changed = 0
        for md in (dest / "docs").rglob("*.md"):
            text = md.read_text(encoding="utf-8")
            new, n = EXEC_ON.subn('exec="off"', text)
            if n:
                md.write_text(new, encoding="utf-8")
                changed += n
        log(f"{dest.name}: {changed} markdown-exec fences set to exec=\"off\"")
    return dest


def env(project: Path | None = None) -> dict[str, str]:
    """No LESSON_LANG (every language is built), and a copy's src/ first on PYTHONPATH: the package is installed
    editable from the working tree, which would otherwise be the code that runs, not the copy's."""
    e = {k: v for k, v in os.environ.items() if k != "LESSON_LANG"}
    e["NO_MKDOCS_2_WARNING"] = "1"
    if project is not None:
        e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(project / "src"), os.environ.get("PYTHONPATH")]))
    return e


def tail(text: str, chars: int = 3000) -> str:
    return text if len(text) <= chars else "..." + text[-chars:]


def build(project: Path, site: Path) -> float:
    """One `mkdocs build --strict` of every language in a fresh process into an empty folder: seconds."""
    shutil.rmtree(site, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.run([PYTHON, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=project,
                          env=env(project), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode:
        raise BuildFailed(f"build of {project} exited {proc.returncode}:\n{tail(proc.stdout, 1500)}\n"
                          f"--- stderr ---\n{tail(proc.stderr)}")
    return elapsed


def tree_rss(root: psutil.Process) -> int:
    """The RSS of a process and all its descendants, in bytes: what the build holds at once, its notebook kernels
    and listing subprocesses included. Pages shared between processes (libraries such as torch) count once per
    process, so this is an upper bound. A process that ends while it is read counts 0."""
    import psutil

    try:
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_measured(cmd: list[str], cwd: Path, environment: dict[str, str], what: str,
                 timeout: float = 3600) -> Run:
    """Run a command to its end: wall seconds and peak memory. A sampler thread reads the RSS every 50 ms while
    this thread waits, so the time is not rounded to the sampling period. A non-zero exit raises BuildFailed
    with the tail of the command's stderr (and of its stdout: pytest reports there)."""
    import psutil

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out, \
            tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=environment, stdout=out, stderr=err, start_new_session=True)
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            try:
                root = psutil.Process(proc.pid)
            except psutil.Error:
                return
            while not done.is_set():
                peak = max(peak, tree_rss(root))
                done.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            elapsed = time.perf_counter() - start
            done.set()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)  # the session this script started, nothing else
                proc.wait()
            sampler.join()
        if returncode != 0:
            err.seek(0)
            out.seek(0)
            status = (f"still running after {timeout:.0f} s, killed" if returncode is None
                      else f"exited {returncode} after {elapsed:.1f} s")
            raise BuildFailed(f"{what} {status} ({' '.join(cmd[1:])} in {cwd}):\n"
                              f"{tail(out.read(), 1500)}\n--- stderr ---\n{tail(err.read())}")
    return Run(elapsed, peak / 2**20)


def import_torch_seconds() -> float:
    code = "import time; t = time.perf_counter(); import torch; print(time.perf_counter() - t)"
    out = subprocess.run([PYTHON, "-c", code], env=env(), capture_output=True, text=True, check=True).stdout
    return float(out.strip())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, text gzip-compressed when the client accepts it (as GitHub Pages or nginx would)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def send_head(self):  # noqa: ANN201 - the base class's signature
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        if (
            "gzip" not in self.headers.get("Accept-Encoding", "")
            or not path.is_file()
            or path.suffix not in TEXT_TYPES
        ):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)


@contextmanager
def serve(site: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def ja_pages(site: Path) -> list[str]:
    """Lesson pages of the Japanese site ("" = home): other languages' folders and NOT_LESSONS left out."""
    others = {d.name for d in site.iterdir() if d.is_dir() and (d / "search" / "search_index.json").is_file()}
    pages = []
    for index in sorted(site.rglob("index.html")):
        rel = index.parent.relative_to(site)
        if rel.parts and (rel.parts[0] in others or rel.parts[0] in {"assets", "search"}):
            continue
        page = "" if not rel.parts else rel.as_posix() + "/"
        if page not in NOT_LESSONS:
            pages.append(page)
    return pages


# --------------------------------------------------------------------------------------------------------
# (c) build time


def measure_build(work: Path, runs: int) -> tuple[list[Row], Path]:
    full = copy_project(work / "full")
    noexec = copy_project(work / "noexec", exec_off=True)
    log("warming the no-exec copy's notebook cache (so that its builds execute nothing)")
    build(noexec, work / "site-noexec")
    times_full, times_noexec, times_torch = [], [], []
    for run in range(runs):
        shutil.rmtree(full / ".cache", ignore_errors=True)  # cold: nothing executed before
        times_full.append(build(full, work / "site-full"))
        times_noexec.append(build(noexec, work / "site-noexec"))
        times_torch.append(import_torch_seconds())
        log(f"build run {run + 1}: full {times_full[-1]:.1f} s, no exec {times_noexec[-1]:.1f} s, "
            f"import torch {times_torch[-1]:.2f} s")
    warm = build(full, work / "site-full")  # the last cold run left the notebook cache: markdown-exec alone
    log(f"build with the notebook cache warm: {warm:.1f} s")
    full_s, noexec_s, torch_s = (statistics.median(t) for t in (times_full, times_noexec, times_torch))
    budget = 1.5 * (noexec_s + torch_s)
    rows = [
        Row(f"(c) cold build, all languages (median of {runs})", full_s, budget, "s", runs=times_full,
            note=f"budget 1.5 x ({noexec_s:.1f} s no-exec build + {torch_s:.2f} s import torch)"),
        Row("(c) same, notebook cache warm (1 run)", warm, budget, "s", info=True,
            note="what is left when only the markdown-exec fences run"),
    ]
    return rows, work / "site-full"


# --------------------------------------------------------------------------------------------------------
# (b) transfer size


def measure_transfer(site: Path, url: str) -> list[Row]:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context()
        for path in ja_pages(site):
            page = context.new_page()
            urls: list[str] = []
            page.on("request", lambda r, urls=urls: urls.append(r.url))
            # The search worker loads Japanese support (TinySegmenter, lunr.ja) once the index is in: a
            # lull before that can end "networkidle" early, so wait for it by name.
            with page.expect_request_finished(lambda r: "lunr.ja.min.js" in r.url, timeout=60_000):
                page.goto(url + path, wait_until="networkidle")
            page.wait_for_load_state("networkidle")
            page.close()
            sizes: dict[str, int] = {}
            for u in urls:
                if not u.startswith(url):
                    continue
                local = unquote(urlsplit(u).path).lstrip("/")
                if local.endswith("search/search_index.json") or local in sizes:
                    continue
                file = site / local
                if file.is_dir() or not local:
                    file = file / "index.html"
                if not file.is_file():
                    continue  # a 404 (a partial build's missing language): next to nothing on the wire
                data = file.read_bytes()
                sizes[local] = min(len(data), len(gzip.compress(data, 6)))  # images go uncompressed
            largest = sorted(sizes.items(), key=lambda item: -item[1])[:3]
            rows.append(Row(f"(b) /{path} transfer, gzip", sum(sizes.values()) / 1000, 300, "KB",
                            note=f"{len(sizes)} files; largest " + ", ".join(
                                f"{Path(name).name or name} {size / 1000:.0f}" for name, size in largest)))
        browser.close()
    return rows


# --------------------------------------------------------------------------------------------------------
# (a) Lighthouse


def ensure_lighthouse() -> None:
    if LIGHTHOUSE.is_file():
        return
    log("installing Lighthouse from .ci/package-lock.json (npm ci)")
    subprocess.run(["npm", "ci", "--prefix", str(CI), "--no-audit", "--no-fund"], check=True)


def measure_lighthouse(site: Path, url: str, work: Path) -> list[Row]:
    ensure_lighthouse()
    rows = []
    lh_env = {**os.environ, "CHROME_PATH": CHROMIUM}
    for path in ja_pages(site):
        report = work / f"lh-{path.strip('/').replace('/', '-') or 'index'}.json"
        proc = subprocess.run(
            ["node", str(LIGHTHOUSE), url + path, "--quiet", "--output=json", f"--output-path={report}",
             "--only-categories=performance,accessibility",
             "--chrome-flags=--headless --no-sandbox --disable-gpu"],
            env=lh_env, capture_output=True, text=True,
        )
        if proc.returncode or not report.is_file():
            log(f"lighthouse /{path} failed: {proc.stderr[-1500:]}")
            rows += [Row(f"(a) /{path} performance", None, 95, "", True),
                     Row(f"(a) /{path} accessibility", None, 100, "", True)]
            continue
        lhr = json.loads(report.read_text())
        cats, audits = lhr["categories"], lhr["audits"]
        perf = cats["performance"]["score"]
        a11y = cats["accessibility"]["score"]
        metrics = ", ".join(
            f"{name} {audits[key]['displayValue']}"
            for name, key in [("FCP", "first-contentful-paint"), ("LCP", "largest-contentful-paint"),
                              ("TBT", "total-blocking-time"), ("CLS", "cumulative-layout-shift")]
            if key in audits and audits[key].get("displayValue")
        )
        failing = [
            ref["id"] for ref in cats["accessibility"]["auditRefs"]
            if ref.get("weight") and audits[ref["id"]].get("score") is not None and audits[ref["id"]]["score"] < 1
        ]
        rows.append(Row(f"(a) /{path} performance", None if perf is None else perf * 100, 95, "points",
                        higher_is_better=True, note=metrics))
        rows.append(Row(f"(a) /{path} accessibility", None if a11y is None else a11y * 100, 100, "points",
                        higher_is_better=True, note=("failing: " + ", ".join(failing)) if failing else ""))
        log(f"lighthouse /{path}: performance {perf}, accessibility {a11y}")
    return rows


# --------------------------------------------------------------------------------------------------------
# (d) mkdocs serve


def serve_edits(project: Path, label: str, page: str, runs: int, timeout: float,
                langs: tuple[str, ...] = ("ja",)) -> tuple[list[float], list[str], dict[str, list[float]]]:
    """Start `mkdocs serve` on a copy on a free loopback port, wait for its first build (it serves only after
    it), then `runs` times, for each of langs, append a unique sentence to docs/<lang>/<page>.md and time from
    the write until the served page has it, polling every 20 ms. Returns the first language's times, mkdocs' own
    rebuild times, and every language's times. The server runs in a session of its own, whose process group is
    sent Ctrl-C at the end (killed if it has not stopped in 20 s)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    log_path = project.parent / f"{label}.log"
    output = log_path.open("w")
    server = subprocess.Popen(
        [PYTHON, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"], cwd=project, env=env(project),
        stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
    )

    def server_log() -> str:
        output.flush()
        return tail(log_path.read_text(encoding="utf-8", errors="replace"))

    def alive() -> None:
        if server.poll() is not None:
            raise BuildFailed(f"mkdocs serve ({label}) exited {server.returncode}:\n{server_log()}")

    try:
        wait_until(lambda: alive() or fetch(base) is not None, timeout=900, what="mkdocs serve's first build")
        by_lang: dict[str, list[float]] = {lang: [] for lang in langs}
        for run in range(runs):
            for lang in langs:
                source = project / "docs" / lang / f"{page}.md"
                url = f"{base}{'' if lang == 'ja' else lang + '/'}{page}/"
                marker = f"予算計測のための一文、その{run + 1}（{time.time_ns()}）。"
                original = source.read_text(encoding="utf-8")
                source.write_text(original + f"\n{marker}\n", encoding="utf-8")
                start = time.perf_counter()
                try:
                    wait_until(lambda m=marker, u=url: alive() or marker_served(u, m), timeout=timeout,
                               what=f"the edit of docs/{lang}/{page}.md on {url}")
                except TimeoutError as error:  # a rebuild that failed leaves the old page: say why
                    raise BuildFailed(f"mkdocs serve ({label}): {error}\n{server_log()}") from None
                by_lang[lang].append(time.perf_counter() - start)
                log(f"{label} {lang} edit {run + 1}: {by_lang[lang][-1]:.2f} s")
                time.sleep(1.5)  # let the rebuild settle before the next edit
        rebuilds = re.findall(r"Documentation built in ([0-9.]+) seconds", log_path.read_text())[1:]
        return by_lang[langs[0]], rebuilds, by_lang
    finally:
        if server.poll() is None:
            # Ctrl-C, as in a terminal, to the session this script started and nothing else: MkDocs then removes
            # its temporary site (a SIGTERM would leave it, and the previews in it, behind)
            os.killpg(server.pid, signal.SIGINT)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        output.close()


def measure_serve(work: Path, runs: int, exec_off: bool = False) -> list[Row]:
    """(d): a prose edit of docs/ja/averaging.md until the served page has it."""
    label = "serve-noexec" if exec_off else "serve"
    times, rebuilds, _ = serve_edits(copy_project(work / label, exec_off=exec_off), label, "averaging", runs, 600)
    note = f"mkdocs' own rebuild times {', '.join(rebuilds)} s"
    if exec_off:
        return [Row("(d) same, exec=\"off\" copy (what an exec cache could reach)", statistics.median(times),
                    1.0, "s", note=note, info=True, runs=times)]
    return [Row(f"(d) mkdocs serve: prose edit -> page (median of {runs})", statistics.median(times), 1.0, "s",
                note=note, runs=times)]


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return None


def marker_served(url: str, marker: str) -> bool:
    body = fetch(url)
    return body is not None and marker in body


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(0.02)


# --------------------------------------------------------------------------------------------------------
# (speed) build speed against a floor


class _Unknown:
    """A value under a tag the floor cannot or must not construct (!!python/..., !ENV, !relative)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


class TolerantLoader(yaml.SafeLoader):
    """mkdocs.yml as data. SafeLoader rather than yaml.Loader: the latter would import the project's code for
    the !!python/name: fence format (and call the !!python/object/apply: slugify); every tag SafeLoader does
    not know is read as UNKNOWN instead, and its entry is dropped (without_unknown)."""


TolerantLoader.add_multi_constructor("", lambda loader, suffix, node: UNKNOWN)


def without_unknown(value: Any) -> Any:
    """Drop mapping entries whose value is UNKNOWN, and list items that are or directly hold one: a custom fence
    whose format is Python code goes whole (its fences stay plain highlighted code), not left without a format."""
    if isinstance(value, dict):
        return {k: without_unknown(v) for k, v in value.items() if v is not UNKNOWN}
    if isinstance(value, list):
        return [
            without_unknown(item) for item in value
            if item is not UNKNOWN and not (isinstance(item, dict) and UNKNOWN in item.values())
        ]
    return value


def floor_nav(nav: Any, docs: Path) -> Any:
    """The nav without the pages only the plugin makes (the executed notebooks, the translation status) and
    without pages this language folder does not have (the plugin fills those in; the floor renders what is there)."""
    if isinstance(nav, list):
        kept = [floor_nav(item, docs) for item in nav]
        return [item for item in kept if item not in (None, [], {})]
    if isinstance(nav, dict):
        kept = {title: floor_nav(target, docs) for title, target in nav.items()}
        return {title: target for title, target in kept.items() if target not in (None, [])} or None
    if isinstance(nav, str):
        if "://" in nav:
            return nav
        if nav.startswith("notebooks/") or not (docs / nav).is_file():
            return None
        return nav
    return None


def languages(project: Path) -> list[str]:
    """The language folders, as the plugin knows them: docs/<code>/ with a strings.yml."""
    return sorted(d.name for d in (project / "docs").iterdir() if (d / "strings.yml").is_file())


def floor_config(project: Path, code: str) -> Path:
    """A mkdocs config for plain Material on docs/<code>/: the theme (features, palette), validation and
    markdown_extensions of mkdocs.yml, and the language's own site name and search settings, as the plugin sets
    them; no lesson plugin, no markdown-exec or mkdocs-jupyter, no Python-defined fences, no custom_dir (nor its CSS
    and JavaScript), strict off. Written into the copy, so that docs_dir and snippets resolve there."""
    base = without_unknown(yaml.load((project / "mkdocs.yml").read_text(encoding="utf-8"), Loader=TolerantLoader))
    strings = yaml.safe_load((project / "docs" / code / "strings.yml").read_text(encoding="utf-8")) or {}
    config = {k: v for k, v in base.items() if k not in {"hooks", "watch", "extra_css", "extra_javascript"}}
    theme = {k: v for k, v in (base.get("theme") or {}).items() if k != "custom_dir"}
    search = {k: v for k, v in (strings.get("search") or {}).items() if k in {"lang", "pipeline", "separator"}}
    plugins = []
    for plugin in base.get("plugins") or []:
        name = plugin if isinstance(plugin, str) else next(iter(plugin))
        if name in NOT_FLOOR_PLUGINS:
            continue
        plugins.append({name: search} if name == "search" else plugin)
    extensions = []
    for extension in base.get("markdown_extensions") or []:
        if isinstance(extension, dict) and "pymdownx.snippets" in extension:
            extension = {"pymdownx.snippets": {**(extension["pymdownx.snippets"] or {}), "base_path": [str(project)]}}
        extensions.append(extension)
    config |= {
        "site_name": strings.get("site_name") or base.get("site_name"),
        "docs_dir": f"docs/{code}",
        "site_dir": f"site-floor/{code}",
        "strict": False,
        "theme": {**theme, "name": "material", "language": code},
        "nav": floor_nav(base.get("nav"), project / "docs" / code),
        "exclude_docs": "strings.yml\nnotebooks/\n",
        "plugins": plugins,
        "markdown_extensions": extensions,
    }
    if not config["nav"]:
        config.pop("nav")
    path = project / f"mkdocs-floor-{code}.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def measure_floor(project: Path) -> dict[str, Run]:
    """One floor run: a `mkdocs build` of the generated config per language, one after another."""
    runs = {}
    for code in languages(project):
        config = floor_config(project, code)
        runs[code] = run_measured([PYTHON, "-m", "mkdocs", "build", "-f", str(config)], project, env(project),
                                  f"floor build of docs/{code}")
    return runs


def measure_speed(work: Path, runs: int) -> tuple[list[Row], dict[str, float], list[str]]:
    """Floor, cold build and rebuild, interleaved run by run so that anything else slowing the machine for a
    while slows both sides of a ratio. A failing cold build stops the cold builds, not the floor.
    Returns the rows, the floor's medians (seconds per language, "peak_mib") and the failures."""
    floor: dict[str, list[float]] = {}
    floor_peaks: list[float] = []
    cold: list[Run] = []
    rebuild: list[Run] = []
    failures: list[str] = []
    for run in range(runs):
        project = copy_project(work / f"floor-{run + 1}")
        floor_run = measure_floor(project)
        shutil.rmtree(project)
        for code, measured in floor_run.items():
            floor.setdefault(code, []).append(measured.seconds)
        floor_peaks.append(max(m.peak_mib for m in floor_run.values()))
        log(f"floor run {run + 1}: " + ", ".join(f"{code} {m.seconds:.1f} s" for code, m in floor_run.items()))
        if failures:
            continue
        project = copy_project(work / f"cold-{run + 1}")
        try:
            cold.append(run_measured([PYTHON, "-m", "mkdocs", "build"], project, env(project), "cold build"))
            rebuild.append(run_measured([PYTHON, "-m", "mkdocs", "build"], project, env(project), "rebuild"))
        except BuildFailed as error:
            failures.append(str(error))
            log(f"{str(error).splitlines()[0].rstrip(':')}; the floor goes on alone")
        else:
            log(f"cold run {run + 1}: {cold[-1].seconds:.1f} s, {cold[-1].peak_mib:.0f} MiB; "
                f"rebuild {rebuild[-1].seconds:.1f} s")
        shutil.rmtree(project)

    sums = [sum(times[i] for times in floor.values()) for i in range(runs)]
    floor_s = statistics.median(sums)
    floor_peak = statistics.median(floor_peaks)
    medians = {code: statistics.median(times) for code, times in floor.items()}
    rows = [Row(f"floor: plain Material, {len(floor)} languages one after another (sum)", floor_s, None, "s",
                info=True, runs=sums, ratio=1.0,
                note="; ".join(f"{code} {fmt(t)} s" for code, t in medians.items())
                     + f"; peak memory {floor_peak:.0f} MiB")]

    def seconds_row(what: str, measured: list[Run], budget: float, note: str) -> Row:
        if not measured:
            return Row(what, None, budget, "s", per_floor=True, note="build failed")
        times = [m.seconds for m in measured]
        median = statistics.median(times)
        return Row(what, median, budget, "s", per_floor=True, runs=times, ratio=median / floor_s, note=note)

    rows.append(seconds_row("cold: `mkdocs build`, all languages, fresh copy, no cache", cold, 3.0,
                            "the README's build"))
    rows.append(seconds_row("rebuild: the same build again, nothing changed", rebuild, 1.5,
                            "same copy, its .cache and site/ from the cold build"))
    peaks = [m.peak_mib for m in cold]
    peak = statistics.median(peaks) if peaks else None
    rows.append(Row("peak memory of the cold build (RSS of the process tree)", peak, 1024, "MiB", runs=peaks,
                    ratio=None if peak is None else peak / floor_peak,
                    note="sum over the build and its descendants, 50 ms samples; ratio to the floor's peak"))
    return rows, {**medians, "peak_mib": floor_peak}, failures


def measure_speed_serve(work: Path, runs: int, floor_ja: float | None) -> list[Row]:
    """`mkdocs serve` edits of docs/ja/values.md and docs/en/values.md, in turn, in one server (which previews
    every language); the ratio is to the floor of docs/ja alone."""
    times, rebuilds, by_lang = serve_edits(copy_project(work / "speed-serve"), "speed-serve", "values", runs, 30,
                                           langs=("ja", "en"))
    median = statistics.median(times)
    return [Row("serve: a sentence appended to docs/ja/values.md -> /values/", median, 1.0, "s", runs=times,
                ratio=None if not floor_ja else median / floor_ja,
                note=f"ratio to the docs/ja floor; mkdocs' own Japanese rebuild times {', '.join(rebuilds)} s"),
            Row("serve: a sentence appended to docs/en/values.md -> /en/values/", statistics.median(by_lang["en"]),
                1.0, "s", runs=by_lang["en"], note="the English preview's process rebuilds; Japanese does not")]


def _machine_busy_seconds() -> float:
    """CPU time the whole machine has spent busy (every process, every core), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def measure_tests(work: Path, runs: int) -> list[Row]:
    """`CI=true pytest -q -x` in a fresh copy, `runs` times (each run a new copy: the suite builds the site
    itself, from an empty store). The copy has no .venv: the project's Python runs it, with the copy's src/
    first on PYTHONPATH. The note gives the CPU time the machine spent meanwhile (both cores, every process):
    the suite is CPU-bound, so its time follows the machine's speed at the moment."""
    times, busy, peaks = [], [], []
    for run in range(runs):
        project = copy_project(work / f"tests-{run}")
        environment = {**env(project), "CI": "true"}
        before = _machine_busy_seconds()
        measured = run_measured([VENV_PYTHON, "-m", "pytest", "-q", "-x"], project, environment, "the tests")
        busy.append(_machine_busy_seconds() - before)
        times.append(measured.seconds)
        peaks.append(measured.peak_mib)
    return [Row(f"tests: CI=true pytest -q -x, fresh copy ({runs} run{'s' if runs > 1 else ''})",
                statistics.median(times), 120, "s", runs=times,
                note=f"machine CPU busy {', '.join(f'{b:.0f}' for b in busy)} s; peak memory {max(peaks):.0f} MiB")]


# --------------------------------------------------------------------------------------------------------


def print_table(rows: list[Row]) -> None:
    headers = ("measure", "value (median)", "runs", "x floor", "budget", "verdict", "notes")
    table = []
    for r in rows:
        sign = ">=" if r.higher_is_better else "<="
        value = "-" if r.value is None else f"{fmt(r.value)} {r.unit}".strip()
        runs = ", ".join(fmt(x) for x in r.runs) if len(r.runs) > 1 else ""
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}"
        budget = "-" if r.budget is None else f"{sign} {fmt(r.budget)} {r.budget_unit}".strip()
        table.append((r.what, value, runs, ratio, budget, r.verdict(), r.note))
    widths = [max(len(str(row[i])) for row in [headers, *table]) for i in range(len(headers) - 1)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False)) + "  " + headers[-1])
    print("  ".join("-" * w for w in widths))
    for row in table:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)) + "  " + row[-1])
    budgets = [r for r in rows if not r.info]
    missed = [r for r in budgets if r.ok is False]
    unmeasured = [r for r in budgets if r.ok is None]
    print(f"\n{len(budgets) - len(missed) - len(unmeasured)} of {len(budgets)} within budget, "
          f"{len(missed)} missed, {len(unmeasured)} not measured")


def write_json(path: Path, rows: list[Row], floor: dict[str, float], failures: list[str], repeat: int) -> None:
    """The figures for a later comparison: every row as measured, and what it was measured on."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout)
    data = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "commit": commit,
        "working_tree_changed": dirty,
        "cpus": os.cpu_count(),
        "repeat": repeat,
        "floor_medians": floor,
        "rows": [{**asdict(r), "ok": r.ok, "verdict": r.verdict()} for r in rows],
        "failures": failures,
    }
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    log(f"figures written to {path}")


def main() -> int:
    # Ctrl-C stops this script, and the servers it starts stop on it, even when it was started with SIGINT ignored
    # (a shell's background job): a child inherits an ignored SIGINT, not a Python handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(GROUPS), help=f"comma-separated subset of {','.join(GROUPS)}")
    parser.add_argument("--site", type=Path, help="for (a) and (b): an already built site instead of a new build")
    parser.add_argument("--repeat", type=int, default=RUNS, help=f"runs per median for c, d, speed (default {RUNS})")
    parser.add_argument("--tests", action="store_true", help="also time `CI=true pytest -q -x` in a fresh copy")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures to FILE")
    args = parser.parse_args()
    only = {group.strip() for group in args.only.split(",") if group.strip()}
    if only - set(GROUPS) or args.repeat < 1:
        parser.error(f"--only takes a subset of {','.join(GROUPS)}, --repeat a number >= 1")
    if only & {"a", "b"} and not Path(CHROMIUM).is_file():
        print(f"{CHROMIUM} is missing (apt-get install chromium)", file=sys.stderr)
        return 2
    rows: list[Row] = []
    failures: list[str] = []
    floor: dict[str, float] = {}

    def attempt(what: str, fallback: list[Row], measure: Callable[[], list[Row]]) -> None:
        """Run one measurement; if it breaks, say why, show its rows as not measured, and fail the script."""
        try:
            rows.extend(measure())
        except Exception as error:  # noqa: BLE001 - a benchmark reports and goes on
            log(f"{what} failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
            failures.append(f"{what}: {type(error).__name__}: {error}")
            rows.extend(fallback)

    with tempfile.TemporaryDirectory(prefix="budget-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        site: Path | None = None
        if "c" in only:
            def measure_c() -> list[Row]:
                nonlocal site
                build_rows, site = measure_build(work, args.repeat)
                return build_rows

            attempt("(c)", [Row("(c) cold build, all languages", None, None, "s")], measure_c)
        if only & {"a", "b"}:
            if args.site:
                site = args.site.resolve()
            elif site is None:
                log("building the site once")
                try:
                    site = work / "site-once"
                    build(copy_project(work / "once"), site)
                except BuildFailed as error:
                    failures.append(f"(a, b) the site: {error}")
                    site = None
            if site is None:
                rows += [Row("(a) Lighthouse", None, 95, "points", True), Row("(b) transfer", None, 300, "KB")]
            else:
                built = site
                with serve(built) as url:
                    if "a" in only:
                        attempt("(a)", [Row("(a) Lighthouse", None, 95, "points", True)],
                                lambda: measure_lighthouse(built, url, work))
                    if "b" in only:
                        attempt("(b)", [Row("(b) transfer", None, 300, "KB")],
                                lambda: measure_transfer(built, url))
        if "d" in only:
            attempt("(d)", [Row("(d) mkdocs serve: prose edit -> page", None, 1.0, "s")],
                    lambda: measure_serve(work, args.repeat))
            attempt("(d) exec off", [Row("(d) same, exec off", None, 1.0, "s", info=True)],
                    lambda: measure_serve(work, args.repeat, exec_off=True))
        if "speed" in only:
            def measure_builds() -> list[Row]:
                speed_rows, medians, build_failures = measure_speed(work, args.repeat)
                floor.update(medians)
                failures.extend(f"(speed) {failure}" for failure in build_failures)
                return speed_rows

            attempt("(speed) floor and builds", [Row("floor: plain Material", None, None, "s", info=True)],
                    measure_builds)
        if only & {"speed", "serve"}:  # "serve" alone: the serve rows without the floor's ratio
            attempt("(speed) serve", [Row("serve: docs/ja/values.md edit -> /values/", None, 1.0, "s")],
                    lambda: measure_speed_serve(work, args.repeat, floor.get("ja")))
        if args.tests:
            attempt("(speed) tests", [Row("tests: CI=true pytest -q -x", None, 120, "s")],
                    lambda: measure_tests(work, args.repeat))
        log(f"done in {time.perf_counter() - started:.0f} s")
    print_table(rows)
    if args.json:
        write_json(args.json, rows, floor, failures, args.repeat)
    for failure in failures:
        print(f"\nFAILED {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
