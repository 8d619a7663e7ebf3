"""The lesson, run from a terminal as a reader would, prints what the lesson text says it prints.

One run of ``python snippets/attention.py`` (every section, each its snippet file) is shared by the section
tests; that each listing also runs on its own, as copied, is tests/test_reader_code.py's."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import math
import re
import runpy
import sys
from pathlib import Path

import pytest
import test_lesson_values as values
import torch
from conftest import ROOT, SNIPPETS, run

import attention_lesson as al

# The lesson's printed values, typed once from the lesson text (test_lesson_values), in the forms this module
# compares: the tensors as torch prints them, the dictionaries as numbers.


def _tensor(rows: list[list[str]]) -> str:
    return "tensor([[" + "],\n        [".join(", ".join(row) for row in rows) + "]])"


LESSON_AVERAGING = _tensor(values.AVERAGING)
LESSON_CAUSAL = _tensor(values.CAUSAL)
LESSON_SCORES = {word: float(v) for word, v in values.SCORES.items()}
LESSON_SOFTMAX = {word: float(v) for word, v in values.WEIGHTS.items()}
LESSON_SOFTMAX_X5 = {word: float(v) for word, v in values.WEIGHTS_X5.items()}


def printed_dicts(output: str) -> list[dict[str, float]]:
    return [ast.literal_eval(m) for m in re.findall(r"\{.*?\}", output)]


def table_rows(output: str) -> list[list[str]]:
    """Body rows of the Markdown table a snippet printed."""
    lines = [line for line in output.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


@pytest.fixture(scope="module")
def lesson() -> str:
    """What `python snippets/attention.py` prints: every section, each under its `== N. ` heading (the run
    test_lesson_values checks the printed values of, if it has run in this process already)."""
    return values.terminal_output(())


def section(output: str, number: int) -> str:
    parts = re.split(r"^== (\d)\. .*$", output, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))[str(number)]


def test_section1_prints_the_lessons_averaging_matrix(lesson):
    out = section(lesson, 1)
    assert LESSON_AVERAGING in out
    assert out.rstrip().endswith("True")


def test_section2_scores_and_softmax_match_the_lesson(lesson):
    assert printed_dicts(section(lesson, 2)) == [LESSON_SCORES, LESSON_SOFTMAX, LESSON_SOFTMAX_X5]


def test_section3_standalone_snippet_reproduces_the_lessons_causal_weights(lesson):
    assert LESSON_CAUSAL in section(lesson, 3)


def test_section4_std_tracks_sqrt_d_and_scaling_keeps_softmax_spread(lesson):
    rows = table_rows(section(lesson, 4))
    assert [int(r[0]) for r in rows] == [16, 64, 256, 1024]
    for d, std, sqrt_d, _unscaled, scaled in rows:
        assert float(sqrt_d) == pytest.approx(math.sqrt(int(d)))
        assert float(std) == pytest.approx(math.sqrt(int(d)), rel=0.05), f"std at d={d}"
        assert 0.4 <= float(scaled) <= 0.5, f"scaled max weight at d={d}"
    unscaled = [float(r[3]) for r in rows]
    assert unscaled == sorted(unscaled), "without scaling softmax gets more peaked as d grows"
    assert unscaled[0] >= 0.75


def test_section5_head_shapes_and_agreement_with_sdpa(lesson):
    out = section(lesson, 5)
    assert "(5, 16)" in out and out.count("(5, 8)") == 2
    diff = float(re.search(r"scaled_dot_product_attention\D*([0-9.]+e[-+]\d+)", out).group(1))
    assert diff < 1e-6


def test_package_head_equals_the_listing():
    """The package's attention_head (the cost page's, marked #@save) computes what the section-5 listing does."""
    ns = runpy.run_path(str(SNIPPETS / "head.py"), run_name="lesson")
    out = al.attention_head(ns["x"], ns["W_q"], ns["W_k"], ns["W_v"])
    assert torch.equal(out, ns["out"])


def test_the_package_is_made_of_the_listings_code():
    """d2l's #@save: each function the package offers is defined in a listing, and only there."""
    offered = {"attention_head", "sdpa", "seconds", "peak_mib", "scaling_study"}
    assert offered <= set(dir(al))
    for name in offered:
        source = inspect.getsourcefile(getattr(al, name))
        assert Path(source).parent == SNIPPETS, f"{name} comes from {source}"
        assert f"def {name}(" in Path(source).read_text(encoding="utf-8")
    assert sorted(p.name for p in (ROOT / "src" / "attention_lesson").glob("*.py")) == ["__init__.py", "__main__.py"]
    with pytest.raises(AttributeError, match="the lesson saves attention_head"):
        al.cost_sweep  # noqa: B018 - an old name: the message says what there is


def test_the_packages_head_names_a_shape_mistake():
    """No validation in lesson code: torch's own message names the shapes that do not fit."""
    with pytest.raises(RuntimeError, match=r"5x16 and 15x8"):
        al.attention_head(torch.ones(5, 16), torch.ones(15, 8), torch.ones(16, 8), torch.ones(16, 8))


def test_whole_lesson_runs_from_a_terminal_with_the_lessons_headings(lesson):
    out = lesson
    headings = re.findall(r"^== (\d)\. ", out, flags=re.M)
    assert headings == ["1", "2", "3", "4", "5"]
    assert LESSON_AVERAGING in out and LESSON_CAUSAL in out


def test_section_flag_runs_one_section_and_module_entry_point_matches(lesson, monkeypatch):
    """`python -m attention_lesson --section 2 --lang ja` prints section 2 alone, as the whole lesson run from
    snippets/attention.py (in Japanese by default) printed it: the module's entry point, the section flag and
    the explicit source language. The module runs as `-m` runs it (runpy, as __main__, from the project's
    folder), in this process: that the command starts in a process of its own is the test below's, and the
    interpreter and torch would start for this alone."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["attention_lesson", "--section", "2", "--lang", "ja"])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), pytest.raises(SystemExit) as exit_status:
        runpy.run_module("attention_lesson", run_name="__main__", alter_sys=True)
    assert exit_status.value.code == 0
    out = printed.getvalue()
    assert re.findall(r"^== (\d)\.", out, flags=re.M) == ["2"]
    assert printed_dicts(out) == [LESSON_SCORES, LESSON_SOFTMAX, LESSON_SOFTMAX_X5]
    assert values.sections(out) == {2: values.sections(lesson)[2]}


@pytest.mark.parametrize(
    ("args", "env", "needle"),
    [
        (["--section", "9"], {}, "invalid choice: 9"),
        (["--section", "two"], {}, "invalid int value"),
        (["--lang", "xx"], {}, "unknown language code 'xx'"),
        ([], {"LESSON_LANG": "xx"}, "unknown language code 'xx'"),
        (["--bogus"], {}, "unrecognized arguments"),
    ],
)
def test_bad_cli_arguments_get_one_line_and_exit_2(args, env, needle):
    proc = run([sys.executable, "snippets/attention.py", *args], env=env, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr


def test_the_module_entry_point_is_a_command_of_its_own():
    """`python -m attention_lesson`, typed in the project's folder: its own process finds the project there
    and answers a language it does not have as the script does (before any section, so before torch starts)."""
    proc = run([sys.executable, "-m", "attention_lesson", "--lang", "xx"], check=False)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "unknown language code 'xx'" in proc.stderr


def test_every_snippet_file_is_on_a_page():
    pages = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "ja").glob("*.md"))
    pages += "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "ja" / "notebooks").glob("*.py"))
    runner = {"attention.py"}  # the terminal runner, shown on the index page as a command
    for snippet in sorted(SNIPPETS.glob("*.py")):
        if snippet.name not in runner:
            assert f'--8<-- "snippets/{snippet.name}' in pages, snippet.name
