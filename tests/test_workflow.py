"""The GitHub workflow: valid, lint-clean, bounded in time, and running the README's commands."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml
from conftest import ROOT, run

WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"


def test_workflow_is_valid_and_lints_clean() -> None:
    proc = run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                str(WORKFLOW)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run([str(Path(sys.executable).with_name("zizmor")), "--offline", "--no-progress", str(WORKFLOW)])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_job_has_a_time_limit_and_tests_with_the_readme_command() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert all(isinstance(job.get("timeout-minutes"), int) for job in flow["jobs"].values())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    steps = [step.get("run", "") for step in flow["jobs"]["test"]["steps"]]
    assert "python .ci/env pytest" in steps
    assert ".ci/env pytest" in readme
    deploy = flow["jobs"]["deploy"]
    assert "pull_request" in deploy["if"] and "refs/heads/main" in deploy["if"]
