"""Every quantitative sentence of the lesson, checked against what the code printed in this build.

Each claim names the page and heading it guards and the snippet whose output, as the built page shows it,
decides it (the run the page shows is the one its prose is about; that a reader's own run prints the same is
tests/test_reader_code.py's). Values a page
quotes as {{ measured.* }} are generated from the code at build time; the claims here are the ones the prose
states in words or as round figures ("月 takes half", "between 0.4 and 0.5").
"""

from __future__ import annotations

import ast
import html
import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch
from conftest import LANGUAGES, ROOT
from test_lesson import printed_dicts, table_rows
from test_reader_code import listing, table_cells, text

import attention_lesson as al
from attention_lesson.site import claims


def printed_matrix(output: str) -> list[list[float]]:
    body = output[output.index("tensor(") + len("tensor("): output.index(")")]
    return ast.literal_eval(body)


@dataclass
class Claim:
    page: str
    heading: str
    snippet: str
    says: str
    holds: Callable[[str], bool]

    def __str__(self) -> str:
        return f"docs/ja/{self.page} «{self.heading}»: {self.says} (snippets/{self.snippet})"


def _guang(output: str) -> tuple[dict, dict, dict]:
    scores, weights, sharp = printed_dicts(output)
    return scores, weights, sharp


CLAIMS = [
    Claim("averaging.md", "最も単純な方法：平均を取る", "averaging.py",
          "3 番目の文字は前の三つを均等に見る; every row sums to 1",
          lambda out: printed_matrix(out)[2][:3] == [0.33, 0.33, 0.33]
          and all(abs(sum(r) - 1) < 0.02 for r in printed_matrix(out))),
    Claim("query-key.md", "クエリとキー：各文字に誰を見るべきかを決めさせる", "scoring.py",
          "「月」のスコアが最も高く、最も大きな重みを得ています",
          lambda out: max(_guang(out)[0], key=_guang(out)[0].get) == "月"
          and max(_guang(out)[1], key=_guang(out)[1].get) == "月"),
    Claim("query-key.md", "クエリとキー：各文字に誰を見るべきかを決めさせる", "scoring.py",
          "5 倍にすると「月」一つで半分を持っていきます",
          lambda out: _guang(out)[2]["月"] >= 0.5 and max(_guang(out)[2], key=_guang(out)[2].get) == "月"),
    Claim("causal-mask.md", "因果マスク：後ろを覗いてはいけない", "causal_mask.py",
          "下三角で、各行の合計は 1",
          lambda out: all(v == 0 for i, r in enumerate(printed_matrix(out)) for v in r[i + 1:])
          and all(abs(sum(r) - 1) < 0.02 for r in printed_matrix(out))),
    Claim("scaling.md", "なぜ次元の平方根で割るのか", "scaling.py",
          "標準偏差はおよそ d の平方根 (d=256 のときおよそ 16)",
          lambda out: all(abs(float(r[1]) / math.sqrt(int(r[0])) - 1) < 0.05 for r in table_rows(out))),
    Claim("scaling.md", "なぜ次元の平方根で割るのか", "scaling.py",
          "スケーリングしないと、ほぼすべての注目が一つの位置に向かう (largest d ≥ 0.9)",
          lambda out: float(table_rows(out)[-1][3]) >= 0.9),
    Claim("scaling.md", "なぜ次元の平方根で割るのか", "scaling.py",
          "d の平方根で割れば、各行で最も大きな重みは 0.4 から 0.5 の間",
          lambda out: all(0.4 <= float(r[4]) <= 0.5 for r in table_rows(out))),
    Claim("head.md", "完全なアテンションヘッド", "head.py",
          "結果は scaled_dot_product_attention と一致 (差は浮動小数点の誤差)",
          lambda out: float(re.search(r"(\d\.\de-\d+)", out)[1]) < 1e-6),
]


def shown_output(site, claim: Claim) -> str:
    """The output under the page's titled listing as the printed text (a table back as Markdown rows)."""
    page = claim.page.removesuffix(".md")
    raw = (site / page / "index.html").read_text(encoding="utf-8")
    assert f'<span class="filename">snippets/{claim.snippet}</span>' in raw, f"{claim}: the page lists another file"
    shown = listing(site, "ja", page)[1]
    if "<table" not in shown:
        return text(shown)
    header, *rows = table_cells(shown)
    return "\n".join("| " + " | ".join(cells) + " |" for cells in [header, ["---"] * len(header), *rows])


@pytest.mark.parametrize("claim", CLAIMS, ids=str)
def test_prose_claim_holds_for_the_shown_output(built_site, claim):
    page = (ROOT / "docs" / "ja" / claim.page).read_text(encoding="utf-8")
    assert f"# {claim.heading}" in page, f"{claim}: heading moved; update the claim"
    assert claim.holds(shown_output(built_site, claim)), f"prose no longer true: {claim}"


def _page(site, lang: str, page: str) -> str:
    raw = (site / ("" if lang == "ja" else lang) / page / "index.html").read_text(encoding="utf-8")
    return raw


def _table(raw: str) -> list[list[str]]:
    table = re.search(r"<table>.*?</table>", raw, flags=re.S)[0]
    return [[html.unescape(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)][1:]


def _prose(raw: str) -> str:
    body = re.sub(r"<(pre|table|svg|script)\b.*?</\1>", "", raw, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_measured_values_quoted_in_prose_are_the_ones_the_page_prints(built_site):
    """{{ measured.* }} comes from the run whose output the page shows, in every language."""

    for lang in LANGUAGES:
        scaling = _page(built_site, lang, "scaling")
        rows = _table(scaling)
        text = _prose(scaling)
        assert "{{" not in text, f"{lang}/scaling: an unfilled placeholder"
        # the prose rounds the run's value to 1 decimal, the table to 2: 15.95 in the table may be 15.9 or 16.0
        shown = float(rows[2][1])
        quoted = {f"{shown - 0.005:.1f}", f"{shown + 0.005:.1f}"}
        assert any(q in text for q in quoted), f"{lang}/scaling: std at d=256 ({shown}) not quoted from the table"
        assert min(r[3] for r in rows) in text and max(r[3] for r in rows) in text, f"{lang}/scaling"

        head = _page(built_site, lang, "head")
        diff = float(re.search(r"(\d\.\de-\d+)", head)[1])
        digit = str(-math.floor(math.log10(diff)))
        assert re.search(rf"\b{digit}\b", _prose(head)), f"{lang}/head: the digit {digit} of {diff} is not quoted"

        cost = _page(built_site, lang, "cost")
        exponents = _table(cost)[-1]
        text = _prose(cost)
        assert exponents[3] in text, f"{lang}/cost: the head's memory exponent not quoted"
        assert "{{" not in text


def test_every_language_shows_the_same_run(built_site):
    """One build publishes one cost table, one √d table and one set of notebook outputs, in every language."""

    for page in ("cost", "scaling"):
        tables = {lang: [row[1:] for row in _table(_page(built_site, lang, page))] for lang in LANGUAGES}
        assert len({str(t) for t in tables.values()}) == 1, f"{page}: the languages disagree: {tables}"
    outputs = {}
    for lang in LANGUAGES:
        nb = (built_site / ("" if lang == "ja" else lang) / "notebooks" / "exercise-3" / "exercise-3.ipynb")
        text = nb.read_text(encoding="utf-8")
        outputs[lang] = re.findall(r"\d+\.\d+ ms", text)
    assert outputs["ja"] and all(v == outputs["ja"] for v in outputs.values()), outputs


def test_every_measured_name_comes_from_its_session():
    """Each name a page can quote is computed by the session claims.NAMES says (and no other)."""
    assert set(claims.NAMES.values()) == set(claims.SESSIONS)


def test_the_heads_computation_grows_four_times_when_t_doubles():
    """docs/ja/cost.md «アテンションの代償»: "長さが倍になれば、計算量と…メモリは 4 倍になります", counted,
    not timed: the floating-point operations of the lesson's head (torch.utils.flop_counter), at T = 1000,
    2000 and 4000. The scores and the weighted sum are T×T×d each; only the projections grow as T, so each
    doubling of T gives a little under 4. The time the machine takes is the page's own run, which its prose
    quotes (the test above); a count does not depend on what else the machine is doing. The tensors are on
    PyTorch's meta device, which has shapes and no data: the operations are counted, not computed (2.4 CPU-s
    on the CPU device, 0.01 here; the counts are the same)."""
    from torch.utils.flop_counter import FlopCounterMode

    flops = {}
    for T in (1000, 2000, 4000):
        with torch.device("meta"), FlopCounterMode(display=False) as counter:  # the head's mask is made on it too
            al.attention_head(torch.randn(T, 16), *(torch.randn(16, 8) for _ in range(3)))
        flops[T] = counter.get_total_flops()
    ratios = [flops[2000] / flops[1000], flops[4000] / flops[2000]]
    # linear attention would give 2, a cubic algorithm 8
    assert all(3.5 < ratio <= 4 for ratio in ratios), f"docs/ja/cost.md: ×{ratios} per doubling of T, not ×4"


def test_every_language_states_the_same_numbers():
    """A translation that changes or drops a number (decimals, measured values, figures ≥ 10) fails."""
    def numbers(markdown: str) -> list[str]:
        prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
        prose = re.sub(r"`[^`]*`|\]\([^)]*\)", "", prose)
        found = re.findall(r"\{\{\s*measured\.\w+\s*\}\}|\d+\.\d+|\d{2,}", prose)
        return sorted(s.replace(" ", "") for s in found)

    for page in sorted((ROOT / "docs" / "ja").glob("*.md")):
        expected = numbers(page.read_text(encoding="utf-8"))
        for lang_dir in sorted(p for p in (ROOT / "docs").iterdir() if (p / "strings.yml").exists()):
            translated = lang_dir / page.name
            if translated.exists():
                assert numbers(translated.read_text(encoding="utf-8")) == expected, f"{translated} vs {page}"


def test_cost_page_memory_claims_hold(built_site):
    """docs/ja/cost.md «アテンションの代償»: the head's memory grows as T², SDPA's does not hold a T×T table."""
    exponents = _table(_page(built_site, "ja", "cost"))[-1]
    assert 1.8 <= float(exponents[3]) <= 2.2, "docs/ja/cost.md: the head's memory no longer grows as T²"
    # SDPA's fused kernel holds q, k, v and the output, T×d each: its peak grows as T, never as T²
    assert float(exponents[4]) <= 1.1, "docs/ja/cost.md: SDPA's peak memory now grows faster than T"


SDPA_POWER_LAW = re.compile(r"T\s*\^\s*\{?\s*0\.\d|0\.\d\s*(?:乗|次方)|power(?: of)?\s+0\.\d", re.I)
"""A sub-linear power law stated for SDPA's memory ("T の 0.2 乗", "T^0.2", "T to the power 0.2", "0.2 次方")."""


def _legend_slope(raw: str, lang: str, key: str) -> str:
    """The slope a figure's legend prints for one line, found through the language's legend text."""
    from attention_lesson.site import i18n

    legend = i18n.strings(lang)["ui"][key]
    pattern = re.escape(legend).replace(re.escape("{slope:.1f}"), r"(-?\d+\.\d)")
    found = re.search(pattern, html.unescape(raw))
    assert found, f"{lang}/cost: no legend {legend!r} in the figures"
    return found[1]


def test_cost_page_states_only_what_its_table_and_figures_show(built_site):
    """docs/*/cost.md «アテンションの代償»: every number the prose gives is that build's table or figure.

    Per doubling of T the page quotes the head's lowest and highest time ratio and the fitted exponent of its
    time: the ratios must be what the table's times give (up to their rounding to 0.1 ms), the exponent the
    table's own, as is the time figure's legend. The head's memory exponent is the table's. No power law is
    stated for SDPA's memory in words, and its exponent is never quoted (checked on the page's source, not by
    comparing two measured numbers, which can coincide).
    """

    for lang in LANGUAGES:
        raw = _page(built_site, lang, "cost")
        # the page's own sentences: no listing, table, figure or figure caption
        text = _prose(re.sub(r"<figure\b.*?</figure>", "", raw, flags=re.S))
        where = f"{lang}/cost"
        assert "{{" not in text and "measured." not in text, f"{where}: a placeholder left unfilled"

        *by_length, exponents = _table(raw)
        times = [float(row[1]) for row in by_length]  # the head's milliseconds, as printed (one decimal)
        ratios = []  # for each doubling, the range of ratios the printed times allow, and the quote's rounding
        for before, after in itertools.pairwise(times):
            assert before > 0.05, f"{where}: {before} ms is too short to bound a ratio"
            ratios.append(((after - 0.05) / (before + 0.05) - 0.05, (after + 0.05) / (before - 0.05) + 0.05))
        exact = {exponents[1], exponents[3]}  # head time, head memory

        stated = re.findall(r"-?\d+\.\d+", text)  # a loaded machine can print a negative exponent
        for value in exact:
            assert value in stated, f"{where}: {value} from the table or figure is not quoted: {stated}"
        lowest = min(ratios, key=lambda r: r[0] + r[1])
        highest = max(ratios, key=lambda r: r[0] + r[1])
        for low, high in (lowest, highest):
            assert any(low <= float(v) <= high for v in stated), (
                f"{where}: no quoted time ratio in [{low:.2f}, {high:.2f}], what the table's times give: {stated}")
        for value in stated:
            assert value in exact or any(low <= float(value) <= high for low, high in ratios), (
                f"{where}: the prose states {value}, which neither the table nor the figures show")

        assert not SDPA_POWER_LAW.search(text), f"{where}: a power law for SDPA: {SDPA_POWER_LAW.search(text)[0]}"
        source = (ROOT / "docs" / lang / "cost.md").read_text(encoding="utf-8")
        assert "measured.memory_exponent_sdpa " not in source.replace("}}", " }}"), f"{where}: SDPA's exponent quoted"
        # the figures are drawn from the same run: the time figure's legend gives the table's exponent
        assert _legend_slope(raw, lang, "fig_legend_naive") == exponents[1], f"{where}: the figure's slope"
