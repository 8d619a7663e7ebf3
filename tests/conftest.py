"""Shared fixtures: the project as a user runs it (subprocesses, a real strict build)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"


STORE = Path(tempfile.mkdtemp(prefix="lesson-test-store-"))
"""One store of execution results for the whole test session: it starts empty, as in CI, and every build of
the session (the project's and its broken copies') shares it, so only what a test changed runs again."""


def run(args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, check: bool = True):
    """Run a command like a user would, with the project's (or the copy's) own src/ first on the path; on
    failure show its output in the assertion message."""
    stray = {"LESSON_LANG", "LESSON_NO_CACHE", "LESSON_STORE"}  # a stray one would pick a language or store
    full_env = {k: v for k, v in os.environ.items() if k not in stray}
    full_env.update({"NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(cwd / "src"), "LESSON_STORE": str(STORE),
                     **(env or {})})
    proc = subprocess.run(args, cwd=cwd, env=full_env, capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def run_snippet(name: str, lang: str = "ja") -> str:
    """Run snippets/<name> on its own, as a reader would, and return what it printed."""
    return run([sys.executable, str(SNIPPETS / name)], env={"LESSON_LANG": lang}).stdout


def build_site(project: Path, site_dir: Path, env: dict[str, str] | None = None, check: bool = True):
    """`mkdocs build --strict` of a project folder into site_dir."""
    return run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site_dir)],
               cwd=project, env=env, check=check)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The whole site, every language, built once per test session exactly as the README's build does."""
    site = tmp_path_factory.mktemp("built") / "site"
    build_site(ROOT, site)
    return site


@pytest.fixture
def project_copy(tmp_path) -> Path:
    """A throwaway copy of the project (sources only) to break on purpose."""
    dest = tmp_path / "project"
    anywhere = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".ruff_cache")
    at_root = {".venv", "site", ".git", ".cache", "node_modules"}  # the built site, not src/attention_lesson/site

    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(anywhere(folder, names)) | (at_root & set(names) if Path(folder) == ROOT else set())

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(STORE, ignore_errors=True)


def pytest_addoption(parser):
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        help="rewrite tests/snapshots/ from the current output instead of comparing (review the diff, commit)",
    )


@pytest.fixture
def update_snapshots(request) -> bool:
    return request.config.getoption("--update-snapshots")
