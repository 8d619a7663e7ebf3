#!/usr/bin/env python3
"""Speed budgets of the lesson site, as guard rails: a benchmark to run by hand, not a test. Each figure is the
median of --repeat runs (default 3); builds are judged by their median over the floor's, measured in the same run
(interleaved run by run), so that the figures compare across machines. Standard library only.

floor    plain Material (search, mkdocs.yml's markdown_extensions by name) on each language folder, summed
cold     `python .ci/env mkdocs build --strict` with an empty results store (LESSON_STORE)    <= 3.5 x floor
rebuild  the same build again, its store now warm                                              <= 1.5 x floor
serve    `python .ci/env mkdocs serve`: a marker line appended to docs/ja/values.md until /values/ shows it  <= 1 s
preview  a translator's `LESSON_LANG=<code> python .ci/env mkdocs serve` (the first language folder after ja): the
         same edit of docs/<code>/values.md until /values/ shows it                                  <= 1 s
sfloor   the same edits under plain Material's `mkdocs serve` of docs/ja/ (the floor's configuration): not budgeted
suite    (--suite) `python .ci/env pytest` in a fresh `git clone` of HEAD, its .venv set up first  <= 180 s
audit    (--audit, alone) Lighthouse, mobile, on a lesson page, the formula page and a notebook page of every
         language (audited_pages), served by a plain static server without compression (http.server), judged by
         LHCI's assertions (AUDIT) and a size of at most 150 KB; LHCI from npm into .cache/npm/lhci/, Chromium
         from $CHROME_PATH, else Debian's headless shell or Chromium, else the one LHCI finds

--languages N measures a copy of the project with N language folders: the tree's, then copies of docs/en/ under
more of Material's language codes (the build's cost grows with languages; the floor builds the same folders).

Builds go to a temporary folder, never site/. Exit status 0: all within budget; 1: one over or failed; 2: usage.
"""

from __future__ import annotations

import argparse
import functools
import http.server
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# cold: 3.5, for a lesson whose trained page trains a model at every cold build
BUDGETS = {"floor": None, "cold": 3.5, "rebuild": 1.5, "serve": 1.0, "preview": 1.0, "sfloor": None, "suite": 180.0}
PER_FLOOR = ("cold", "rebuild")  # budgets in multiples of the floor; the others in seconds
ENV = [sys.executable, ".ci/env"]  # the README's `python .ci/env ...`, run from the project's folder
EDITED, PAGE = Path("docs", "ja", "values.md"), "values/"  # in the measured project
MORE = ["de", "fr", "es", "it", "pt", "ru", "ko", "nl", "pl", "sv", "tr", "uk", "vi"]  # codes Material translates
NEW_GROUP = 0x200 if sys.platform == "win32" else 0  # Windows' CREATE_NEW_PROCESS_GROUP; POSIX: a new session
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith("LESSON_")}  # all languages, default store
LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # whatever http_proxy says
LHCI = "@lhci/cli@0.14.0"  # Lighthouse 12.1 (13 needs Node 22); a minScore is met by the best of 3 runs
AUDIT = {"categories:performance": ["error", {"minScore": 0.95}],
         "categories:accessibility": ["error", {"minScore": 1}],
         "resource-summary:document:size": ["error", {"maxNumericValue": 150 * 1024}]}  # as sent: uncompressed


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
    began, proc, code = time.perf_counter(), start(cmd, log, cwd, env), None
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    finally:
        seconds = time.perf_counter() - began
        stop(proc)
    if code != 0:
        raise Failed(f"`{' '.join(cmd[1:])}` " + (f"exited {code}" if code else f"ran over {timeout:.0f} s"), log)
    return seconds


def project_with(languages: int, work: Path) -> Path:
    """The project (ROOT), or a copy of its sources with `languages` language folders in all."""
    have = sorted(d.name for d in (ROOT / "docs").iterdir() if (d / "strings.yml").is_file())
    if languages <= len(have):
        return ROOT
    copy = work / "project"
    for name in ("docs", "snippets", "src"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy2(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    for code in [c for c in MORE if c not in have][:languages - len(have)]:
        shutil.copytree(ROOT / "docs" / "en", copy / "docs" / code)
    return copy


def floor_once(work: Path, project: Path) -> dict[str, list[float]]:
    """One floor run: plain Material on each language folder, one build after another; the sum of seconds."""
    text = (project / "mkdocs.yml").read_text(encoding="utf-8") + "\n"
    block = re.search(r"^markdown_extensions:[^\n]*\n((?:[ \t#-].*\n|\n)*)", text, re.MULTILINE)
    items = re.findall(r"^([ \t]*)- *([\w.]+)", block.group(1) if block else "", re.MULTILINE)
    top = min((len(indent) for indent, _ in items), default=0)
    extensions = [name for indent, name in items  # top-level names: Python-Markdown's, PyMdown's, Material's
                  if len(indent) == top and ("." not in name or name.startswith(("pymdownx.", "material.")))]
    total = 0.0
    for code in sorted(d.name for d in (project / "docs").iterdir() if (d / "strings.yml").is_file()):
        config = work / f"floor-{code}.yml"  # JSON is YAML (sfloor serves floor-ja.yml)
        config.write_text(json.dumps({
            "site_name": f"floor {code}", "docs_dir": str(project / "docs" / code), "site_dir": str(work / "floor"),
            "theme": {"name": "material", "language": code}, "plugins": ["search"],
            "markdown_extensions": extensions, "exclude_docs": "strings.yml\nnotebooks/*.py\n"}))
        total += timed([*ENV, "mkdocs", "build", "--quiet", "-f", str(config)], work / "floor.log", 600)
    return {"floor": [total]}


def builds_once(work: Path, rebuild: bool, project: Path) -> dict[str, list[float]]:
    """The README's strict build with an empty results store, then (if rebuild) the same again."""
    cmd = [*ENV, "mkdocs", "build", "--strict", "-f", str(project / "mkdocs.yml"), "-d", str(work / "site")]
    env = {**BASE_ENV, "LESSON_STORE": tempfile.mkdtemp(prefix="store-", dir=work)}
    times = {"cold": [timed(cmd, work / "cold.log", 1800, env=env)]}
    return times | ({"rebuild": [timed(cmd, work / "rebuild.log", 1800, env=env)]} if rebuild else {})


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
        if server.poll() is not None or time.monotonic() > deadline:
            ended = f"mkdocs serve exited {server.returncode}" if server.poll() is not None else f"{timeout:.0f} s"
            raise Failed(f"{ended} while waiting for {what}", log)
        time.sleep(0.02)


def serve_edits(work: Path, repeat: int, args: list[str], project: Path, lang: str = "") -> list[float]:
    """In one `mkdocs serve` (of `lang` alone if given, as a translator previews it), repeat times: seconds from
    appending a marker line to EDITED (that language's) until PAGE shows it."""
    edited = project / (EDITED.parent.parent / lang / EDITED.name if lang else EDITED)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base, log, times = f"http://127.0.0.1:{port}/", work / "serve.log", []
    env = {**BASE_ENV, "LESSON_LANG": lang} if lang else BASE_ENV
    server = start([*ENV, "mkdocs", "serve", *args, "-a", f"127.0.0.1:{port}"], log, env=env)
    try:
        wait_for(server, log, base, "", True, 900)  # its first build
        for _ in range(repeat):  # letters only: a translation types no number its Japanese paragraph lacks
            marker = "budget-marker-" + "".join(chr(ord("a") + int(c)) for c in str(time.time_ns()))
            line = f"\n\n{marker}\n".encode()
            try:
                edited.write_bytes(edited.read_bytes() + line)
                began = time.perf_counter()
                wait_for(server, log, base + PAGE, marker, True, 60)
                times.append(time.perf_counter() - began)
            finally:  # always remove the line, ours only (someone else may edit the file meanwhile)
                edited.write_bytes(edited.read_bytes().replace(line, b""))
            wait_for(server, log, base + PAGE, marker, False, 60)  # the restored page
            time.sleep(0.5)
    finally:
        stop(server, ctrl_c=True)
    return times


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


def audited_pages(site: Path) -> list[Path]:
    """Per language, the built page of each kind, chosen from docs/ja/: the largest lesson page (a page that runs
    code and has no formula), the largest page with a ```math formula, the largest notebook."""
    docs = ROOT / "docs" / "ja"
    kinds: dict[str, list[tuple[int, str]]] = {"lesson": [], "formula": [], "notebook": []}
    for path in sorted([*docs.glob("*.md"), *docs.glob("notebooks/*.py")]):
        text, address = path.read_text(encoding="utf-8"), path.relative_to(docs).with_suffix("").as_posix()
        address = "" if address == "index" else address
        kind = ("notebook" if path.suffix == ".py" else "formula" if re.search(r"^\s*```+\s*math\b", text, re.M)
                else "lesson" if re.search(r"^\s*```+\s*python\b.*\bexec=\"on\"", text, re.M) else None)
        if kind:
            kinds[kind].append(((site / address / "index.html").stat().st_size, address))
    codes = sorted(d.name for d in (ROOT / "docs").iterdir() if (d / "strings.yml").is_file())
    chosen = [max(found)[1] for found in kinds.values() if found]
    return [site / ("" if code == "ja" else code) / address / "index.html" for code in codes for address in chosen]


class Plain(http.server.SimpleHTTPRequestHandler):
    """The site's files as they are: no compression, no cache headers; connections kept open (a plain static host)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass


def audit(work: Path) -> bool:
    """Lighthouse on audited_pages; True if LHCI's assertions hold and no page is over 150 KB."""
    prefix, site, cache = ROOT / ".cache" / "npm" / "lhci", work / "site", ROOT / ".cache" / "lighthouse"
    if not (prefix / "node_modules" / ".bin" / "lhci").exists():
        timed(["npm", "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund", "--ignore-scripts",
               "--loglevel=error", "-E", LHCI], work / "npm.log", 900)
    timed([*ENV, "mkdocs", "build", "--strict", "-d", str(site)], work / "build.log", 1800)
    pages = audited_pages(site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Plain, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    urls = [base + page.parent.relative_to(site).as_posix() + "/" for page in pages]
    chrome = os.environ.get("CHROME_PATH") or next(
        (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(path).is_file()), None)
    flags = "--headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run"
    (work / "lighthouserc.json").write_text(json.dumps({"ci": {"assert": {"assertions": AUDIT}, "collect": {
        "url": urls, "settings": {"chromeFlags": flags}, **({"chromePath": chrome} if chrome else {})},
        "upload": {"target": "filesystem", "outputDir": str(cache)}}}))
    shutil.rmtree(cache, ignore_errors=True)
    try:
        ok = subprocess.run([str(prefix / "node_modules" / ".bin" / "lhci"), "autorun"], cwd=work).returncode == 0
    finally:
        server.shutdown()
    for run in json.loads((cache / "manifest.json").read_text(encoding="utf-8")):  # each page's median run of 3
        page = site / run["url"].removeprefix(base) / "index.html"
        if run["isRepresentativeRun"]:
            print(page.parent.relative_to(site).as_posix(), f"{page.stat().st_size / 1024:.1f} KB",
                  {name: round(score * 100) for name, score in run["summary"].items()})
    return ok and all(page.stat().st_size <= 150 * 1024 for page in pages)


def measure(only: set[str], repeat: int, work: Path, project: Path) -> tuple[dict[str, list[float]], dict[str, str]]:
    """The seconds of every run of the chosen measures, and why a measure failed (its runs end there)."""
    times: dict[str, list[float]] = {name: [] for name in BUDGETS if name in only}
    errors: dict[str, str] = {}
    floor, lesson = ["-f", str(work / "floor-ja.yml")], ["-f", str(project / "mkdocs.yml")]
    runs = [(["floor"], lambda: floor_once(work, project)),
            (["cold", "rebuild"], lambda: builds_once(work, "rebuild" in only, project))]
    translated = sorted(p.parent.name for p in project.glob("docs/*/strings.yml") if p.parent.name != "ja")[:1]
    for names, once in runs * repeat + [(["serve"], lambda: {"serve": serve_edits(work, repeat, lesson, project)}),
                                        (["preview"], lambda: {"preview": serve_edits(work, repeat, lesson, project,
                                                                                      *translated)}),
                                        (["sfloor"], lambda: {"sfloor": serve_edits(work, repeat, floor, project)}),
                                        (["suite"], lambda: suite_runs(work, repeat))]:
        chosen = [name for name in names if name in only]
        if not chosen or any(name in errors for name in chosen):
            continue
        try:
            for name, seconds in once().items():
                times.get(name, []).extend(seconds)  # not kept: the cold build that a rebuild alone needs
                print(f"[budget] {name}: {', '.join(f'{t:.2f} s' for t in seconds)}", file=sys.stderr)
        except (Failed, OSError) as error:
            errors.update(dict.fromkeys(chosen, str(error)))
    return times, errors


def report(times: dict[str, list[float]], errors: dict[str, str]) -> bool:
    """Print a line per measure (and each failure on stderr); True if every measure is within its budget."""
    floor, within = statistics.median(times["floor"]) if times.get("floor") else None, not errors
    for name, runs in times.items():
        if name in errors or not runs or (name in PER_FLOOR and floor is None):
            print(f"{name:8} {'failed' if name in errors else 'no floor'}")
            continue
        median, budget = statistics.median(runs), BUDGETS[name]
        value, unit = (median / floor, " x floor") if name in PER_FLOOR else (median, " s")
        within = within and (budget is None or value <= budget)
        sfloor = statistics.median(times["sfloor"]) if name == "serve" and times.get("sfloor") else None
        ratio = f" = {value:.2f}{unit}" if name in PER_FLOOR else f" = {median / sfloor:.2f} x sfloor" if sfloor else ""
        verdict = "" if budget is None else f"  (budget <= {budget:g}{unit}: {'ok' if value <= budget else 'over'})"
        print(f"{name:8} {median:.2f} s ({min(runs):.2f}-{max(runs):.2f} s){ratio}{verdict}")
    for error in dict.fromkeys(errors.values()):  # cold and rebuild fail together
        print(f"\n{', '.join(n for n in errors if errors[n] == error)} failed: {error}", file=sys.stderr)
    return within and all(times.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.error = lambda message: parser.exit(2, f"budget.py: {message} (see --help)\n")  # one line, not the usage
    parser.add_argument("--repeat", type=int, default=3, metavar="N", help="runs per median (default 3)")
    parser.add_argument("--only", metavar="LIST", default="floor,cold,rebuild,serve,preview",
                        help=f"comma-separated, from {','.join(BUDGETS)} (default all but suite)")
    parser.add_argument("--suite", action="store_true", help="also time the test suite in a fresh clone")
    parser.add_argument("--audit", action="store_true", help="instead, Lighthouse on a page of each kind")
    parser.add_argument("--languages", type=int, default=0, metavar="N",
                        help="measure a copy with N language folders (copies of docs/en/ added)")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()} | ({"suite"} if args.suite else set())
    if not only or only - set(BUDGETS):
        parser.error(f"--only takes names from {','.join(BUDGETS)}, not {args.only!r}")
    if args.repeat < 1:
        parser.error(f"--repeat takes a whole number >= 1, not {args.repeat}")
    with tempfile.TemporaryDirectory(prefix="budget-") as work:
        if args.audit:
            return 0 if audit(Path(work)) else 1
        only |= {"sfloor"} if "serve" in only else set()
        only |= {"floor"} if only & {*PER_FLOOR, "sfloor"} else set()  # multiples of it; sfloor serves its config
        project = project_with(args.languages, Path(work))
        print(f"[budget] {len(list(project.glob('docs/*/strings.yml')))} language folders in {project}",
              file=sys.stderr)
        return 0 if report(*measure(only, args.repeat, Path(work), project)) else 1


if __name__ == "__main__":
    sys.exit(main())
