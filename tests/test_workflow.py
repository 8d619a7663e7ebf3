"""The user's CI on GitHub: installs with the README's commands, tests, deploys only from the default branch."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml
from conftest import ROOT, run

WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"


def test_workflow_is_valid_and_lints_clean():
    run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)])
    zizmor = Path(sys.executable).with_name("zizmor")
    proc = run([str(zizmor), "--offline", "--no-progress", str(WORKFLOW)], check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_workflow_runs_the_readme_commands_and_deploys_only_from_main():
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    test = flow["jobs"]["test"]
    assert test["runs-on"] == "${{ matrix.os }}"
    assert sorted(system.split("-")[0] for system in test["strategy"]["matrix"]["os"]) == ["macos", "ubuntu", "windows"]
    steps = [s.get("run", "") for s in test["steps"]]
    # the same command on all three (PowerShell, Windows' default shell, runs it too), and the README's
    assert "python .ci/env pytest" in steps and "python .ci/env pytest" in readme
    assert "python3 .ci/env pytest" in readme and "py .ci\\env pytest" in readme  # macOS and Linux; Windows
    by_command = {s.get("run"): s for s in test["steps"]}
    assert "runner.os != 'Linux'" in by_command["python .ci/env pytest"]["env"]["LESSON_NO_BROWSER"]
    assert by_command["python .ci/env mkdocs build"]["if"] == "runner.os == 'Linux'"  # the site, from Linux
    assert flow[True]["pull_request"] is None  # `on:` parses as True; pull requests build and test
    deploy = flow["jobs"]["deploy"]
    assert deploy["needs"] == "test"
    assert "pull_request" in deploy["if"] and "refs/heads/main" in deploy["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
