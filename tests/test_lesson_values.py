"""The lesson's printed values, wherever a reader meets them, read exactly as the lesson text printed them.

The constants below are typed by hand from the lesson text (the original course's listings and what they
printed), not computed by the code under test nor read from snapshots. They are compared as printed strings, at
the lesson's precision and with no tolerance: "0.29" must read "0.29", and 0.30 where the lesson printed 0.29 is
a failure, not a rounding. They are checked, in every language that has a docs/<code>/strings.yml:

- in the built page, in the output block right after the section's listing (sections 1, 2, 3 and 5);
- in the figure drawn from the same run: the heatmaps of sections 1 and 3, and the bar charts and the explorer
  of section 2 as it is drawn before the reader moves it (the head's heatmap of section 5 draws weights the
  lesson never printed, so it has nothing to check; the explorer's ×5 and exercise 1's query are computed by
  the page's script, and checked in the browser, tests/test_browser.py);
- in the head page's prose, which names the decimal place where the head and PyTorch's SDPA differ (7);
- in the terminal: ``python snippets/attention.py`` by default (Japanese), and with ``--lang`` for every other
  language (its main() in the test's process; --lang ja is tests/test_lesson.py's).

The exercise notebooks (docs/<code>/notebooks/exercise-*.py and their executed copies in the site) show none of
these values: exercise 1 prints the scores and weights of another query, [0, 1]; exercise 2 the difference of
the head without its mask; exercise 3 timings. So they are not checked here.

The difference between the head and SDPA depends on the CPU (the lesson printed 2.4e-07): its form, a.be-07, is
checked, not its digits. Section 4 (√d) and the cost page are measurements of the machine that builds, and are
not checked here.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from conftest import LANGUAGES, ROOT, SNIPPETS, run

from attention_lesson.site import cli, i18n

WORDS = "床前明月光"

# ---- typed from the lesson text ----------------------------------------------------------------------------

# == 1. the averaging weights, then "3rd position = mean of the first three? True"
AVERAGING = [
    ["1.00", "0.00", "0.00", "0.00", "0.00"],
    ["0.50", "0.50", "0.00", "0.00", "0.00"],
    ["0.33", "0.33", "0.33", "0.00", "0.00"],
    ["0.25", "0.25", "0.25", "0.25", "0.00"],
    ["0.20", "0.20", "0.20", "0.20", "0.20"],
]
AVERAGING_CHECK = "True"

# == 2. the scores of 光, their softmax, and the softmax of the scores ×5 (Python's repr of round(v, 2))
SCORES = {"床": "0.1", "前": "0.0", "明": "0.9", "月": "1.0", "光": "0.8"}
WEIGHTS = {"床": "0.12", "前": "0.11", "明": "0.26", "月": "0.29", "光": "0.23"}
WEIGHTS_X5 = {"床": "0.01", "前": "0.0", "明": "0.3", "月": "0.5", "光": "0.18"}

# == 3. the weights after the causal mask
CAUSAL = [
    ["1.00", "0.00", "0.00", "0.00", "0.00"],
    ["0.96", "0.04", "0.00", "0.00", "0.00"],
    ["0.24", "0.26", "0.50", "0.00", "0.00"],
    ["0.09", "0.39", "0.43", "0.09", "0.00"],
    ["0.02", "0.14", "0.02", "0.09", "0.73"],
]

# == 5. input → q, k, v → output, and the largest difference from SDPA (2.4e-07: the 7th decimal place)
HEAD_SHAPES = ["(5, 16)", "(5, 8)", "(5, 8)"]
SDPA_DIFFERENCE = re.compile(r"[1-9]\.\de-07")
SDPA_DIGIT = "7"

# ---- where they are printed --------------------------------------------------------------------------------

LANGS = LANGUAGES
PAGES = {
    "averaging": "snippets/averaging.py",
    "query-key": "snippets/scoring.py",
    "causal-mask": "snippets/causal_mask.py",
    "head": "snippets/head.py",
}
"""The page of each section whose listing prints a lesson value, and the title of that listing."""
SECTION_OF = {"averaging": 1, "query-key": 2, "causal-mask": 3, "head": 5}
RUNS = ["default", *LANGS[1:]]
"""`python snippets/attention.py` alone (Japanese), then with --lang for every other language (--lang ja is
tests/test_lesson.py's, with the module's entry point)."""

NUMBER = re.compile(r"-?\d+\.\d+")
TENSOR = re.compile(r"tensor\(\[(.*?)\]\)", re.S)


# ---- reading printed text ----------------------------------------------------------------------------------


def printed_matrix(text: str) -> tuple[list[list[str]], str]:
    """The one tensor a listing printed, as rows of number strings, and what it printed after it."""
    found = list(TENSOR.finditer(text))
    assert len(found) == 1, f"expected one printed tensor, got {len(found)} in:\n{text}"
    rows = [row.split(", ") for row in re.findall(r"\[([^\[\]]*)\]", found[0][1])]
    return rows, text[found[0].end() :]


def printed_dicts(text: str) -> list[list[tuple[str, str]]]:
    """Every dict a listing printed, as its (character, number as printed) pairs in order."""
    return [re.findall(r"'([^']*)': ([^,}]+)", body) for body in re.findall(r"\{([^{}]*)\}", text)]


def check_averaging(text: str) -> None:
    matrix, after = printed_matrix(text)
    assert matrix == AVERAGING, f"section 1 printed\n{text}"
    lines = after.strip().splitlines()
    assert len(lines) == 1 and lines[0].split()[-1] == AVERAGING_CHECK, (
        f"section 1 should end with one line answering {AVERAGING_CHECK}, printed\n{text}"
    )


def check_scoring(text: str) -> None:
    expected = [list(SCORES.items()), list(WEIGHTS.items()), list(WEIGHTS_X5.items())]
    assert printed_dicts(text) == expected, f"section 2 printed\n{text}"


def check_causal(text: str) -> None:
    assert printed_matrix(text)[0] == CAUSAL, f"section 3 printed\n{text}"


def check_head(text: str) -> None:
    assert re.findall(r"\(\d+, \d+\)", text) == HEAD_SHAPES, f"section 5 printed\n{text}"
    differences = re.findall(r"\d+\.\d+e[-+]\d+", text)
    assert len(differences) == 1 and SDPA_DIFFERENCE.fullmatch(differences[0]), (
        f"section 5 should print one difference from SDPA of the form a.be-07, printed\n{text}"
    )


CHECKS: dict[int, Callable[[str], None]] = {1: check_averaging, 2: check_scoring, 3: check_causal, 5: check_head}
"""Section number → the check of what its listing prints."""


# ---- the built pages ---------------------------------------------------------------------------------------


def page(site: Path, lang: str, name: str) -> BeautifulSoup:
    """A built page: the source language at the site's root, every other one under its code."""
    folder = site if lang == i18n.DEFAULT_LANG else site / lang
    return BeautifulSoup((folder / name / "index.html").read_text(encoding="utf-8"), "html.parser")


def listing_result(soup: BeautifulSoup, title: str) -> Tag:
    """The output block markdown-exec renders right after the listing titled `title` (not the listing itself,
    whose source has its own `True`, `keepdim=True`)."""
    titles = soup.find_all("span", class_="filename", string=title)
    assert len(titles) == 1, f"expected one listing titled {title}, found {len(titles)}"
    result = titles[0].parent.find_next_sibling()
    assert isinstance(result, Tag) and "result" in result.get("class", []), f"no output block after {title}"
    return result


def check_listing(site: Path, lang: str, name: str) -> None:
    """The output a reader sees under the page's listing has the lesson's values."""
    result = listing_result(page(site, lang, name), PAGES[name])
    CHECKS[SECTION_OF[name]](result.get_text())


def numbers_in(svg: Tag) -> list[Tag]:
    return [t for t in svg.find_all("text") if NUMBER.fullmatch(t.get_text().strip())]


def at(text: Tag) -> tuple[float, float]:
    return float(text["x"]), float(text["y"])


def heatmap_cells(svg: Tag, size: int) -> list[list[str]]:
    """The numbers written in a size×size heatmap's cells, row by row as a reader reads them: the cells of one
    row differ in height by a fraction of a cell, so the rows are the size-long runs of cells sorted by y."""
    cells = numbers_in(svg)
    assert len(cells) == size * size, f"expected {size * size} numbers in the heatmap, got {len(cells)}"
    by_y = sorted(cells, key=lambda t: at(t)[1])
    rows = [sorted(by_y[i : i + size], key=lambda t: at(t)[0]) for i in range(0, len(by_y), size)]
    return [[t.get_text().strip() for t in row] for row in rows]


def bar_labels(svg: Tag) -> list[list[tuple[str, str]]]:
    """Each bar chart's (character under the bar, number above it) pairs, charts and bars left to right."""
    numbers = sorted(numbers_in(svg), key=lambda t: at(t)[0])
    words = sorted((t for t in svg.find_all("text") if t.get_text() in tuple(WORDS)), key=lambda t: at(t)[0])
    assert len(numbers) == len(words), f"{len(numbers)} numbers for {len(words)} bars"
    pairs = [(w.get_text(), n.get_text().strip()) for w, n in zip(words, numbers, strict=True)]
    return [pairs[i : i + len(WORDS)] for i in range(0, len(pairs), len(WORDS))]


def two_decimals(values: dict[str, str]) -> list[tuple[str, str]]:
    """The lesson's values as the figures write them, with two decimals: the lesson printed round(v, 2) in
    Python's shortest form, so 0.1 is 0.10 and 0.0 is 0.00, and nothing is rounded again."""
    return [(w, f"{float(v):.2f}") for w, v in values.items()]


def check_explorer(site: Path, lang: str) -> None:
    """Section 2's explorer, before the reader moves it (and as a reader without JavaScript sees it), is at
    the lesson's query [1, 0] and multiplier 1: its bars write the lesson's scores and weights, and its
    multipliers include the lesson's 5."""
    explorers = page(site, lang, "query-key").select("figure[data-qk]")
    assert len(explorers) == 1, f"expected one explorer, found {len(explorers)}"
    words = [s.get_text() for s in explorers[0].select(".lesson-qk__word")]
    shown = list(zip(words, (s.get_text() for s in explorers[0].select(".lesson-qk__value")), strict=True))
    assert shown == two_decimals(SCORES) + two_decimals(WEIGHTS), f"the explorer opens showing {shown}"
    assert explorers[0].select_one(".lesson-qk__q").get_text() == "q = [1.00, 0.00]"
    scale = explorers[0].select_one(".lesson-qk__scale output")
    assert scale is not None and scale.get_text() == "×1", "the explorer should open at multiplier 1"
    assert 5.0 in json.loads(explorers[0]["data-qk"])["scales"], "the explorer has no multiplier 5"


def check_figure(site: Path, lang: str, name: str) -> None:
    """The figure under the listing's output writes the lesson's values (two decimals, as the lesson prints
    its weight matrices)."""
    figure = listing_result(page(site, lang, name), PAGES[name]).find_next_sibling("figure")
    assert figure is not None and figure.svg is not None, f"no figure after the output of {PAGES[name]}"
    if name == "query-key":
        bars = bar_labels(figure.svg)
        assert bars == [two_decimals(SCORES), two_decimals(WEIGHTS), two_decimals(WEIGHTS_X5)], f"the bars: {bars}"
    else:
        expected = {"averaging": AVERAGING, "causal-mask": CAUSAL}[name]
        cells = heatmap_cells(figure.svg, len(expected))
        assert cells == expected, f"the heatmap's cells: {cells}"


def check_head_prose(site: Path, lang: str) -> None:
    """The head page says in words where the head and SDPA differ: in the 7th decimal place."""
    paragraphs = [
        p for p in page(site, lang, "head").find_all("p") if p.find("code", string="scaled_dot_product_attention")
    ]
    numbers = [n for p in paragraphs for n in re.findall(r"\d+", p.get_text())]
    assert numbers == [SDPA_DIGIT], f"the prose about SDPA states {numbers}"


# ---- the terminal ------------------------------------------------------------------------------------------


def sections(output: str) -> dict[int, str]:
    """What `python snippets/attention.py` printed under each `== N. ` heading."""
    parts = re.split(r"^== (\d+)\. .*$", output, flags=re.M)
    return {int(number): text for number, text in zip(parts[1::2], parts[2::2], strict=True)}


Terminal = Callable[[str], dict[int, str]]


@functools.cache
def terminal_output(args: tuple[str, ...]) -> str:
    """What `python snippets/attention.py ARGS` prints, run once per test process: tests/test_lesson.py reads the
    same run of the plain command when it shares this module's process. The plain command runs as the reader
    types it, in a process of its own; with --lang, the command's main() runs in this process (its output is
    the same, without an interpreter and torch starting for each language)."""
    if not args:
        return run([sys.executable, "snippets/attention.py"], cwd=ROOT).stdout
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert cli.main(list(args), folder=SNIPPETS) == 0
    return printed.getvalue()


@pytest.fixture(scope="module")
def terminal() -> Terminal:
    """The lesson as a reader runs it in a terminal, once per language, by section."""
    def args(lang: str) -> tuple[str, ...]:
        return () if lang == "default" else ("--lang", lang)

    return {lang: sections(terminal_output(args(lang))) for lang in RUNS}.__getitem__


# ---- the tests ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("lang", LANGS)
def test_listing_output_on_the_page_prints_the_lessons_values(built_site: Path, lang: str, name: str) -> None:
    check_listing(built_site, lang, name)


@pytest.mark.parametrize("name", ["averaging", "query-key", "causal-mask"])
@pytest.mark.parametrize("lang", LANGS)
def test_figure_writes_the_lessons_values(built_site: Path, lang: str, name: str) -> None:
    check_figure(built_site, lang, name)


@pytest.mark.parametrize("lang", LANGS)
def test_explorer_opens_on_the_lessons_scores_and_weights(built_site: Path, lang: str) -> None:
    check_explorer(built_site, lang)


@pytest.mark.parametrize("lang", LANGS)
def test_head_prose_names_the_lessons_decimal_place(built_site: Path, lang: str) -> None:
    check_head_prose(built_site, lang)


@pytest.mark.parametrize("lang", RUNS)
def test_terminal_prints_every_section_in_order(terminal: Terminal, lang: str) -> None:
    assert list(terminal(lang)) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("number", CHECKS)
@pytest.mark.parametrize("lang", RUNS)
def test_terminal_prints_the_lessons_values(terminal: Terminal, lang: str, number: int) -> None:
    printed = terminal(lang)
    assert number in printed, f"no section {number} in the output"
    CHECKS[number](printed[number])
