"""ruff is part of the test command, so CI fails on lint as on any other test."""

import sys

from conftest import ROOT, run


def test_ruff_is_clean():
    proc = run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
