"""Every way prose and code could drift apart makes the test command fail, naming the file to fix.

Each case breaks a temporary copy of the project and runs the project's own tests (or build) there. The cases
share one copy, each putting back what it broke (commands.edited); the copy's test sessions run in this process
(commands.pytest), as its builds do.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import commands
from conftest import PREBUILT_ENV, build_site


def replaced(path: Path, old: str, new: str) -> contextlib.AbstractContextManager[Path]:
    """`path` with `old` replaced by `new` while the test runs (the edit is asserted to change something)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path}: {old!r} not found"
    return commands.edited(path, text.replace(old, new))


@contextlib.contextmanager
def files_kept(folder: Path) -> Iterator[None]:
    """Every file under `folder` as it was, after the test: what a session run with --update-snapshots wrote
    is undone."""
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    try:
        yield
    finally:
        for path in [p for p in folder.rglob("*") if p.is_file() and p not in before]:
            path.unlink()
        for path, data in before.items():
            path.write_bytes(data)


def pytest_in(project: Path, *args: str, site: Path | None = None):
    """The README's test command, limited to some tests, run inside a copy of the project (reading `site`, the
    copy's build, instead of building it again), in this process (tests/commands.py)."""
    env = {PREBUILT_ENV: str(site)} if site else {}
    return commands.pytest(project, "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
                           f"--basetemp={project.parent / 'inner-session'}", *args, env=env)


def test_a_code_change_that_makes_a_prose_claim_false_fails(copy, tmp_path):
    snippet = copy / "snippets" / "scoring.py"
    with replaced(snippet, "q_guang = torch.tensor([1.0, 0.0])", "q_guang = torch.tensor([0.0, 1.0])"):
        build_site(copy, tmp_path / "site", env={"LESSON_LANG": "ja"})  # the claims are on the Japanese pages
        proc = pytest_in(copy, "tests/test_claims.py", "-k", "prose_claim", site=tmp_path / "site")
    assert proc.returncode == 1
    assert "docs/ja/query-key.md" in proc.stdout and "snippets/scoring.py" in proc.stdout


def test_a_translation_that_drops_a_listing_fails(copy):
    with replaced(copy / "docs" / "zh" / "head.md", '--8<-- "snippets/head.py"\n', ""):
        proc = pytest_in(copy, "tests/test_translations.py", "-k", "shipped")
    assert proc.returncode == 1
    assert "docs/zh/head.md" in proc.stdout and "snippets/head.py" in proc.stdout


def test_a_translation_that_changes_a_number_fails(copy):
    with replaced(copy / "docs" / "en" / "exercises.md", "4000", "8000"):
        proc = pytest_in(copy, "tests/test_claims.py", "-k", "same_numbers")
    assert proc.returncode == 1 and "docs/en/exercises.md" in proc.stdout


def test_a_link_to_a_missing_anchor_fails_the_build(copy, tmp_path):
    page = copy / "docs" / "ja" / "values.md"
    with commands.edited(page, page.read_text(encoding="utf-8") + "\n[戻る](averaging.md#no-such-heading)\n"):
        proc = build_site(copy, tmp_path / "site", env={"LESSON_LANG": "ja"}, check=False)
    assert proc.returncode != 0
    assert "values.md" in proc.stderr and "no-such-heading" in proc.stderr


def test_snapshot_catches_a_changed_output_and_the_update_flag_round_trips(copy):
    snapshots = copy / "tests" / "snapshots"
    with replaced(copy / "snippets" / "scoring.py", "[0.8, 0.2]", "[0.6, 0.4]"), files_kept(snapshots):
        proc = pytest_in(copy, "tests/test_snapshots.py", "-k", "scoring")
        assert proc.returncode == 1 and "tests/snapshots/ja/scoring.txt" in proc.stdout

        assert pytest_in(copy, "tests/test_snapshots.py", "-k", "scoring", "--update-snapshots").returncode == 0
        updated = {p: p.read_bytes() for p in snapshots.rglob("*.*")}
        assert re.search(r"'光': 0\.6\b", updated[snapshots / "ja" / "scoring.txt"].decode())
        assert pytest_in(copy, "tests/test_snapshots.py", "-k", "scoring").returncode == 0
        assert {p: p.read_bytes() for p in updated} == updated  # a clean run writes nothing
