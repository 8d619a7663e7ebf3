"""Every way prose and code could drift apart makes the test command fail, naming the file to fix.

Each case breaks a temporary copy of the project and runs the project's own tests (or build) there.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from conftest import PREBUILT_ENV, build_site, run


def pytest_in(project: Path, *args: str, site: Path | None = None):
    """The README's test command, limited to some tests, run inside a copy of the project (reading `site`, the
    copy's build, instead of building it again)."""
    env = {"PYTHONPATH": str(project / "src"), **({PREBUILT_ENV: str(site)} if site else {})}
    return run([sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider", *args], cwd=project,
               env=env, check=False)


def test_a_code_change_that_makes_a_prose_claim_false_fails(project_copy, tmp_path):
    snippet = project_copy / "snippets" / "scoring.py"
    text = snippet.read_text(encoding="utf-8")
    snippet.write_text(text.replace("q_guang = torch.tensor([1.0, 0.0])", "q_guang = torch.tensor([0.0, 1.0])"))
    build_site(project_copy, tmp_path / "site", env={"LESSON_LANG": "ja"})  # the claims are on the Japanese pages
    proc = pytest_in(project_copy, "tests/test_claims.py", "-k", "prose_claim", site=tmp_path / "site")
    assert proc.returncode == 1
    assert "docs/ja/query-key.md" in proc.stdout and "snippets/scoring.py" in proc.stdout


def test_a_translation_that_drops_a_listing_fails(project_copy):
    page = project_copy / "docs" / "zh" / "head.md"
    page.write_text(page.read_text(encoding="utf-8").replace('--8<-- "snippets/head.py"\n', ""))
    proc = pytest_in(project_copy, "tests/test_translations.py", "-k", "shipped")
    assert proc.returncode == 1
    assert "docs/zh/head.md" in proc.stdout and "snippets/head.py" in proc.stdout


def test_a_translation_that_changes_a_number_fails(project_copy):
    page = project_copy / "docs" / "en" / "exercises.md"
    page.write_text(page.read_text(encoding="utf-8").replace("4000", "8000"))
    proc = pytest_in(project_copy, "tests/test_claims.py", "-k", "same_numbers")
    assert proc.returncode == 1 and "docs/en/exercises.md" in proc.stdout


def test_a_link_to_a_missing_anchor_fails_the_build(project_copy, tmp_path):
    page = project_copy / "docs" / "ja" / "values.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[戻る](averaging.md#no-such-heading)\n")
    proc = build_site(project_copy, tmp_path / "site", env={"LESSON_LANG": "ja"}, check=False)
    assert proc.returncode != 0
    assert "values.md" in proc.stderr and "no-such-heading" in proc.stderr


def test_snapshot_catches_a_changed_output_and_the_update_flag_round_trips(project_copy):
    snippet = project_copy / "snippets" / "scoring.py"
    snippet.write_text(snippet.read_text(encoding="utf-8").replace("[0.8, 0.2]", "[0.6, 0.4]"))
    proc = pytest_in(project_copy, "tests/test_snapshots.py", "-k", "scoring")
    assert proc.returncode == 1 and "tests/snapshots/ja/scoring.txt" in proc.stdout

    assert pytest_in(project_copy, "tests/test_snapshots.py", "-k", "scoring", "--update-snapshots").returncode == 0
    updated = {p: p.read_bytes() for p in (project_copy / "tests" / "snapshots").rglob("*.*")}
    assert re.search(r"'光': 0\.6\b", updated[project_copy / "tests" / "snapshots" / "ja" / "scoring.txt"].decode())
    assert pytest_in(project_copy, "tests/test_snapshots.py", "-k", "scoring").returncode == 0
    assert {p: p.read_bytes() for p in updated} == updated  # a clean run writes nothing
