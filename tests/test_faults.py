"""Faults injected into throwaway copies of the project: Ctrl-C, two builds at once, a store that cannot be
written or fills up, an editor's mistake under `mkdocs build` and `mkdocs serve`.

What a user sees then: one clear line, never a traceback, a hang or a page that mixes two runs; nothing of an
interrupted block in the store; and the site published last stays whole until a build succeeds. Every case
has a store of its own (empty at first, so the code really runs), one slim copy of the project serves them all
(the pages the faults need, two languages), and all but the concurrent builds build Japanese alone.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import commands
import pytest
from conftest import build_site, command_env, copy_project, ctrl_c_as_in_a_terminal, slim, start_serve, stop_as_ctrl_c
from test_claims import _legend_slope, _prose, _table

TRACEBACK = "Traceback (most recent call last)"
LAST_SITE = "<!doctype html><title>the site published last</title>\n"


PAGES = ["index.md", "averaging.md", "query-key.md", "cost.md", "translation-status.md"]
"""The pages the faults need: averaging.py and scoring.py to break, the cost page whose measurement is
interrupted and shared, and the status page every language shares (the last page a build renders)."""
LANGUAGES = ["ja", "en"]
"""Two languages show whether every language shows one run."""


LENGTHS = {"[1000, 2000, 4000]": "[500, 1000, 2000]", "table[1000]": "table[500]", "table[4000]": "table[2000]"}
"""The cost listing's sequence lengths in the copy, halved: the same listing, table, prose and figures, each
measured in a fifth of the time (the T = 4000 products are most of it). What the faults test is the build's
handling of a measurement, not the machine's speed."""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """One slim copy of the project (conftest.slim: PAGES in LANGUAGES, no notebooks; each cold build runs a
    third of the site's code, and every fault still has its page; the cost listing at LENGTHS) for the whole
    module: a case that edits it puts it back."""
    project = slim(copy_project(tmp_path_factory.mktemp("faults")), PAGES, LANGUAGES)
    cost = project / "snippets" / "cost.py"
    code = cost.read_text(encoding="utf-8")
    for listed, halved in LENGTHS.items():
        assert listed in code, f"snippets/cost.py no longer has {listed}: update LENGTHS"
        code = code.replace(listed, halved)
    cost.write_text(code, encoding="utf-8")
    return project


def _env(project: Path, store: Path, lang: str | None = "ja") -> dict[str, str]:
    """A build's environment: the copy's own src/ first, the given store, one language (None: every one)."""
    return command_env(project, {"LESSON_STORE": str(store), **({"LESSON_LANG": lang} if lang else {})})


def _build(project: Path, store: Path, site: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict -d site` of Japanese with `store`, in this process (the copy's code is the
    package's: only its docs are cut down): what it prints, the plugin's one-line warnings among it, and its
    exit status, as the command's own."""
    return build_site(project, site, env={"LESSON_LANG": "ja", "LESSON_STORE": str(store)}, check=False)


def _files(site: Path) -> dict[str, str]:
    """Every file of a site and a digest of its bytes."""
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def _last_site(site: Path) -> dict[str, str]:
    """A site published earlier in `site` (what a failed build must leave as it was)."""
    site.mkdir(parents=True)
    (site / "index.html").write_text(LAST_SITE, encoding="utf-8")
    (site / "averaging").mkdir()
    (site / "averaging" / "index.html").write_text(LAST_SITE, encoding="utf-8")
    return _files(site)


def _left_behind(site: Path) -> list[str]:
    """What a build leaves beside its site folder: a building folder, a replaced site not removed."""
    return sorted(p.name for p in site.parent.glob(f".{site.name}-*"))


@contextlib.contextmanager
def _edited(path: Path, added: str) -> Iterator[int]:
    """The file with `added` appended for the duration (commands.edited puts it back); yields the number of the
    first added line."""
    original = path.read_text(encoding="utf-8").rstrip("\n")
    with commands.edited(path, original + "\n" + added):
        yield len(original.splitlines()) + 1


# -- the cost page: one run, whatever the build did -----------------------------------------------------------

def _page(site: Path, lang: str, page: str) -> str:
    return (site / ("" if lang == "ja" else lang) / page / "index.html").read_text(encoding="utf-8")


def _languages(site: Path) -> list[str]:
    """The languages a build published: Japanese at the root, every other one in its folder (a build of one
    language, `LESSON_LANG=en`, writes only its folder)."""
    return [*(["ja"] if (site / "cost" / "index.html").is_file() else []),
            *sorted(p.parent.parent.name for p in site.glob("*/cost/index.html"))]


def _one_run(site: Path, lang: str) -> list[list[str]]:
    """The cost page's table, once it is checked that the page's prose and its time figure quote that table:
    the exponents as printed, the time ratios per doubling of T within what the printed times allow (they are
    rounded to 0.1 ms), the figure's legend slope. A page mixing two runs fails here."""
    raw = _page(site, lang, "cost")
    *rows, exponents = _table(raw)
    prose = _prose(re.sub(r"<figure\b.*?</figure>", "", raw, flags=re.S))
    stated = [float(v) for v in re.findall(r"-?\d+\.\d+", prose)]  # a loaded machine can print a negative exponent
    where = f"{site.name}/{lang}/cost"
    exact = {float(exponents[1]), float(exponents[3])}  # the head's time and memory exponents
    assert exact <= set(stated), f"{where}: the prose quotes {stated}, the table's exponents are {exponents}"
    times = [float(row[1]) for row in rows]
    allowed = [((after - 0.05) / (before + 0.05) - 0.05, (after + 0.05) / (before - 0.05) + 0.05)
               for before, after in zip(times, times[1:], strict=False)]
    for low, high in (min(allowed), max(allowed)):  # the lowest and the highest ratio per doubling
        assert any(low <= v <= high for v in stated), f"{where}: no ratio in [{low:.2f}, {high:.2f}]: {stated}"
    assert all(v in exact or any(low <= v <= high for low, high in allowed) for v in stated), (
        f"{where}: the prose states {stated}, not all of them what the table's times {times} give")
    assert _legend_slope(raw, lang, "fig_legend_naive") == exponents[1], f"{where}: the figure is of another run"
    return [row[1:] for row in [*rows, exponents]]  # the first column names the row in the page's language


# Two clean builds differ only where the machine's speed is printed: the cost page (its table, the ratios the
# prose quotes and the figures drawn from them), the exercise-3 notebook (its times, page and .ipynb), and the
# search index's text of those pages (the figures' axis labels among it). Those pages are compared with every
# decimal number (and its column padding) blanked and the figures left out, which keeps their whole structure;
# the cost page's consistency (table, prose and figure of one run) is checked apart by _one_run. The search
# index is compared entry by entry, the timed pages' entries by address and title. Every other file must be
# the same, byte for byte.
TIMED = ("cost/", "notebooks/exercise-3/")
SEARCH = "search/search_index.json"


def _untimed(text: str) -> str:
    # a time, a ratio or an exponent, with its sign (a loaded machine can make a time shorter at a larger T)
    return re.sub(r" *-?\d+\.\d+", " #", re.sub(r"<svg\b.*?</svg>", "<svg/>", text, flags=re.S))


def _search_entries(site: Path) -> list[tuple[str, ...]]:
    docs = json.loads((site / SEARCH).read_text(encoding="utf-8"))["docs"]
    return [(doc["location"], doc["title"], *([] if doc["location"].startswith(TIMED) else [doc["text"]]))
            for doc in docs]


def _assert_same_pages(site: Path, reference: Path) -> None:
    files, expected = _files(site), _files(reference)
    assert files.keys() == expected.keys(), f"{site}: files differ: {sorted(files.keys() ^ expected.keys())}"
    for name, digest in expected.items():
        if name == SEARCH:
            assert _search_entries(site) == _search_entries(reference), f"{name}: not what a clean build indexes"
        elif name.startswith(TIMED):
            shown, clean = ((root / name).read_text(encoding="utf-8") for root in (site, reference))
            assert _untimed(shown) == _untimed(clean), f"{name}: not the page a clean build gives"
        else:
            assert files[name] == digest, f"{name}: not the page a clean build gives"


# -- a store that cannot be written ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference(project, tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path, Path]:
    """A build whose store cannot be written (its parent is a file: mkdir fails for root too, where a
    read-only folder would not stop it): it runs every block in a private store, so it is also a clean build
    from an empty store, which the other cases compare with. (the build, its site, the store it was given)"""
    folder = tmp_path_factory.mktemp("unwritable")
    (folder / "a-file").write_text("", encoding="utf-8")
    store, site = folder / "a-file" / "runs", folder / "site"
    return _build(project, store, site), site, store


def test_a_store_that_cannot_be_written_is_one_warning_and_the_build_succeeds(reference):
    proc, site, store = reference
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    warnings = [line for line in output.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1, output[-3000:]
    assert str(store) in warnings[0] and "private store" in warnings[0], warnings[0]
    assert "point LESSON_STORE at a writable folder" in warnings[0], warnings[0]  # the fix
    assert TRACEBACK not in output
    private = re.search(r"private store, (\S+),", warnings[0])[1]
    assert not Path(private).exists(), "the private store outlived the build"
    assert (site / "cost" / "index.html").is_file()
    _one_run(site, "ja")


# -- Ctrl-C ---------------------------------------------------------------------------------------------------

def _interrupt(project: Path, store: Path, site: Path, after: str, delay: float) -> tuple[int, str]:
    """`mkdocs build -v` (its output names each page read and each block run) sent SIGINT, as Ctrl-C does,
    `delay` seconds after it prints a line holding `after`. (exit status, output)"""
    lines, sent = [], None
    with ctrl_c_as_in_a_terminal():  # the build starts with the default disposition, as typed in a terminal
        proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--strict", "-v", "-d", str(site)],
                                cwd=project, env=_env(project, store), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, encoding="utf-8", errors="replace")
    with proc:
        watchdog = threading.Timer(180, proc.kill)  # a build that ignores the interrupt: fail, do not hang
        watchdog.start()
        try:
            for line in proc.stdout:
                lines.append(line)
                if sent is None and after in line:
                    sent = threading.Timer(delay, proc.send_signal, [signal.SIGINT])
                    sent.start()
            proc.wait()
        finally:
            watchdog.cancel()
            if sent is not None:
                sent.cancel()
    output = "".join(line for line in lines if not line.startswith("DEBUG"))
    assert sent is not None, f"the build never printed {after!r}:\n{output[-3000:]}"
    return proc.returncode, output


NO_SIGINT = sys.platform == "win32"
INTERRUPTS = {
    "after it made its building folder": ("Building documentation to directory", 0.0),
    "in the cost page's measurement": ("Reading: cost.md", 1.0),
    "right after the cost listing ran, before its figures": ("Ran docs/ja/cost.md: snippets/cost.py in", 0.0),
}


@pytest.fixture(scope="module")
def interrupted(project, reference, tmp_path_factory) -> dict:
    """Builds of Japanese interrupted at each point of INTERRUPTS, one after the other, sharing one store that
    starts empty, over a site published before (the clean build's)."""
    folder = tmp_path_factory.mktemp("interrupted")
    store, site = folder / "runs", folder / "site"
    store.mkdir()
    shutil.copytree(reference[1], site)
    published = _files(site)
    outcomes = {}
    for point, (after, delay) in {} if NO_SIGINT else INTERRUPTS.items():
        returncode, output = _interrupt(project, store, site, after, delay)
        outcomes[point] = returncode, output, _files(site) == published, _left_behind(site)
    return {"store": store, "site": site, "outcomes": outcomes}


@pytest.mark.skipif(NO_SIGINT, reason="Ctrl-C cannot be sent to one process on Windows (CTRL_C_EVENT reaches "
                                      "every process of the console, pytest's included)")
def test_an_interrupted_build_stores_nothing_of_its_block_and_publishes_nothing(interrupted):
    for point, (returncode, output, kept, left) in interrupted["outcomes"].items():
        assert returncode != 0, f"interrupted {point}: exited 0\n{output[-2000:]}"
        assert TRACEBACK not in output, f"interrupted {point}:\n{output[-3000:]}"
        assert kept, f"interrupted {point}: the site published before was changed"
        assert not left, f"interrupted {point}: left {left} beside the site"
    entries = list(interrupted["store"].rglob("*.json"))
    assert entries, "nothing was stored before the interrupts"
    for entry in entries:
        text = entry.read_text(encoding="utf-8")
        assert "Traceback" not in text and "KeyboardInterrupt" not in text, f"{entry}: an interrupted block's output"


@pytest.fixture(scope="module")
def rebuilt(project, interrupted) -> subprocess.CompletedProcess:
    """The build after the interrupts, with their store, into their site folder."""
    return _build(project, interrupted["store"], interrupted["site"])


def test_a_rebuild_after_interrupts_gives_the_pages_of_a_clean_build(rebuilt, interrupted, reference):
    assert rebuilt.returncode == 0, (rebuilt.stdout + rebuilt.stderr)[-3000:]
    site = interrupted["site"]
    assert not _left_behind(site)
    _one_run(site, "ja")
    _assert_same_pages(site, reference[1])


# -- an editor's mistake --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def warm_store(interrupted, rebuilt) -> Path:
    """A store holding every Japanese result (the rebuild's): a build or server with it runs nothing."""
    assert rebuilt.returncode == 0
    return interrupted["store"]


MISTAKES = {
    "a syntax error": ("scoring.py", "if weights.sum() > 0\n    print(weights)\n"),
    "an unclosed bracket": ("averaging.py", "weights = torch.ones(5, 5)(\n"),
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_a_mistake_in_a_snippet_names_its_file_and_line_in_one_line(project, warm_store, tmp_path, mistake):
    snippet, added = MISTAKES[mistake]
    site = tmp_path / "site"
    published = _last_site(site)
    with _edited(project / "snippets" / snippet, added) as line:
        proc = build_site(project, site, env={"LESSON_LANG": "ja", "LESSON_STORE": str(warm_store)}, check=False)
    assert proc.returncode == 1, proc.stderr[-3000:]
    named = [text for text in proc.stderr.splitlines() if f"snippets/{snippet}:{line}: SyntaxError" in text]
    assert len(named) == 1, proc.stderr[-3000:]
    assert TRACEBACK not in proc.stderr
    assert _files(site) == published and not _left_behind(site)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, timeout: float = 10) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", errors="replace")


def test_serve_shows_a_mistake_at_once_and_recovers_when_it_is_undone(project, warm_store, tmp_path):
    """Under `mkdocs serve`, an unclosed bracket saved in a listing: the page answers, naming the mistake,
    within 2 s of the failed rebuild (MkDocs alone would keep every request waiting for a build that
    succeeds); undoing the edit brings the page back. Then Ctrl-C stops it, exit 0, and it leaves nothing in the
    temporary folder (the served site, the previews in it)."""
    port, lines = _free_port(), []
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    server = start_serve(project, port, {**_env(project, warm_store), "TMPDIR": str(temporary)}, encoding="utf-8",
                         errors="replace")

    def read() -> None:
        for line in server.stdout:
            lines.append((time.monotonic(), line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    page = f"http://127.0.0.1:{port}/averaging/"

    def logged(text: str, since: int, seconds: float) -> float:
        """When the server printed a line holding `text` (after its first `since` lines)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = [at for at, line in lines[since:] if text in line]
            if found:
                return found[0]
            assert server.poll() is None, "".join(line for _, line in lines)[-3000:]
            time.sleep(0.05)
        pytest.fail(f"the server never printed {text!r}:\n" + "".join(line for _, line in lines)[-3000:])

    try:
        logged("Serving on", 0, 120)
        assert _get(page)[0] == 200
        with _edited(project / "snippets" / "averaging.py", "weights = torch.ones(5, 5)(\n") as line:
            failed = logged("The pages show what is wrong", len(lines), 60)
            mistake, answer = f"snippets/averaging.py:{line}", ""
            while mistake not in answer:
                assert time.monotonic() < failed + 2, f"{page} did not name the mistake in 2 s: {answer[-500:]}"
                try:
                    answer = _get(page, timeout=2)[1]
                except OSError as error:  # a request left waiting is the hang this guards against
                    pytest.fail(f"{page} did not answer after a failed rebuild: {error}")
        deadline = time.monotonic() + 60
        while (status := _get(page))[0] != 200 or mistake in status[1]:
            assert time.monotonic() < deadline, f"{page} did not recover: {status[0]} {status[1][-500:]}"
            time.sleep(0.1)
        assert list(temporary.iterdir()), "the server's site is not in the temporary folder it was given"
    finally:
        status = stop_as_ctrl_c(server)
        reader.join(timeout=10)
        server.stdout.close()
    printed = "".join(line for _, line in lines)
    assert TRACEBACK not in printed and "KeyboardInterrupt" not in printed, printed[-3000:]
    if not NO_SIGINT:
        assert status == 0, f"mkdocs serve exited {status} on Ctrl-C:\n{printed[-3000:]}"
        assert not list(temporary.iterdir()), f"left in the temporary folder: {list(temporary.iterdir())}"


# -- a full store ---------------------------------------------------------------------------------------------

@contextlib.contextmanager
def _small_disk(folder: Path) -> Iterator[bool]:
    """`folder` as a disk of 8 KiB (two pages of memory: two entries fill it), where this user may mount one
    (root on Linux); yields whether it is one."""
    mounted = sys.platform.startswith("linux") and os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(folder)], capture_output=True).returncode == 0
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], check=True)


def test_a_full_store_stops_the_build_in_one_line_and_keeps_the_last_site(project, tmp_path, monkeypatch):
    """A disk that fills during the build: a real one (a small tmpfs) where it can be mounted, otherwise every
    entry's write failing with ENOSPC, in a build in this process."""
    disk, site = tmp_path / "disk", tmp_path / "site"
    disk.mkdir()
    published = _last_site(site)
    store = disk / "runs"
    with _small_disk(disk) as mounted:
        if not mounted:
            from attention_lesson.site import store as results

            write = results.write_atomically

            def full(path: Path, text: str) -> None:
                if path.suffix == ".json":  # an entry; the store's check that it can write passes
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                write(path, text)

            monkeypatch.setattr(results, "write_atomically", full)
        proc = _build(project, store, site)
        output = proc.stderr
    assert proc.returncode == 1, output[-3000:]
    named = [line for line in output.splitlines() if f"the results store {store} cannot be written" in line]
    assert len(named) == 1 and re.search(r"-  \S+.*: the results store", named[0]), output[-3000:]  # what, where
    assert "No space left on device" in named[0] and "free disk space" in named[0], named[0]
    assert TRACEBACK not in output
    assert _files(site) == published and not _left_behind(site)


# -- two builds at once ---------------------------------------------------------------------------------------

def test_two_builds_at_once_with_one_store_show_one_run_in_every_language(project, tmp_path):
    """Two `mkdocs build`s started together with one empty store, one of every language and a translator's of
    English alone (`LESSON_LANG=en`), whose cost page runs the same blocks under the same keys as the Japanese
    page: both succeed; on each site, every language's cost page shows one run (table, prose and figure
    agree), and the same one. Each language's cache of rendered notebooks holds one no build reads, which both
    builds' mkdocs-jupyter evict."""
    store = tmp_path / "runs"
    store.mkdir()
    stale = [project / ".cache" / "mkdocs-jupyter" / lang / "0-stale.json" for lang in LANGUAGES]
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}", encoding="utf-8")
    builds = []
    for name, lang in (("every", None), ("english", "en")):
        log = (tmp_path / f"{name}.log").open("w", encoding="utf-8")
        command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / name)]
        builds.append((subprocess.Popen(command, cwd=project, env=_env(project, store, lang=lang), stdout=log,
                                        stderr=subprocess.STDOUT), log, tmp_path / name))
    try:
        for proc, _, _ in builds:
            proc.wait(timeout=600)
    finally:
        for proc, log, _ in builds:
            if proc.poll() is None:  # one that hangs: stopped, and its output shown below
                proc.kill()
                proc.wait()
            log.close()
    runs = {}
    for proc, log, site in builds:
        output = Path(log.name).read_text(encoding="utf-8", errors="replace")
        assert proc.returncode == 0, f"{site.name}: exited {proc.returncode}\n{output[-3000:]}"
        assert TRACEBACK not in output and not _left_behind(site)
        tables = {lang: _one_run(site, lang) for lang in _languages(site)}
        assert len({str(table) for table in tables.values()}) == 1, f"{site.name}: languages differ: {tables}"
        runs[site.name] = tables
    assert list(runs["every"]) == LANGUAGES and list(runs["english"]) == ["en"], runs
    # a page takes one lock in the store in every language: the later build waits for the earlier one's run
    # and shows it
    assert runs["english"]["en"] == runs["every"]["ja"], runs
    assert not [path for path in stale if path.exists()]
