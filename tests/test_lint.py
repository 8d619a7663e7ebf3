"""ruff, on the project's own sources only (what git tracks, or would)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, run


def test_ruff_is_clean() -> None:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    files = [line for line in listed.stdout.splitlines() if line and not line.startswith("docs/")]
    if listed.returncode != 0:  # not a git checkout: the project's folders
        files = ["src", "snippets", "tests", ".ci"]
    proc = run([sys.executable, "-m", "ruff", "check", *files])
    assert proc.returncode == 0, proc.stdout + proc.stderr
