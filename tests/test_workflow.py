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
    steps = [s.get("run", "") for s in flow["jobs"]["test"]["steps"]]
    assert ".ci/env pytest" in steps and ".ci/env pytest" in readme
    assert flow[True]["pull_request"] is None  # `on:` parses as True; pull requests build and test
    deploy = flow["jobs"]["deploy"]
    assert deploy["needs"] == "test"
    assert "pull_request" in deploy["if"] and "refs/heads/main" in deploy["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
