"""Shared fixtures: the project as a user runs it (subprocesses, a real strict build)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

if sys.platform != "win32":
    import fcntl  # file locks (Unix): the warm Python's start and the site the workers share

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"


OUTER_STORE = os.environ.get("LESSON_STORE")
STORE = Path(OUTER_STORE or tempfile.mkdtemp(prefix="lesson-test-store-"))
"""One store of execution results for the whole test session: it starts empty, as in CI, and every build of
the session (the project's and its broken copies') shares it, so only what a test changed runs again. The
session's workers (pytest-xdist) and a session a test starts inside a copy (tests/test_drift.py) are given it
through the environment; the session that made it removes it."""
os.environ["LESSON_STORE"] = str(STORE)


def _base_env() -> dict[str, str]:
    # a stray one would pick a language, a store or a site
    stray = {"LESSON_LANG", "LESSON_NO_CACHE", "LESSON_STORE", "PYTHONPATH", PREBUILT_ENV}
    return {**{k: v for k, v in os.environ.items() if k not in stray}, "NO_MKDOCS_2_WARNING": "1"}


WARM_ENV = "LESSON_TEST_WARM"
OUTER_WARM = os.environ.get(WARM_ENV)
WARM = Path(OUTER_WARM or Path(tempfile.mkdtemp(prefix="lesson-warm-")) / "socket")
"""The socket of the session's warm Python (tests/warm.py), shared like the store: the session that made its
folder stops it at the end and removes the folder."""
os.environ[WARM_ENV] = str(WARM)
WARM_WORKS = hasattr(os, "fork") and hasattr(os, "pidfd_open")
"""The warm Python forks, and waits on pidfds (Linux): elsewhere each command starts a Python of its own."""


class Warm:
    """The session's warm Python (tests/warm.py), started by the first command that needs it: it forks each
    `python -m ...`, `python -c ...` or `python script.py` command a test runs, after paying once for the
    imports every such command begins with."""

    @staticmethod
    def _connect() -> socket.socket:
        with open(f"{WARM}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with contextlib.suppress(OSError):
                return Warm._open()
            log = WARM.with_name("warm.log")
            with open(log, "wb") as output:
                subprocess.run([sys.executable, str(ROOT / "tests" / "warm.py"), "--detach", str(WARM)], cwd=ROOT,
                               env=_base_env(), stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                               check=True)
            deadline = time.monotonic() + 120
            while True:
                with contextlib.suppress(OSError):
                    return Warm._open()
                assert Warm._starting() and time.monotonic() < deadline, \
                    f"tests/warm.py did not start:\n{log.read_text(errors='replace')[-3000:]}"
                time.sleep(0.05)

    @staticmethod
    def _starting() -> bool:
        """Whether the server's process is alive (so far as its pid file says)."""
        try:
            os.kill(int(Path(f"{WARM}.pid").read_text()), 0)
        except (OSError, ValueError):
            return False
        return True

    @staticmethod
    def _open() -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(WARM))
        except OSError:
            sock.close()
            raise
        return sock

    @classmethod
    def run(cls, args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory(prefix="warm-") as folder, cls._connect() as sock:
            out, err = Path(folder) / "out", Path(folder) / "err"
            request = {"argv": args[1:], "cwd": str(cwd), "env": env, "out": str(out), "err": str(err)}
            sock.sendall((json.dumps(request) + "\n").encode())
            reply = sock.makefile(encoding="utf-8").readline()
            stdout = out.read_text(encoding="utf-8", errors="replace") if out.exists() else ""
            stderr = err.read_text(encoding="utf-8", errors="replace") if err.exists() else ""
            assert reply, f"{' '.join(args)} ended without an exit code (killed by a signal?)\n{stdout}\n{stderr}"
            return subprocess.CompletedProcess(args, json.loads(reply)["returncode"], stdout, stderr)

    @staticmethod
    def stop() -> None:
        """The session that made the warm Python's folder ends it and removes the folder."""
        if OUTER_WARM:
            return
        with contextlib.suppress(OSError), Warm._open() as sock:
            sock.sendall(b'{"stop": true}\n')
        shutil.rmtree(WARM.parent, ignore_errors=True)


def run(args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, check: bool = True,
        warm: bool = True):
    """Run a command like a user would, with the project's (or the copy's) own src/ first on the path; on
    failure show its output in the assertion message.

    `python -m ...`, `python -c ...` and `python script.py` are forked from the warm Python (tests/warm.py):
    the same command in a process of its own, minus the seconds of imports it would start with. `warm=False`
    (or a system without fork and pidfds) starts a new interpreter instead."""
    full_env = {**_base_env(), "PYTHONPATH": str(cwd / "src"), "LESSON_STORE": str(STORE), **(env or {})}
    if warm and WARM_WORKS and args[0] == sys.executable and (args[1] in ("-m", "-c") or args[1].endswith(".py")):
        proc = Warm.run(args, cwd, full_env)
    else:
        proc = subprocess.run(args, cwd=cwd, env=full_env, capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def build_site(project: Path, site_dir: Path, env: dict[str, str] | None = None, check: bool = True,
               warm: bool = True):
    """`mkdocs build --strict` of a project folder into site_dir."""
    return run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site_dir)],
               cwd=project, env=env, check=check, warm=warm)


PREBUILT_ENV = "LESSON_TEST_SITE"
"""A site a test has just built from a broken copy, for the test session it starts in that copy to read
(tests/test_drift.py): the inner session then checks that build instead of building the copy again."""


def _built_once(tmp_path_factory, name: str, build) -> Path:
    """A site every worker of the session shares: under pytest-xdist each worker asks for it, the first one
    builds it in the folder the workers share while the others wait on the lock (without workers, that folder
    is the session's own)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    site, built = shared / name, shared / f"{name}.ok"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not built.exists():
            shutil.rmtree(site, ignore_errors=True)  # a worker's failed attempt
            build(site)
            built.touch()
    return site


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The whole site, every language, built once per test session exactly as the README's build does."""
    if os.environ.get(PREBUILT_ENV):
        return Path(os.environ[PREBUILT_ENV])
    return _built_once(tmp_path_factory, "built-site", lambda site: build_site(ROOT, site, warm=False))


SITE_URL = "https://example.org/attention/"
REPO_URL = "https://github.com/example/attention-lesson"
UNTRANSLATED = ("en", "quiz.md")
"""The page the published site below lacks in one language, as a site does while a translation is under way."""


@pytest.fixture(scope="session")
def published_site(tmp_path_factory) -> Path:
    """The site as the deployment builds it (LESSON_SITE_URL and LESSON_REPO_URL set), from a copy in which
    docs/en/quiz.md is not translated yet."""

    def build(site: Path) -> None:
        project = copy_project(tmp_path_factory.mktemp("published-project"))
        (project / "docs" / UNTRANSLATED[0] / UNTRANSLATED[1]).unlink()
        build_site(project, site, env={"LESSON_SITE_URL": SITE_URL, "LESSON_REPO_URL": REPO_URL})

    return _built_once(tmp_path_factory, "published-site", build)


def copy_project(dest: Path) -> Path:
    """A copy of the project's sources in dest/project: no virtualenv, build, cache or git folder."""
    dest = dest / "project"
    anywhere = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".ruff_cache")
    at_root = {".venv", "site", ".git", ".cache", "node_modules"}  # the built site, not src/attention_lesson/site

    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(anywhere(folder, names)) | (at_root & set(names) if Path(folder) == ROOT else set())

    shutil.copytree(ROOT, dest, ignore=ignore)
    # The notebooks' rendered HTML, keyed by each executed notebook (see hooks.py): what the session's build
    # rendered, a copy need not render again (a changed notebook is a new key, rendered by the copy's build).
    rendered = ROOT / ".cache" / "mkdocs-jupyter"
    if rendered.is_dir():
        shutil.copytree(rendered, dest / ".cache" / "mkdocs-jupyter")
    return dest


@pytest.fixture
def project_copy(tmp_path) -> Path:
    """A throwaway copy of the project (sources only) to break on purpose."""
    return copy_project(tmp_path)


def pytest_sessionfinish(session, exitstatus):
    Warm.stop()
    if not OUTER_STORE:
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


ORDER = ["test_browser.py", "test_lesson.py", "test_figures.py", "test_snapshots.py", "test_runner.py",
         "test_workflow.py", "test_lint.py", "test_reader_code.py", "test_translator_errors.py", "test_site.py",
         "test_translations.py", "test_claims.py", "test_drift.py", "test_notebooks.py", "test_reproducible.py",
         "test_published.py"]
"""The order modules are handed to the two workers (one module per worker, each taking the next when it is
done: see addopts in pyproject.toml). The browser tests first, whose worker builds the session's site and then
visits it (about 80 s). Meanwhile the other worker runs the modules that neither build nor read a site; after
them the store of results is warm, and the rest follow, longest first, so that the two workers finish together.
A module not listed goes last."""


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: ORDER.index(item.path.name) if item.path.name in ORDER else len(ORDER))
