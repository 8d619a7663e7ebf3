"""Shared fixtures: the project as a user runs it (subprocesses, a real strict build)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"


def run(args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, check: bool = True):
    """Run a command like a user would; on failure show its output in the assertion message."""
    full_env = {k: v for k, v in os.environ.items() if k != "LESSON_LANG"}  # a stray one would pick a language
    full_env.update({"NO_MKDOCS_2_WARNING": "1", **(env or {})})
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
    ignore = shutil.ignore_patterns(".venv", "site", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".cache")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def pytest_addoption(parser):
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        help="rewrite tests/snapshots/ from the current output instead of comparing (review the diff, commit)",
    )


@pytest.fixture
def update_snapshots(request) -> bool:
    return request.config.getoption("--update-snapshots")
