"""Code a reader copies runs as copied: every titled listing of every page, in every language, and every
downloadable notebook, run in a fresh namespace of a Python that has torch and nothing else (a virtual
environment holding only the torch that pyproject.toml pins, and what pip installs with it), print what the
page or notebook shows. Timings are the one exception: a table's time columns are left out, and a notebook's
timings are compared as text with the numbers left out.

The virtual environment takes about half a minute and 900 MB to make, so it is kept outside the checkout, in
the user's cache folder (``LESSON_READER_VENV`` names another folder to keep it in), one per Python version
and torch pin, and reused by every later session on the machine."""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import LANGUAGES, ROOT, SESSION_ENV

from attention_lesson.site import i18n

LANGS = LANGUAGES
SOURCE_DOCS = ROOT / "docs" / i18n.DEFAULT_LANG
PAGES = sorted(p.stem for p in SOURCE_DOCS.glob("*.md")
               if re.search(r'^```python [^\n]*exec="on"[^\n]*title="snippets/', p.read_text(encoding="utf-8"),
                            flags=re.M))
"""The pages with a titled listing that runs at build time (and so has its output shown under it)."""
NOTEBOOKS = sorted(p.stem for p in (SOURCE_DOCS / "notebooks").glob("*.py"))
TIME_HEADER = re.compile(r"(?<![A-Za-z])ms(?![A-Za-z])")
"""A table column of times says so in its header, in every language ("時間 ms", "Time ms", "时间 ms"): those
cells vary from run to run (the memory columns do not)."""

VENV_ENV = "LESSON_READER_VENV"
VENV_MARKER = "reader-venv.ok"
"""Written into the reader's virtual environment once its torch imports: a folder without it is unfinished."""
LOCK_WAIT, LOCK_STALE = 20 * 60.0, 15 * 60.0
"""How long to wait for another process building the environment, and the age of a lock file whose builder
must have died (a build takes about half a minute)."""


def torch_pin() -> str:
    """The exact torch version pyproject.toml depends on (an unpinned torch is a multi-GB CUDA build)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = [m[1] for dep in project["dependencies"] if (m := re.fullmatch(r"torch\s*==\s*([\w.]+)", dep.strip()))]
    assert len(pins) == 1, f"pyproject.toml should depend on torch==X.Y.Z exactly once: {project['dependencies']}"
    return pins[0]


def venv_home(pin: str) -> Path:
    """Where the reader's virtual environment is kept: the user's cache folder, named for this Python and the
    torch pin."""
    if os.environ.get(VENV_ENV):
        cache = Path(os.environ[VENV_ENV])
    elif os.name == "nt":
        cache = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local") / "attention-lesson"
    else:
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attention-lesson"
    return cache / f"reader-{sys.implementation.cache_tag}-torch-{pin}"


def venv_python(home: Path) -> Path:
    """A virtual environment's interpreter, on any system."""
    return home / "Scripts" / "python.exe" if os.name == "nt" else home / "bin" / "python"


def finished(home: Path) -> bool:
    """Whether the virtual environment at home was built to the end (its marker) and still has its interpreter
    (a venv's python links to the Python it was made from)."""
    return (home / VENV_MARKER).is_file() and venv_python(home).exists()


def reader_env() -> dict[str, str]:
    """The environment a reader's interpreter gets: PATH (and on Windows SYSTEMROOT, without which Python's
    sockets and random numbers fail), nothing of the project or of the test session but how its processes run
    torch (conftest.SESSION_ENV: one thread, glibc keeping the large blocks it frees). What a listing prints
    does not depend on those; its timings are not compared."""
    keep = ("PATH", "SYSTEMROOT") if os.name == "nt" else ("PATH",)
    return {**{name: os.environ[name] for name in keep if name in os.environ}, **SESSION_ENV}


def run_reader_python(python: Path, args: list[str], folder: Path) -> subprocess.CompletedProcess:
    """`python -I ARGS` in folder: isolated (no PYTHONPATH, no user site, not the script's folder on the path)."""
    return subprocess.run([str(python), "-I", *args], cwd=folder, env=reader_env(), capture_output=True,
                          text=True, encoding="utf-8", errors="replace", timeout=900)


@contextlib.contextmanager
def exclusive(lock: Path) -> Iterator[None]:
    """Hold lock, a file only one process can create (portable, unlike fcntl): a second pytest-xdist worker or
    test session waits until the first has finished building. A lock older than LOCK_STALE is its dead
    builder's and is broken."""
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - lock.stat().st_mtime > LOCK_STALE:
                    lock.unlink()
                    continue
            assert time.monotonic() < deadline, f"{lock} is still held; remove it if nothing is building the venv"
            time.sleep(0.5)
    try:
        os.write(descriptor, f"{os.getpid()}\n".encode())
        os.close(descriptor)
        yield
    finally:
        lock.unlink(missing_ok=True)


def build_venv(home: Path, pin: str) -> None:
    """Make the virtual environment in a temporary sibling folder, install torch==pin into it, check that
    torch imports, mark it finished and only then move it into place: home is either absent or complete."""
    for leftover in home.parent.glob(f"{home.name}.building-*"):  # an interrupted build's
        shutil.rmtree(leftover, ignore_errors=True)
    if home.exists():  # unfinished or damaged: no marker
        shutil.rmtree(home)
    building = Path(tempfile.mkdtemp(prefix=f"{home.name}.building-", dir=home.parent))
    try:
        venv.create(building, with_pip=True)
        python = venv_python(building)
        install = subprocess.run([str(python), "-I", "-m", "pip", "install", "--no-compile", "--no-input",
                                  "--disable-pip-version-check", f"torch=={pin}"],
                                 cwd=building, capture_output=True, text=True, errors="replace")
        assert install.returncode == 0, f"pip install torch=={pin} failed:\n{install.stdout}\n{install.stderr}"
        check = run_reader_python(python, ["-c", "import torch; print(torch.__version__)"], building)
        version = check.stdout.strip()
        assert check.returncode == 0 and version.split("+")[0] == pin, \
            f"the new venv's torch does not import as {pin}:\n{check.stdout}\n{check.stderr}"
        (building / VENV_MARKER).write_text(f"{version}\n", encoding="utf-8")
        os.replace(building, home)
    finally:
        shutil.rmtree(building, ignore_errors=True)


@pytest.fixture(scope="module")
def reader_python() -> Path:
    """The interpreter of a virtual environment with only torch==<pyproject.toml's pin> installed, made once
    per machine (see venv_home) and reused while its marker says it was finished."""
    pin = torch_pin()
    home = venv_home(pin)
    if not finished(home):
        home.parent.mkdir(parents=True, exist_ok=True)
        with exclusive(home.with_name(f"{home.name}.lock")):
            if not finished(home):  # another process may have built it meanwhile
                build_venv(home, pin)
    return venv_python(home)


# A reader's Python runs each piece of code it is given (a JSON file: a list of sources) in a fresh namespace,
# with torch's global state (printing options, random generator, grad mode, default dtype) reset to what a new
# interpreter has, and prints each one's output as a JSON line. One process for all of them instead of one per
# listing: `import torch` is most of a short listing's time. Once every source has run, the objects left alive are
# frozen (gc.freeze), so that the interpreter's exit does not collect them first (1.2 CPU-s with torch.profiler's
# modules loaded; attention_lesson.site.shutdown does the same for the site's commands).
READER = """
import contextlib, gc, io, json, sys, traceback
import torch
fresh_rng, fresh_dtype = torch.get_rng_state(), torch.get_default_dtype()
with open(sys.argv[1], encoding="utf-8") as sources:
    codes = json.load(sources)
for number, code in enumerate(codes):
    torch.set_printoptions(profile="default")
    torch.set_rng_state(fresh_rng)
    torch.set_grad_enabled(True)
    torch.set_default_dtype(fresh_dtype)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"copied-{number}.py", "exec"), {"__name__": "__main__"})
        result = {"ok": True, "printed": out.getvalue()}
    except BaseException:
        result = {"ok": False, "printed": out.getvalue(), "error": traceback.format_exc()}
    print(json.dumps(result), flush=True)
gc.freeze()
"""


def run_as_reader(python: Path, sources: list[str], folder: Path) -> list[dict]:
    """What each source prints when a reader runs it (see READER) in the torch-only Python, in a folder of its
    own with no project in sight."""
    given = folder / "sources.json"
    given.write_text(json.dumps(sources), encoding="utf-8")
    proc = run_reader_python(python, ["-c", READER, str(given)], folder)
    assert proc.returncode == 0, f"the reader's interpreter failed:\n{proc.stderr[-3000:]}"
    return [json.loads(line) for line in proc.stdout.splitlines()]


def text(fragment: str) -> str:
    """The text of an HTML fragment."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def listing(site: Path, lang: str, page: str) -> tuple[str, str]:
    """The titled listing's code (what the copy button copies) and the output block under it."""
    raw = (site / ("" if lang == "ja" else lang) / page / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<span class="filename">snippets/[^<]+</span><pre>(.*?)</pre></div>\s*'
                      r'<div class="result">(.*?)</div>', raw, flags=re.S)
    assert match, f"{lang}/{page}: no titled listing followed by its output"
    return text(match[1]), match[2]


def table_cells(markdown_or_html: str) -> list[list[str]]:
    """A table's rows of cells, header first, from its HTML or its markdown."""
    if "<table" in markdown_or_html:
        rows = re.findall(r"<tr>(.*?)</tr>", markdown_or_html, flags=re.S)
        return [[text(c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)] for row in rows]
    lines = [line for line in markdown_or_html.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for i, line in enumerate(lines) if i != 1]


def untimed(row: list[str], timed: set[int]) -> list[str]:
    """A table row's cells, the timed columns left out."""
    return [cell for column, cell in enumerate(row) if column not in timed]


CASES = [(lang, page) for lang in LANGS for page in PAGES]


def notebook_cells(site: Path, lang: str, name: str) -> tuple[list[str], list[str]]:
    """A downloadable notebook's code cells and the text outputs stored with each."""
    path = site / ("" if lang == "ja" else lang) / "notebooks" / name / f"{name}.ipynb"
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    return (["".join(c["source"]) for c in cells],
            ["".join("".join(o.get("text", "")) for o in c.get("outputs", [])) for c in cells])


CELL_MARKER = "print('\\x00cell')\n"  # between a notebook's cells, to split its output back into cells

PROBE = """
import importlib, json, sys
found = {}
for name in ("attention_lesson", "mkdocs", "torch"):
    try:
        module = importlib.import_module(name)
        found[name] = str(getattr(module, "__version__", "imported"))
    except ModuleNotFoundError as error:
        found[name] = "ModuleNotFoundError: " + str(error)
print(json.dumps({"found": found, "path": sys.path, "isolated": sys.flags.isolated}))
"""
"""What the reader's interpreter can import and where it looks: the first source reader_runs gives it, so it
sees the process as the listings find it, without an interpreter and a torch started for it alone."""
PROBE_KEY = ("", "probe")


@pytest.fixture(scope="module")
def reader_runs(built_site: Path, reader_python: Path,
                tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict]:
    """Every listing and notebook of every language, as a reader runs it, in one reader's process (each in a
    fresh namespace, torch's state reset: see READER). A notebook runs top to bottom in one namespace, as
    Jupyter runs it. One process for all the languages rather than one each: another language's copies are
    to the process just more sources after the first language's, isolated from each other as a language's own
    are, and the interpreter and torch start once instead of three times (a third of the CPU this fixture
    took). The processes side by side cost more CPU still: torch's start and the timed listings keep both
    cores busy, they do not wait."""
    def copies(lang: str) -> list[tuple[tuple[str, str], str]]:
        """A language's listings, then its notebooks (the cells joined, a marker between them)."""
        notebooks = [((lang, name), CELL_MARKER.join(code + "\n" for code in notebook_cells(built_site, lang, name)[0]))
                     for name in NOTEBOOKS]
        return [((lang, page), listing(built_site, lang, page)[0]) for page in PAGES] + notebooks

    work = [(PROBE_KEY, PROBE), *(item for lang in LANGS for item in copies(lang))]
    results = run_as_reader(reader_python, [code for _, code in work], tmp_path_factory.mktemp("reader"))
    return {what: result for (what, _), result in zip(work, results, strict=True)}


@pytest.mark.parametrize(("lang", "page"), CASES)
def test_listing_runs_as_copied_and_prints_what_the_page_shows(built_site: Path, reader_runs: dict, lang: str,
                                                               page: str) -> None:
    run = reader_runs[(lang, page)]
    assert run["ok"], f"{lang}/{page}: the copied listing failed:\n{run['error']}"
    printed, shown = run["printed"], listing(built_site, lang, page)[1]
    if "<table" in shown:
        expected, got = table_cells(shown), table_cells(printed)
        assert len(got) == len(expected) and got[0] == expected[0], f"{lang}/{page}: {got} vs {expected}"
        timed = {column for column, header in enumerate(expected[0]) if TIME_HEADER.search(header)}
        for want_row, got_row in zip(expected[1:], got[1:], strict=True):
            assert len(got_row) == len(want_row) and untimed(got_row, timed) == untimed(want_row, timed), \
                f"{lang}/{page}: printed {got_row}, the page shows {want_row}"
    else:
        assert printed.strip() == text(shown).strip(), f"{lang}/{page}"
    if lang != i18n.DEFAULT_LANG:
        assert "「" not in printed and "の" not in printed, f"{lang}/{page}: printed Japanese text: {printed}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_top_to_bottom_with_torch_only(built_site: Path, reader_runs: dict, lang: str,
                                                     name: str) -> None:
    run = reader_runs[(lang, name)]
    assert run["ok"], f"{lang}/{name}.ipynb failed when run top to bottom:\n{run['error']}"
    printed = run["printed"].split("\x00cell\n")
    stored = notebook_cells(built_site, lang, name)[1]
    assert len(printed) == len(stored)
    for got, want in zip(printed, stored, strict=True):
        if name == "exercise-3":  # timings: the same lines, the numbers (and the padding of their width) left out
            got, want = re.sub(r" *\d+(\.\d+)?", " #", got), re.sub(r" *\d+(\.\d+)?", " #", want)
        assert got == want, f"{lang}/{name}: the notebook shows {want!r}, a reader's run prints {got!r}"


def test_the_readers_python_has_torch_and_nothing_of_the_project(reader_runs: dict) -> None:
    """The reader's Python is not the project's: the lesson's package and MkDocs are not importable in it, its
    path has nothing of the checkout, and its torch is the pinned one (PROBE, in the process that runs the
    listings, before them)."""
    run = reader_runs[PROBE_KEY]
    assert run["ok"], run["error"]
    report = json.loads(run["printed"])
    found = report["found"]
    assert found["attention_lesson"].startswith("ModuleNotFoundError"), found
    assert found["mkdocs"].startswith("ModuleNotFoundError"), found
    assert found["torch"].split("+")[0] == torch_pin(), found
    assert report["isolated"] == 1
    checkout = str(ROOT)
    assert not [entry for entry in report["path"] if entry.startswith(checkout)], report["path"]


LIMITS = {"cost": 40, "scaling": 25}
"""Lines a page's listing may have (the lesson's own listings are 3 to 7 lines; a measurement needs more)."""
NOTEBOOK_LIMITS = {"exercise-3": 25}
LONGEST = 40


def lesson_code_problems(code: str) -> list[str]:
    """What in a listing exists for the machinery rather than for the reader."""
    problems = []
    imports = [line.strip() for line in code.splitlines() if re.match(r"\s*(import|from \S+ import) ", line)]
    problems += [f"imported twice: {line}" for line in sorted({i for i in imports if imports.count(i) > 1})]
    problems += [f"a private name: {name}" for name in sorted(set(re.findall(r"\b_[A-Za-z]\w*", code)))]
    problems += [f"{word} in the code" for word in ("kineto", "dataclass", "raise ", "isinstance", "#@save")
                 if word in code]
    if '"""' in code or "'''" in code:
        problems.append("a docstring")
    return problems


@pytest.mark.parametrize(("lang", "page"), CASES)
def test_listing_reads_like_the_lessons_own(built_site: Path, lang: str, page: str) -> None:
    """Every line a reader sees is there to teach or to print a number the page shows: short, plain, no
    validation or private helpers, no duplicated import, comments in the page's language."""
    code = listing(built_site, lang, page)[0]
    lines = code.rstrip("\n").splitlines()
    assert len(lines) <= LIMITS.get(page, LONGEST), f"{lang}/{page}: {len(lines)} lines"
    assert not lesson_code_problems(code), f"{lang}/{page}: {lesson_code_problems(code)}"
    if lang != i18n.DEFAULT_LANG:
        comments = [c for c in re.findall(r"#\s*(.*)", code) if re.search(r"[\u3040-\u30ff]", c)]
        assert not comments, f"{lang}/{page}: Japanese comments {comments}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_code_reads_like_the_lessons_own(built_site: Path, lang: str, name: str) -> None:
    code = "\n".join(notebook_cells(built_site, lang, name)[0])
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= NOTEBOOK_LIMITS.get(name, LONGEST), f"{lang}/{name}: {len(lines)} lines of code"
    assert not lesson_code_problems(code), f"{lang}/{name}: {lesson_code_problems(code)}"
