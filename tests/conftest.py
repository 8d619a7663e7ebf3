"""Shared fixtures and helpers: the project as its users run it (the README's commands, in processes of their own).

Pages and languages are taken from the tree (:func:`languages`, :func:`pages`), never from a list. Every build
of the session shares one results store that starts empty, as in CI, so a copy's build runs only what its test
changed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from filelock import FileLock

from attention_lesson.site import publish
from attention_lesson.site.lesson import SOURCE_LANG, Project

ROOT = Path(__file__).resolve().parents[1]
PROJECT = Project(ROOT)


def _left_by_a_killed_run(folder: Path) -> bool:
    """A store whose run was killed outright (SIGKILL skips pytest_sessionfinish): its process gone, or a day old."""
    return publish.abandoned(folder, folder.name.split("-")[3], 86400)


OWN_STORE = "LESSON_STORE" not in os.environ  # made by this process (pytest-xdist's workers inherit it): it removes it
if OWN_STORE:
    for old in Path(tempfile.gettempdir()).glob("lesson-test-store-*-*"):
        if _left_by_a_killed_run(old):
            shutil.rmtree(old, ignore_errors=True)
    os.environ["LESSON_STORE"] = tempfile.mkdtemp(prefix=f"lesson-test-store-{os.getpid()}-")
STORE = Path(os.environ["LESSON_STORE"])
CHECK = [sys.executable, "-m", "attention_lesson.site.translations"]
STRAY = {"LESSON_LANG", "LESSON_NO_CACHE", "LESSON_SITE_URL", "LESSON_REPO_URL", "PYTHONPATH"}


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The store goes with the process that made it."""
    if OWN_STORE:
        shutil.rmtree(STORE, ignore_errors=True)


def languages() -> list[str]:
    """Japanese first, then every language folder of the tree."""
    return PROJECT.languages()


def pages(lang: str = SOURCE_LANG) -> list[str]:
    """A language's Markdown pages, relative to its folder."""
    return [page for page in PROJECT.pages(lang) if page.endswith(".md")]


def environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """A user's environment with the session's store (and `env`), none of the lesson's other settings."""
    return {**{k: v for k, v in os.environ.items() if k not in STRAY}, "NO_MKDOCS_2_WARNING": "1", **(env or {})}


def run(args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess:
    """A command as a user types it, in a process of its own, with the session's store."""
    return subprocess.run(args, cwd=cwd, env=environment(env), capture_output=True, text=True, timeout=timeout,
                          encoding="utf-8", errors="replace")


def mkdocs(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "mkdocs", *args], cwd=cwd, env=env)


def build(cwd: Path, site: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of a project folder into `site`."""
    return mkdocs(cwd, "build", "--strict", "-d", str(site), env=env)


def assert_ok(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, f"{' '.join(proc.args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"


def copy_project(dest: Path) -> Path:
    """A copy of the project's sources (what git would check out, as they are now) in ``dest/project``."""
    target = dest / "project"
    ignore = shutil.ignore_patterns(".cache", ".lesson-store", "__pycache__", "*.egg-info")
    for name in ("docs", "snippets", "mkdocs.yml", "pyproject.toml"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    shutil.copytree(ROOT / "src", target / "src", ignore=ignore)
    return target


def _once(tmp_path_factory: pytest.TempPathFactory, name: str, make) -> Path:
    """A folder every worker of the session shares: the first worker makes it under a lock, the others wait."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    folder, done = shared / name, shared / f"{name}.ok"
    with FileLock(shared / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            make(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole site, every language, built once per session by the README's build (a cold store)."""

    def make(folder: Path) -> None:
        proc = build(ROOT, folder)
        assert_ok(proc)
        (folder.parent / "site.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")

    return _once(tmp_path_factory, "site", make)


@pytest.fixture(scope="session")
def site_log(site: Path) -> str:
    return (site.parent / "site.log").read_text(encoding="utf-8")


def page_html(site: Path, lang: str, page: str) -> str:
    """The built HTML of a language's page (``query-key.md`` → ``query-key/index.html``)."""
    folder = site if lang == SOURCE_LANG else site / lang
    stem = page.removesuffix(".md").removesuffix(".py").removesuffix(".ipynb")
    path = folder / ("index.html" if stem == "index" else f"{stem}/index.html")
    return path.read_text(encoding="utf-8")


def tiny(dest: Path, page: str) -> Path:
    """A copy whose only language is Japanese and whose only page is `page` (docs/ja/index.md)."""
    project = copy_project(dest)
    for folder in (project / "docs").iterdir():
        if folder.is_dir() and folder.name != SOURCE_LANG:
            shutil.rmtree(folder)
    for path in [*(project / "docs" / SOURCE_LANG).rglob("*.md"), *(project / "docs" / SOURCE_LANG).rglob("*.py")]:
        path.unlink()
    (project / "docs" / SOURCE_LANG / "index.md").write_text(page, encoding="utf-8")
    config = project / "mkdocs.yml"
    text = re.sub(r"^nav:\n(?:[ \t]+.*\n|\n)*", "nav:\n  - index.md\n\n", config.read_text("utf-8"), flags=re.M)
    config.write_text(text, encoding="utf-8")
    return project


def traceback_lines(proc: subprocess.CompletedProcess) -> list[str]:
    """The lines of a Python traceback in a command's output: a user should see one line, never these."""
    return [line for line in (proc.stdout + proc.stderr).splitlines()
            if line.startswith("Traceback") or line.startswith('  File "')]
