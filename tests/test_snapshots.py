"""What readers see, stored in tests/snapshots/ so any change to it is a reviewable diff.

Every snippet's printed output in every language, and the data behind every figure, are compared with the
stored copy. Numbers are compared with a tolerance of one unit in their last printed digit (exponent-form
values, such as the 1e-7 difference to SDPA, by order of magnitude), because they vary by CPU; timings are not
stored at all. After an intended change:  .ci/env pytest tests/test_snapshots.py --update-snapshots
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re

import pytest
import torch
from conftest import LANGUAGES, ROOT, SNIPPETS

import attention_lesson as al
from attention_lesson.site import i18n

SNAPSHOTS = ROOT / "tests" / "snapshots"
TIMED = {"cost.py", "exercise_3.py", "attention.py"}  # timings; attention.py only runs the others
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def printed(name: str, lang: str) -> tuple[str, dict]:
    """What the listing prints as the page of `lang` shows it (comments and printed strings translated)."""
    path = SNIPPETS / name
    namespace = {"__name__": "__main__", "__file__": str(path)}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(i18n.localize_source(path.read_text(encoding="utf-8"), lang), str(path), "exec"), namespace)
    return out.getvalue(), namespace


def close(expected: str, actual: str) -> bool:
    if "e" in expected:
        return actual != "" and abs(math.log10(abs(float(expected))) - math.log10(abs(float(actual)) or 1e-300)) <= 1
    decimals = len(expected.split(".")[1]) if "." in expected else 0
    return abs(float(expected) - float(actual)) <= 10**-decimals + 1e-12


def assert_matches(path, actual: str, update: bool) -> None:
    if update or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        if not update:
            pytest.fail(f"{path.relative_to(ROOT)} did not exist and was written: review and commit it")
        return
    expected = path.read_text(encoding="utf-8")
    where = f"{path.relative_to(ROOT)} (update with --update-snapshots if intended)"
    assert NUMBER.sub("#", expected) == NUMBER.sub("#", actual), f"text changed: {where}\n{actual}"
    for want, got in zip(NUMBER.findall(expected), NUMBER.findall(actual), strict=True):
        assert close(want, got), f"{want} became {got}: {where}"


SNIPPET_FILES = sorted(p.name for p in SNIPPETS.glob("*.py") if p.name not in TIMED)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", SNIPPET_FILES)
def test_printed_output_matches_snapshot(name, lang, update_snapshots):
    output, _ = printed(name, lang)
    assert_matches(SNAPSHOTS / lang / name.replace(".py", ".txt"), output, update_snapshots)


def figure_data() -> str:
    """The values every figure draws (the same snippet variables the pages pass to attention_lesson.site.figures)."""
    data = {}
    for name, keys in {
        "averaging.py": ["weights"],
        "scoring.py": ["scores", "weights", "weights_x5"],
        "causal_mask.py": ["weights"],
        "head.py": ["weights"],
    }.items():
        _, ns = printed(name, "ja")
        for key in keys:
            data[f"{name}:{key}"] = [[round(v, 4) for v in row] if isinstance(row, list) else round(row, 4)
                                     for row in ns[key].tolist()]
    _, ns = printed("scaling.py", "ja")
    data["scaling.py:rows"] = [[d, *(round(v, 4) for v in row)] for d, row in ns["rows"].items()]
    # the cost page's memory columns (its times vary too much to store): peak MiB of the head and of SDPA
    W = [torch.randn(16, 8) for _ in range(3)]
    memory = []
    for T in (1000, 2000, 4000):
        x = torch.randn(T, 16)
        for f in (al.attention_head, al.sdpa):
            f(x, *W)  # warm, as the page's timing calls warm it before its memory is measured
        memory.append([T, *(round(al.peak_mib(f, x, *W), 4) for f in (al.attention_head, al.sdpa))])
    data["cost.py:memory"] = memory
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def test_figure_data_matches_snapshot(update_snapshots):
    assert_matches(SNAPSHOTS / "figure-data.json", figure_data(), update_snapshots)
