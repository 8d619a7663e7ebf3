#!/usr/bin/env python3
"""Performance budgets of the lesson site. A benchmark to run by hand, not a test: it prints a table.

    .venv/bin/python .ci/budget.py            # everything (about 10 minutes on a 2-core machine)
    .venv/bin/python .ci/budget.py --only b,c # some of it

(a) Lighthouse 12.2.3 (pinned in .ci/package.json; ``npm ci --prefix .ci`` installs it), mobile emulation
    with Lighthouse's default simulated throttling, on every page of the Japanese site: performance >= 95,
    accessibility = 100.
(b) What a page transfers, gzip-compressed, apart from the search index: the HTML and every asset the page
    and its search worker load (URLs as Chromium requested them, each counted once), <= 300 KB.
(c) A cold build of every language (fresh process, empty site folder, no .cache/notebooks) <= 1.5 x (the
    same build with code execution disabled + one ``import torch`` in a fresh interpreter). Medians of 3.
    markdown-exec has no switch (no environment variable or option turns it off), so "disabled" is a copy
    of the project with every ``exec="on"`` fence set to ``exec="off"``, and the hook's exercise notebooks
    come from that copy's warmed .cache/notebooks instead of running.
(d) ``mkdocs serve``: a prose edit of a Japanese page until the served page has it, <= 1 s. Median of 3.
    Shown beside it, without a budget: the same on an exec="off" copy, the floor a cache of markdown-exec's
    output could reach. (``--dirty`` is no way out: with ``strict: true`` its own warning aborts the build.)

Everything runs on throwaway copies of the project (never the working tree) and a local server on 127.0.0.1
that gzips text the way a static host does. Needs Debian's /usr/bin/chromium and Node 20.
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
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci"
PYTHON = sys.executable
CHROMIUM = os.environ.get("LESSON_CHROMIUM", "/usr/bin/chromium")  # as in tests/test_browser.py
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
RUNS = 3
IGNORE = shutil.ignore_patterns(
    ".venv", "site", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".cache", "node_modules"
)
# A markdown-exec fence that runs: exec="on" / "1" / "true" / "yes" (markdown-exec has no global switch).
EXEC_ON = re.compile(r"""\bexec=(["']?)(?:on|1|true|yes)\1""", re.IGNORECASE)
NOT_LESSONS = {"translation-status/"}  # generated for translators, not a lesson page
TEXT_TYPES = (".html", ".css", ".js", ".json", ".xml", ".svg", ".txt", ".map", ".ipynb")


@dataclass
class Row:
    what: str
    value: float | None
    budget: float
    unit: str
    higher_is_better: bool = False
    note: str = ""
    info: bool = False  # shown for comparison, not a budget


    @property
    def ok(self) -> bool | None:
        if self.value is None or self.info:
            return None
        return self.value >= self.budget if self.higher_is_better else self.value <= self.budget

    def verdict(self) -> str:
        if self.info:
            return "(info, no budget)"
        if self.ok is None:
            return "not measured"
        if self.ok:
            return "ok"
        miss = abs(self.value - self.budget)
        pct = miss / self.budget * 100 if self.budget else float("inf")
        return f"MISSED by {fmt(miss)} {self.unit} ({pct:.0f} %)".replace("  ", " ")


def fmt(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 100 or float(x).is_integer() else f"{x:.2f}"


def log(message: str) -> None:
    print(f"[budget {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------------
# Copies, builds, servers


def copy_project(dest: Path, exec_off: bool = False) -> Path:
    shutil.copytree(ROOT, dest, ignore=IGNORE)
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


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k != "LESSON_LANG"}
    e["NO_MKDOCS_2_WARNING"] = "1"
    return e


def build(project: Path, site: Path) -> float:
    """One `mkdocs build --strict` of every language in a fresh process into an empty folder: seconds."""
    shutil.rmtree(site, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.run([PYTHON, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=project,
                          env=env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"build of {project} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return elapsed


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


def measure_build(work: Path) -> tuple[list[Row], Path]:
    full = copy_project(work / "full")
    noexec = copy_project(work / "noexec", exec_off=True)
    log("warming the no-exec copy's notebook cache (so that its builds execute nothing)")
    build(noexec, work / "site-noexec")
    times_full, times_noexec, times_torch = [], [], []
    for run in range(RUNS):
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
        Row("(c) cold build, all languages (median of 3)", full_s, budget, "s",
            note=f"budget 1.5 x ({noexec_s:.1f} s no-exec build + {torch_s:.2f} s import torch); "
                 f"runs {', '.join(f'{t:.1f}' for t in times_full)}"),
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


def measure_serve(work: Path, exec_off: bool = False) -> list[Row]:
    """Start `mkdocs serve` on a copy, append a line to docs/ja/averaging.md, time until the page has it."""
    label = "serve-noexec" if exec_off else "serve"
    project = copy_project(work / label, exec_off=exec_off)
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    output = (work / f"{label}.log").open("w")
    server = subprocess.Popen(
        [PYTHON, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"], cwd=project, env=env(),
        stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
    )

    def alive() -> None:
        if server.poll() is not None:
            output.flush()
            tail = Path(output.name).read_text(encoding="utf-8", errors="replace")[-2000:]
            raise RuntimeError(f"mkdocs serve ({label}) exited {server.returncode}:\n{tail}")

    try:
        wait_until(lambda: alive() or fetch(base) is not None, timeout=600, what="mkdocs serve's first build")
        page = project / "docs" / "ja" / "averaging.md"
        times = []
        for run in range(RUNS):
            marker = f"予算計測の編集 {run}-{time.time_ns()}"
            original = page.read_text(encoding="utf-8")
            page.write_text(original + f"\n{marker}\n", encoding="utf-8")
            start = time.perf_counter()
            wait_until(lambda m=marker: alive() or marker_served(base + "averaging/", m), timeout=600,
                       what="the edit")
            times.append(time.perf_counter() - start)
            log(f"{label} edit {run + 1}: {times[-1]:.2f} s")
            time.sleep(1.5)  # let the rebuild settle before the next edit
        rebuilds = re.findall(r"Documentation built in ([0-9.]+) seconds", Path(output.name).read_text())[1:]
        note = f"runs {', '.join(f'{t:.2f}' for t in times)}; mkdocs' own rebuild times {', '.join(rebuilds)} s"
        if exec_off:
            return [Row("(d) same, exec=\"off\" copy (what an exec cache could reach)", statistics.median(times),
                        1.0, "s", note=note, info=True)]
        return [Row("(d) mkdocs serve: prose edit -> page (median of 3)", statistics.median(times), 1.0, "s",
                    note=note)]
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)  # the session this script started, nothing else
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        output.close()


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


def print_table(rows: list[Row]) -> None:
    headers = ("measure", "value", "budget", "verdict", "notes")
    table = []
    for r in rows:
        sign = ">=" if r.higher_is_better else "<="
        value = "-" if r.value is None else f"{fmt(r.value)} {r.unit}".strip()
        table.append((r.what, value, f"{sign} {fmt(r.budget)} {r.unit}".strip(), r.verdict(), r.note))
    widths = [max(len(str(row[i])) for row in [headers, *table]) for i in range(4)]
    line = "  ".join("-" * w for w in widths)
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False)) + "  " + headers[4])
    print(line)
    for row in table:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)) + "  " + row[4])
    budgets = [r for r in rows if not r.info]
    missed = [r for r in budgets if r.ok is False]
    unmeasured = [r for r in budgets if r.ok is None]
    print(f"\n{len(budgets) - len(missed) - len(unmeasured)} of {len(budgets)} within budget, "
          f"{len(missed)} missed, {len(unmeasured)} not measured")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="a,b,c,d", help="comma-separated subset of a,b,c,d")
    parser.add_argument("--site", type=Path, help="for (a) and (b): an already built site instead of a new build")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if not Path(CHROMIUM).is_file():
        print(f"{CHROMIUM} is missing (apt-get install chromium)", file=sys.stderr)
        return 2
    rows: list[Row] = []

    def attempt(what: str, fallback: list[Row], measure: Callable[[], list[Row]]) -> None:
        """Run one measurement; if it breaks, say why and show its rows as not measured."""
        try:
            rows.extend(measure())
        except Exception as error:  # noqa: BLE001 - a benchmark reports and goes on
            log(f"{what} failed: {type(error).__name__}: {error}")
            rows.extend(fallback)

    with tempfile.TemporaryDirectory(prefix="budget-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        site: Path | None = None
        if "c" in only:
            def measure_c() -> list[Row]:
                nonlocal site
                build_rows, site = measure_build(work)
                return build_rows

            attempt("(c)", [Row("(c) cold build, all languages", None, 0, "s")], measure_c)
        if only & {"a", "b"}:
            if args.site:
                site = args.site.resolve()
            elif site is None:
                log("building the site once")
                site = work / "site-once"
                build(copy_project(work / "once"), site)
            with serve(site) as url:
                if "a" in only:
                    attempt("(a)", [Row("(a) Lighthouse", None, 95, "points", True)],
                            lambda: measure_lighthouse(site, url, work))
                if "b" in only:
                    attempt("(b)", [Row("(b) transfer", None, 300, "KB")], lambda: measure_transfer(site, url))
        if "d" in only:
            attempt("(d)", [Row("(d) mkdocs serve: prose edit -> page", None, 1.0, "s")],
                    lambda: measure_serve(work))
            attempt("(d) exec off", [Row("(d) same, exec off", None, 1.0, "s", info=True)],
                    lambda: measure_serve(work, exec_off=True))
        log(f"done in {time.perf_counter() - started:.0f} s")
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
