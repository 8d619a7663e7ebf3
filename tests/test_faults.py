"""Editors' mistakes get one clear line and lose nothing.

A listing that raises, runs too long or prints too much, a snippet that is not UTF-8, an include of nothing, a
broken link: the strict build fails with one line naming file:line (no traceback), and the site built last is
still whole. A store that cannot be written is one warning, and the build goes on.

Helpers of this module: :func:`copy` (conftest's copy_project leaves out src/attention_lesson/site/, whose
theme the copy's mkdocs.yml names), :func:`tiny` (a copy whose only page is one of this module's own),
:func:`first_listing` (where the build runs code first).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CHECK, ROOT, assert_ok, build, copy_project, environment, pages, run, tiny

SITE_MODULES = ROOT / "src" / "attention_lesson" / "site"
FENCE = re.compile(r'^(`{3,}|~{3,})python\b.*exec="on"')
WHOLE = re.compile(r'^--8<-- "snippets/(?P<file>[\w-]+\.py)"$')


def first_listing() -> tuple[str, int, str]:
    """(page, line of its block, snippet): the first block the build runs, when it shows a whole snippet."""
    for page in pages():
        rows = (ROOT / "docs" / "ja" / page).read_text("utf-8").splitlines()
        block = next((n for n, row in enumerate(rows) if FENCE.match(row)), None)
        if block is not None and WHOLE.match(rows[block + 1]):
            return page, block + 1, WHOLE.match(rows[block + 1])["file"]
    raise AssertionError("no Japanese page shows a whole snippet in a python block")


PAGE, BLOCK, SNIPPET = first_listing()


def broken(dest: Path, code: str, options: dict[str, int] | None = None) -> tuple[Path, int]:
    """A copy whose first listing ends with `code`, and the line of snippets/ it starts on."""
    project = copy_project(dest)
    snippet = project / "snippets" / SNIPPET
    text = snippet.read_text("utf-8")
    snippet.write_text(text.rstrip("\n") + "\n" + code + "\n", encoding="utf-8")
    config = project / "mkdocs.yml"
    for key, value in (options or {}).items():
        config.write_text(re.sub(rf"^(\s+{key}:) .*$", rf"\g<1> {value}", config.read_text("utf-8"), flags=re.M),
                          encoding="utf-8")
    return project, len(text.rstrip("\n").splitlines()) + 1


def one_line(proc, *words: str) -> str:
    """The one line of the output that has every word; and no traceback anywhere."""
    output = proc.stdout + proc.stderr
    assert not [row for row in output.splitlines() if row.startswith("Traceback") or row.startswith('  File "')], \
        output
    found = [row for row in output.splitlines() if all(word in row for word in words)]
    assert len(found) == 1, f"one line with {words}:\n{output}"
    return found[0]


def names_the_listing(message: str, line: int) -> bool:
    """`message` names the broken listing: its block on the page, or the snippet's line (or the next one)."""
    places = (f"docs/ja/{PAGE}:{BLOCK}", f"snippets/{SNIPPET}:{line}", f"snippets/{SNIPPET}:{line + 1}")
    return any(re.search(rf"(^|\s){re.escape(place)}:", message) for place in places)


def last_site(site: Path, folder: Path) -> Path:
    """A copy of a built site in `folder`/site: the site the next build replaces, or must leave whole."""
    shutil.copytree(site, folder / "site")
    return folder / "site"


def snapshot(site: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(site).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns) for p in site.rglob("*")
            if p.is_file()}


# -- runs that fail -------------------------------------------------------------------------------------------


IGNORING_SIGINT = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); sys.argv[0] = 'mkdocs'; "
                   "runpy.run_module('mkdocs', run_name='__main__', alter_sys=True)")
"""`mkdocs` started as nohup or a background job of a script starts it: Ctrl-C ignored."""


@pytest.mark.parametrize("start", ["plain", "sigint-ignored"], ids=["plain", "sigint-ignored"])
def test_time_limit(tmp_path: Path, start: str) -> None:
    project, line = broken(tmp_path, "while True:\n    pass", {"timeout": 2})
    command = ["-m", "mkdocs"] if start == "plain" else ["-c", IGNORING_SIGINT]
    proc = run([sys.executable, *command, "build", "--strict", "-d", str(tmp_path / "site")], cwd=project,
               timeout=30)  # the limit is 2 s: a build that hangs fails here
    assert proc.returncode == 1, "a failed build, not one stopped by Ctrl-C (130)"
    found = one_line(proc, "time limit")
    assert names_the_listing(found, line), found


def test_output_limit(tmp_path: Path) -> None:
    project, line = broken(tmp_path, 'print("x" * 100_000)', {"max_output": 1000})
    proc = build(project, tmp_path / "site")
    assert proc.returncode != 0
    found = one_line(proc, "output limit", "1000")
    assert names_the_listing(found, line), found


def test_error_printed_not_raised(tmp_path: Path) -> None:
    """Python prints an error in a weakref callback (a Ctrl-C there, say) to stderr and goes on: the block's
    output would be a traceback, so the build stops at the line the callback came from."""
    code = 'import weakref\nref = weakref.ref(held := type("H", (), {})(), lambda r: 1 / 0)\ndel held'
    project, line = broken(tmp_path, code)
    proc = build(project, tmp_path / "site")
    assert proc.returncode != 0
    found = one_line(proc, "did not raise", "ZeroDivisionError")
    assert names_the_listing(found, line), found


def test_missing_include_on_a_japanese_page(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    path = project / "docs" / "ja" / PAGE
    rows = path.read_text("utf-8").splitlines()
    path.write_text("\n".join([*rows, "", '--8<-- "snippets/nope.py"']) + "\n", encoding="utf-8")
    proc = build(project, tmp_path / "site")
    assert proc.returncode != 0
    one_line(proc, f"docs/ja/{PAGE}:{len(rows) + 2}:", "snippets/nope.py")


@pytest.fixture(scope="module")
def not_utf8(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("encoding"))
    snippet = project / "snippets" / SNIPPET
    snippet.write_bytes(snippet.read_bytes() + "# 平均\n".encode("shift_jis"))
    return project


def test_snippet_not_utf8_check(not_utf8: Path) -> None:
    proc = run(CHECK, cwd=not_utf8)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    one_line(proc, f"snippets/{SNIPPET}", "UTF-8")


def test_unwritable_store(tmp_path: Path) -> None:
    """LESSON_STORE names a file: nothing can be kept, the build still succeeds, with one warning."""
    project = tiny(tmp_path, '# Store\n\n```python exec="on" result="text"\nprint("kept nowhere")\n```\n')
    store = tmp_path / "store-is-a-file"
    store.write_text("not a folder\n", encoding="utf-8")
    proc = build(project, tmp_path / "site", env={"LESSON_STORE": str(store)})
    assert_ok(proc)
    assert "kept nowhere" in (tmp_path / "site" / "index.html").read_text("utf-8")
    assert one_line(proc, "WARNING", str(store)).startswith("WARNING")


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="chmod does not stop this user writing")
def test_read_only_store(tmp_path: Path) -> None:
    project = tiny(tmp_path, '# Store\n\n```python exec="on" result="text"\nprint("kept nowhere")\n```\n')
    store = tmp_path / "store"
    store.mkdir()
    store.chmod(0o555)
    try:
        proc = build(project, tmp_path / "site", env={"LESSON_STORE": str(store)})
    finally:
        store.chmod(0o755)
    assert_ok(proc)
    assert one_line(proc, "WARNING", str(store)).startswith("WARNING")


# -- the site built last stays whole (after the session's site: builds that need the store warm) ---------------


@pytest.fixture(scope="module")
def raised(site: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A listing that raises, built into the folder of the last site, beside what older builds left."""
    tmp = tmp_path_factory.mktemp("raise")
    project, line = broken(tmp / "copy", "1/0")
    published = last_site(site, tmp)
    before = snapshot(published), (published / "index.html").read_bytes()
    for name in (".site-building-x", ".site-old-123"):
        (tmp / name / "assets").mkdir(parents=True)
        (tmp / name / "index.html").write_text("left over", encoding="utf-8")
        old = time.time() - 2 * 3600
        os.utime(tmp / name, (old, old))
    return {"proc": build(project, published), "line": line, "site": published, "before": before}


def test_listing_that_raises_is_one_line(raised: dict) -> None:
    assert raised["proc"].returncode != 0
    one_line(raised["proc"], f"snippets/{SNIPPET}:{raised['line']}:", "ZeroDivisionError")


def test_failed_build_leaves_the_last_site_whole(raised: dict) -> None:
    site = raised["site"]
    assert (snapshot(site), (site / "index.html").read_bytes()) == raised["before"]
    assert not [p for p in site.parent.rglob("*.html") if "ZeroDivisionError" in p.read_text("utf-8")]


def test_build_clears_what_old_builds_left(raised: dict) -> None:
    assert not list(raised["site"].parent.glob(".site-*"))


def test_a_cache_that_cannot_be_written_is_one_line(site: Path, tmp_path: Path) -> None:
    """.cache/ is a file, so nothing under it can be written (search words, notebooks, mkdocs-jupyter's cache): one
    line naming it, and the last site as it was."""
    project = copy_project(tmp_path / "copy")
    (project / ".cache").write_text("not a folder\n", encoding="utf-8")
    published = last_site(site, tmp_path)
    before = snapshot(published)
    proc = build(project, published)
    assert proc.returncode == 1
    one_line(proc, str(project / ".cache"), "nothing was published")
    assert snapshot(published) == before and not list(tmp_path.glob(".site-*"))


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB file system of its own (tmpfs; Linux, as root), which a build fills."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True,
                             text=True) if sys.platform.startswith("linux") else None
    if mounted is None or mounted.returncode:
        pytest.skip(f"no small disk to fill here ({mounted.stderr.strip() if mounted else sys.platform})")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_is_one_line_and_keeps_the_last_site(small_disk: Path) -> None:
    published = small_disk / "site"
    published.mkdir()
    (published / "index.html").write_text("the last site\n", encoding="utf-8")
    proc = build(ROOT, published)
    assert proc.returncode == 1
    one_line(proc, str(small_disk), "No space left on device", "nothing was published")
    assert [p.name for p in small_disk.iterdir()] == ["site"], "a half-built folder was left"
    assert [p.name for p in published.iterdir()] == ["index.html"]
    assert (published / "index.html").read_text("utf-8") == "the last site\n"


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX's")
def test_a_build_killed_outright_is_cleared_by_the_next(tmp_path: Path) -> None:
    """SIGKILL leaves the building folder (no Python code runs); the next build removes it, not an hour later."""
    project = tiny(tmp_path, '# Killed\n\n```python exec="on" result="text"\nimport time\ntime.sleep(60)\n```\n')
    site = tmp_path / "out" / "site"
    build_ = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=project,
                              env=environment({"LESSON_NO_CACHE": "1"}), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not list(site.parent.glob(".site-building-*")) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        build_.send_signal(signal.SIGKILL)
        build_.wait()
    assert list(site.parent.glob(".site-building-*")), "the build never started"
    (project / "docs" / "ja" / "index.md").write_text("# Killed\n\nNothing to run.\n", encoding="utf-8")
    assert_ok(build(project, site))
    assert not list(site.parent.glob(".site-*")), sorted(p.name for p in site.parent.iterdir())


def test_snippet_not_utf8_build(not_utf8: Path, site: Path, tmp_path: Path) -> None:
    published = last_site(site, tmp_path)
    before = snapshot(published)
    proc = build(not_utf8, published)
    assert proc.returncode != 0
    one_line(proc, f"snippets/{SNIPPET}", "UTF-8")
    assert snapshot(published) == before


def test_broken_link_on_a_japanese_page(site: Path, tmp_path: Path) -> None:
    """A strict build fails on a warning after its pages are written: the site built last stays."""
    project = tiny(tmp_path / "copy", "# Link\n\nSee [the next page](nope.md).\n")
    published = last_site(site, tmp_path)
    before = snapshot(published), (published / "index.html").read_bytes()
    proc = build(project, published)
    assert proc.returncode != 0
    one_line(proc, "index.md", "nope.md")
    assert (snapshot(published), (published / "index.html").read_bytes()) == before
    assert not list(tmp_path.glob(".site-*"))


# -- a listing that does not read, as an editor breaks one: every reader says one line --------------------------

BROKEN = {  # how an editor breaks a listing's line: (what the line becomes, from the line as it was)
    "unclosed-bracket": lambda line: line.replace("(", "((", 1),
    "unexpected-indent": lambda line: "    " + line,
    "tab-and-spaces": lambda line: "if True:\n        x = 1\n\tx = 2\n" + line,
    "utf-16": None,
}


@pytest.mark.parametrize("how", list(BROKEN))
def test_a_listing_that_does_not_read_is_one_line_for_every_reader(tmp_path: Path, how: str) -> None:
    """The build (before any page renders), the translators' check and the terminal lesson each say one line
    naming snippets/<file>:<line> (the encoding: the file), no traceback, and the build publishes nothing."""
    page, _, name = first_listing()
    project = copy_project(tmp_path)
    path = project / "snippets" / name
    rows = path.read_text("utf-8").splitlines()
    at = next(n for n, row in enumerate(rows) if "(" in row and not row.lstrip().startswith(("#", "import", "from")))
    if BROKEN[how] is None:
        path.write_text(path.read_text("utf-8"), encoding="utf-16")
        where = f"snippets/{name}: not UTF-8"
    else:
        rows[at] = BROKEN[how](rows[at])
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        where = f"snippets/{name}:"
    said = {"build": build(project, tmp_path / "site"), "check": run(CHECK, cwd=project),
            "terminal lesson": run([sys.executable, "snippets/attention.py"], cwd=project)}
    for reader, proc in said.items():
        lines = [line for line in proc.stderr.splitlines() if where in line]
        assert proc.returncode != 0 and len(lines) == 1, f"{reader}:\n{proc.stderr[-2000:]}"
        assert "Traceback" not in proc.stdout + proc.stderr, f"{reader}:\n{proc.stderr[-2000:]}"
    assert not (tmp_path / "site").exists()
