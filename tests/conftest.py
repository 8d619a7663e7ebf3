"""Shared fixtures: the project as a user runs it (a real strict build, the commands of the README)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"


def _languages() -> list[str]:
    from attention_lesson.site import project, translations

    return [project.DEFAULT_LANG, *translations.SHIPPED]


LANGUAGES = _languages()
"""The languages every page test holds to: the source and the shipped translations. A language in progress (a
translator's docs/<code>/) is held to the translators' check instead, so the suite stays green while it grows."""


RAW_TEX = re.compile(r"\\(?:frac|sqrt|mathrm|left|right|top|cdot|begin|end)\b|\$\$")
"""TeX that would be on screen if a formula were not converted to MathML: what a visit in the browser sees
(tests/test_browser.py) and what the HTML of every page shows (tests/test_site.py)."""


OUTER_STORE = os.environ.get("LESSON_STORE")
STORE = Path(OUTER_STORE or tempfile.mkdtemp(prefix="lesson-test-store-"))
"""One store of execution results for the whole test session: it starts empty, as in CI, and every build of
the session (the project's and its broken copies') shares it, so only what a test changed runs again. The
session's workers (pytest-xdist) and a session a test starts inside a copy (tests/test_drift.py) are given it
through the environment; the session that made it removes it."""
os.environ["LESSON_STORE"] = str(STORE)

SESSION_ENV = {"OMP_NUM_THREADS": "1",
               "MALLOC_MMAP_THRESHOLD_": str(256 * 2**20), "MALLOC_TRIM_THRESHOLD_": str(2**30)}
"""How every process of the session runs torch (its workers, and every build, serve, command and reader's
interpreter they start: set here, before the workers start and before this session imports torch). What a
block prints and every value a test compares do not depend on either; the timings are not compared, and the
build's memory is measured by .ci/budget.py, not here.

- torch on one thread: the suite runs one worker per core (addopts in pyproject.toml), and a two-thread torch
  spins while its other half waits for the core the other worker holds. The suite took 220.7 CPU-s with
  torch's default, 212.7 with one thread (means of four runs each, taken in turns).
- glibc's malloc (the environment variables of mallopt(3); other C libraries ignore them) takes blocks of up to
  256 MiB from its heap and keeps up to 1 GiB that is freed there. By default a block above 32 MiB is a mapping
  of its own, handed back when it is freed, so each call of the timed listings at T = 4000 (a T×T float32
  tensor is 64 MiB) maps and zeroes fresh pages, five times per length and function: the reader's runs took
  18.7-18.9 CPU-s, 12.2-12.4 with these (tests/test_reader_code.py alone, two runs each), and a cold build of
  the site 22.4 and 21.1 CPU-s, 20.7 and 19.3 with these (both with one thread). In the whole suite that is
  within its noise: 216 and 217 CPU-s with these, 215 without, taken in turns."""
os.environ.update(SESSION_ENV)


def own_store(folder: Path) -> Path:
    """A copy of the session's results, for a test whose builds compute for seconds: a build renders a page
    under a lock of its store's (one run per page), and another test's build of that page in the session's
    store would wait for it, its core idle. The entries alone: the session's locks are not the copy's, and one
    that a build holds cannot be read on Windows."""
    return Path(shutil.copytree(STORE, folder / "runs", ignore=shutil.ignore_patterns("locks", ".*.tmp")))


def _base_env() -> dict[str, str]:
    # a stray one would pick a language, a store or a site
    stray = {"LESSON_LANG", "LESSON_NO_CACHE", "LESSON_STORE", "LESSON_SITE_URL", "LESSON_REPO_URL", "PYTHONPATH",
             PREBUILT_ENV}
    return {**{k: v for k, v in os.environ.items() if k not in stray}, "NO_MKDOCS_2_WARNING": "1"}


def command_env(cwd: Path, env: dict[str, str] | None = None, own_src: bool = True) -> dict[str, str]:
    """The environment of a command run in `cwd` (see run): the session's store, the folder's own src/ first
    unless not `own_src`, then `env`."""
    return {**_base_env(), "LESSON_STORE": str(STORE), **({"PYTHONPATH": str(cwd / "src")} if own_src else {}),
            **(env or {})}


def run(args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, check: bool = True,
        own_src: bool = True):
    """Run a command like a user would, in a process of its own; on failure show its output in the assertion
    message. `own_src`: with the folder's own src/ first on the path, for a copy whose code a test changed
    (False: the package as this virtual environment installed it, as a second checkout sharing it sees it)."""
    proc = subprocess.run(args, cwd=cwd, env=command_env(cwd, env, own_src), capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@contextlib.contextmanager
def ctrl_c_as_in_a_terminal() -> Iterator[None]:
    """Ctrl-C reaches this process, and a process started inside, as it does a command typed in a terminal,
    even when the test session was started with SIGINT ignored (a shell's background job, `pytest &`, as a CI
    runner may start it): a child would inherit that, and its Python would never raise KeyboardInterrupt. (A
    Python handler is not inherited: a child starts with the default, as in a terminal.)"""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def start_serve(cwd: Path, port: int, env: dict[str, str], **popen) -> subprocess.Popen:
    """`mkdocs serve -a 127.0.0.1:<port>` in `cwd`, its output piped as text, started as a command typed in a
    terminal (ctrl_c_as_in_a_terminal) in a session of its own, so that stop_as_ctrl_c stops it as Ctrl-C does."""
    with ctrl_c_as_in_a_terminal():
        return subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"], cwd=cwd,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True, **popen)


def stop_as_ctrl_c(server: subprocess.Popen) -> int:
    """Stop a `mkdocs serve` from start_serve as Ctrl-C in its terminal does: SIGINT to its process group, its
    preview workers included; killed if it has not exited in 30 s. On Windows, where one process group cannot be
    sent Ctrl-C, it is terminated. Returns its exit status."""
    if sys.platform == "win32":
        server.terminate()
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGINT)
    try:
        return server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        raise AssertionError("mkdocs serve did not stop within 30 s of Ctrl-C") from None


def build_in_process(project: Path, site_dir: Path, env: dict[str, str] | None = None,
                     check: bool = True) -> subprocess.CompletedProcess:
    """`mkdocs build --strict -d site_dir` of a project folder through MkDocs' own command line, in this process
    (tests/commands.py; no state of the plugin's outlives a build, so this is the command's build without its
    interpreter's start): for a copy whose docs, snippets or strings a test changed, not its code."""
    import commands  # it reads this module's STORE

    proc = commands.mkdocs(project, "build", "--strict", "-d", str(site_dir), env=env)
    if check:
        assert proc.returncode == 0, f"the build of {project} failed\n{proc.stderr}"
    return proc


def build_site(project: Path, site_dir: Path, env: dict[str, str] | None = None, check: bool = True,
               process: bool = False):
    """`mkdocs build --strict` of a project folder into site_dir: in this process (see build_in_process), or
    with `process`, as the README's command, in a process of its own with the folder's own src/ first."""
    if not process:
        return build_in_process(project, site_dir, env=env, check=check)
    return run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site_dir)],
               cwd=project, env=env, check=check)


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
    with FileLock(shared / f"{name}.lock"):  # filelock: a lock on every system (torch depends on it too)
        if not built.exists():
            shutil.rmtree(site, ignore_errors=True)  # a worker's failed attempt
            build(site)
            built.touch()
    return site


BUILD_LOG = "built-site.log"
"""What the session's build of the whole site printed, beside it (the session's store starts empty: a cold build)."""


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The whole site, every language, built once per test session exactly as the README's build does."""
    if os.environ.get(PREBUILT_ENV):
        return Path(os.environ[PREBUILT_ENV])

    def build(site: Path) -> None:
        proc = build_site(ROOT, site, process=True)
        (site.parent / BUILD_LOG).write_text(proc.stdout + proc.stderr, encoding="utf-8")

    return _built_once(tmp_path_factory, "built-site", build)


@pytest.fixture(scope="session")
def built_site_log(built_site) -> str:
    log = built_site.parent / BUILD_LOG
    if not log.exists():
        pytest.skip(f"{built_site} was built outside this session (${PREBUILT_ENV}): its output is not kept")
    return log.read_text(encoding="utf-8")


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
    # What the session's build made and a copy need not make again, each keyed by what it is made from: the
    # notebooks' rendered HTML (by each executed notebook, see the plugin) and the search's dictionary (by the
    # characters of the sources, attention_lesson.site.segmenter). A copy that changes those makes its own.
    for made in ("mkdocs-jupyter", "jieba"):
        if (ROOT / ".cache" / made).is_dir():
            shutil.copytree(ROOT / ".cache" / made, dest / ".cache" / made)
    return dest


def slim(project: Path, pages: list[str], languages: list[str]) -> Path:
    """A copy cut down to `pages` (in mkdocs.yml's nav; the others excluded, so links to them stay valid) in
    `languages`, without the notebooks: for a test about the machinery, which any page shows, whose builds
    then render a few pages instead of every one."""
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    nav = re.search(r"^nav:\n((?:  .*\n|\n)*)", text, flags=re.M)
    assert nav, "mkdocs.yml has no nav"
    excluded = sorted(p.name for p in (project / "docs" / "ja").glob("*.md") if p.name not in pages)
    text = text[:nav.start(1)] + "".join(f"  - {page}\n" for page in pages) + "\n" + text[nav.end(1):]
    text = text.replace("exclude_docs: |\n", "exclude_docs: |\n" + "".join(f"  {name}\n" for name in excluded))
    config.write_text(text, encoding="utf-8")
    for folder in (p for p in (project / "docs").iterdir() if p.is_dir()):
        if folder.name not in languages:
            shutil.rmtree(folder)
        else:
            shutil.rmtree(folder / "notebooks", ignore_errors=True)
    return project


@pytest.fixture(scope="module")
def copy(tmp_path_factory, request) -> Path:
    """One copy of the project for a module's tests: a test that breaks it puts back what it broke
    (commands.edited), so the next one starts from the project as it is."""
    return copy_project(tmp_path_factory.mktemp(request.module.__name__))


@pytest.fixture
def project_copy(tmp_path) -> Path:
    """A throwaway copy of the project (sources only) to break on purpose."""
    return copy_project(tmp_path)


def pytest_sessionfinish(session, exitstatus):
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


ORDER = ["test_browser.py", "test_faults.py", "test_lesson.py", "test_lesson_values.py",
         "test_reader_code.py", "test_translator_errors.py", "test_translations.py", "test_figures.py",
         "test_drift.py", "test_keys.py", "test_site.py", "test_notebooks.py", "test_runner.py", "test_snapshots.py",
         "test_reproducible.py", "test_workflow.py", "test_published.py", "test_claims.py", "test_lint.py",
         "test_plugin.py"]
"""The order modules are handed to the two workers (one module per worker: see addopts in pyproject.toml). The
browser tests first, whose worker builds the session's site and then visits it (about 70 s). Meanwhile the
other worker runs the fault injection (about 47 s, its builds each with a store of their own, so the session's
store is no help to it), then the modules that neither build nor read a site (test_lesson and
test_lesson_values together: they share one terminal run of the lesson), about 8 s. By then the session's site
is built and the store of results is warm: the rest follow longest first (17 s down to none), so that whichever
worker is free takes the longest left and the two finish together. pytest-xdist hands a worker its next module
once two tests or fewer of its current one are left, so a long module of one or two tests takes the next one
early: the short modules go last. (In the order before this one, the other worker was idle for the last
6-8 s.) A module not listed goes last."""


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: ORDER.index(item.path.name) if item.path.name in ORDER else len(ORDER))
