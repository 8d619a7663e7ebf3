"""The figures: valid inline SVG, the snippets' numbers, the page's language, the same bytes every build."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import runpy
import shutil
import xml.etree.ElementTree as ET

import pytest
import torch
import torch.nn.functional as F
import yaml
from conftest import LANGUAGES, SNIPPETS

import attention_lesson as al
from attention_lesson.site import i18n
from attention_lesson.site.figures import (
    PALETTE,
    QUERY_RANGE,
    WORDS,
    contrast,
    cost_svg,
    figure,
    figure_html,
    heatmap_svg,
    memory_svg,
    query_explorer,
    scaling_svg,
    scores_svg,
    slope,
)

pytestmark = pytest.mark.filterwarnings("error")  # no missing-glyph (or any other) warning while drawing

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"^-?\d+\.\d\d$")
DARK = "#1e2129"


def averaging_weights(T: int) -> torch.Tensor:
    """snippets/averaging.py's weights."""
    weights = torch.ones(T, T).tril()
    return weights / weights.sum(dim=1, keepdim=True)


def causal_weights() -> torch.Tensor:
    """snippets/causal_mask.py's weights."""
    torch.manual_seed(0)
    torch.randn(5, 4)
    q, k = torch.randn(5, 8), torch.randn(5, 8)
    scores = (q @ k.T / math.sqrt(8)).masked_fill(~torch.ones(5, 5, dtype=torch.bool).tril(), float("-inf"))
    return F.softmax(scores, dim=-1)


def section2() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """snippets/scoring.py's three vectors."""
    k = torch.tensor([[0.1, 0.9], [0.0, 1.0], [0.9, 0.1], [1.0, 0.0], [0.8, 0.2]])
    scores = k @ torch.tensor([1.0, 0.0])
    return scores, F.softmax(scores, dim=-1), F.softmax(scores * 5, dim=-1)


def cost_table() -> dict[int, list[float]]:
    """snippets/cost.py's table: ms of the head (∝ T²), ms of SDPA (∝ T), MiB of the head (∝ T²), of SDPA (∝ T)."""
    return {T: [1e-6 * T**2, 2e-3 * T, 10 * T**2 / 2**20, 128 * T / 2**20] for T in (1000, 2000, 4000)}


@pytest.fixture(scope="module")
def rows() -> dict[int, tuple[float, float, float]]:
    """snippets/scaling.py's rows, from the lesson's own scaling_study (fewer draws)."""
    return {d: al.scaling_study(d, n=50) for d in (16, 64, 256)}


@pytest.fixture(scope="module")
def figures(rows) -> dict[str, str]:
    return {
        "avg": heatmap_svg(averaging_weights(5), "avg"),
        "causal": heatmap_svg(causal_weights(), "causal"),
        "head": heatmap_svg(causal_weights().tolist(), "head"),
        "scores": scores_svg(*section2()),
        "scaling": scaling_svg(rows),
        "cost": cost_svg(cost_table()),
        "memory": memory_svg(cost_table()),
    }


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def texts(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in parse(svg).iter(f"{SVG}text")]


def cell_texts(svg: str) -> list[str]:
    return [t for t in texts(svg) if NUMBER.match(t)]


# ------------------------------------------------------------------------------------------ every figure


def test_every_figure_is_an_inline_svg_with_alt_text(figures):
    for name, svg in figures.items():
        root = parse(svg)
        assert svg.startswith("<svg"), name
        assert "<?xml" not in svg and "DOCTYPE" not in svg and "<metadata" not in svg, name
        assert root.get("role") == "img", name
        title = root.find(f"{SVG}title")
        assert title is not None and list(root)[0] is title, name
        assert root.get("aria-label") == title.text and len(title.text) > 10, name
        assert root.get("width") == "100%" and "max-width" in root.get("style"), name
        assert root.get("viewBox") and root.get("height") is None, name
        assert len(svg.encode()) < 40_000, (name, len(svg.encode()))


def test_no_raster_no_external_reference_no_page_wide_style(figures):
    for name, svg in figures.items():
        root = parse(svg)
        assert not list(root.iter(f"{SVG}image")), name
        assert not list(root.iter(f"{SVG}style")), name  # a <style> in an inline SVG styles the whole page
        for element in root.iter():
            for attribute, value in element.attrib.items():
                if attribute.endswith("href"):
                    assert value.startswith("#"), (name, value)
        assert "http" not in re.sub(r'xmlns(:xlink)?="[^"]*"', "", svg), name
        assert "font-family" not in svg, name  # the text takes the page's font


def test_ids_are_unique_and_references_resolve(figures):
    seen: set[str] = set()
    for name, svg in figures.items():
        ids = re.findall(r' id="([^"]+)"', svg)
        assert len(ids) == len(set(ids)), name
        assert not seen & set(ids), f"{name} repeats an id of another figure"
        seen |= set(ids)
        for ref in re.findall(r'url\(#([^)]+)\)', svg) + re.findall(r'href="#([^"]+)"', svg):
            assert ref in ids, (name, ref)


def test_ink_is_current_color(figures):
    for name, svg in figures.items():
        assert "#010203" not in svg and "#000000" not in svg, name
        assert "currentColor" in svg, name
        for t in parse(svg).iter(f"{SVG}text"):
            fill = re.search(r"fill: ([^;]+)", t.get("style", ""))
            assert fill is not None, (name, "".join(t.itertext()))
            # currentColor everywhere but on the heatmap's filled cells, whose text contrasts with the cell
            assert fill.group(1) == "currentColor" or name in ("avg", "causal", "head"), (name, fill.group(1))


def test_deterministic(figures, rows):
    again = {
        "avg": heatmap_svg(averaging_weights(5), "avg"),
        "causal": heatmap_svg(causal_weights(), "causal"),
        "head": heatmap_svg(causal_weights().tolist(), "head"),
        "scores": scores_svg(*section2()),
        "scaling": scaling_svg(rows),
        "cost": cost_svg(cost_table()),
        "memory": memory_svg(cost_table()),
    }
    assert again == figures


def test_deterministic_across_processes(built_site):
    """The averaging page's figure as the session's build drew it, in a process of its own (with a hash seed of
    its own), is the one this process draws from the same weights, to the byte."""
    page = (built_site / "averaging" / "index.html").read_text(encoding="utf-8")
    assert figure("avg", averaging_weights(5)) in page


def test_data_colours_readable_on_light_and_dark():
    for colour in PALETTE:
        assert contrast(colour, "#ffffff") >= 3, colour
        assert contrast(colour, DARK) >= 3, colour


# -------------------------------------------------------------------------------------------- heatmaps


@pytest.mark.parametrize("kind", ["avg", "causal", "head"])
def test_heatmap_labels_and_title(kind):
    svg = heatmap_svg(causal_weights(), kind)
    found = texts(svg)
    for char in WORDS:
        assert found.count(char) == 2, char  # once on each axis
    assert i18n.ui(f"fig_{kind}_title") in found
    assert i18n.ui("fig_axis_query") in found and i18n.ui("fig_axis_key") in found


RANDOM = torch.rand(5, 5, generator=torch.Generator().manual_seed(1)) * 1.5


@pytest.mark.parametrize("weights", [averaging_weights(5), causal_weights(), RANDOM])
def test_heatmap_cells_are_the_values_rounded(weights):
    expected = [round(v, 2) for row in weights.tolist() for v in row]
    cells = cell_texts(heatmap_svg(weights))
    assert [float(c) for c in cells] == expected
    assert cells == [f"{v:.2f}" for v in expected]


def test_heatmap_takes_the_snippet_output():
    """Run snippets/causal_mask.py and compare its printed weights with the figure's cells (in this process:
    that the file runs as a reader runs it is tests/test_reader_code.py's)."""
    printed_out = io.StringIO()
    with contextlib.redirect_stdout(printed_out):
        runpy.run_path(str(SNIPPETS / "causal_mask.py"), run_name="__main__")
    out = printed_out.getvalue()
    printed = [float(v) for v in re.findall(r"-?\d+\.\d+", out)]
    assert [float(c) for c in cell_texts(heatmap_svg(causal_weights(), "causal"))] == printed


def test_heatmap_tensor_and_list_give_the_same_figure():
    w = causal_weights()
    assert heatmap_svg(w, "head") == heatmap_svg(w.tolist(), "head")


def test_heatmap_other_labels():
    svg = heatmap_svg(averaging_weights(3), labels=["a", "b", "c"])
    assert texts(svg).count("b") == 2
    assert len(cell_texts(svg)) == 9


@pytest.mark.parametrize(
    "weights, labels",
    [
        (torch.rand(5, 4), WORDS),
        (torch.rand(4, 5), WORDS),
        (torch.rand(5), WORDS),
        (torch.rand(1, 5, 5), WORDS),
        (torch.rand(4, 4), WORDS),
        (torch.rand(5, 5), "床前明月"),
        ([[0.5, 0.5], [1.0]], "ab"),
        ([[0.5, float("nan")], [0.5, 0.5]], "ab"),
        ([["a", 0.5], [0.5, 0.5]], "ab"),
        ([], WORDS),
    ],
)
def test_heatmap_bad_shapes(weights, labels):
    with pytest.raises(ValueError):
        heatmap_svg(weights, labels=labels)


def test_heatmap_shape_message():
    with pytest.raises(ValueError, match="T must equal len"):
        heatmap_svg(torch.rand(4, 4))
    with pytest.raises(ValueError, match="square"):
        heatmap_svg(torch.rand(5, 4))


def test_heatmap_unknown_kind_and_type():
    with pytest.raises(ValueError, match="kind"):
        heatmap_svg(averaging_weights(5), "scores")
    with pytest.raises(TypeError):
        heatmap_svg(3.0)


# -------------------------------------------------------------------------------------- the other figures


def test_scores_figure():
    vectors = section2()
    svg = scores_svg(*vectors)
    found = texts(svg)
    for char in WORDS:
        assert found.count(char) == 3, char  # one axis per panel
    for key in ("fig_scores_title", "fig_scores_panel_scores", "fig_scores_panel_softmax", "fig_scores_panel_x5"):
        assert i18n.ui(key) in found, key
    expected = [round(v, 2) for vector in vectors for v in vector.tolist()]
    assert [float(c) for c in cell_texts(svg)] == expected
    assert scores_svg(*(v.tolist() for v in vectors)) == svg


def test_scores_figure_bad_lengths():
    scores, weights, x5 = section2()
    with pytest.raises(ValueError, match="labels"):
        scores_svg(scores, weights[:4], x5)
    with pytest.raises(ValueError):
        scores_svg(scores[None], weights, x5)


def test_scaling_figure(rows):
    found = texts(scaling_svg(rows))
    for key in ("fig_scaling_title", "fig_scaling_std_title", "fig_scaling_max_title", "fig_scaling_measured",
                "fig_scaling_unscaled", "fig_scaling_scaled", "fig_axis_d"):
        assert i18n.ui(key) in found, key
    assert {"16", "64", "256", "√d"} <= set(found)
    with pytest.raises(ValueError):
        scaling_svg([])


def test_cost_figure_legend_has_the_fitted_slopes():
    found = texts(cost_svg(cost_table()))
    assert i18n.ui("fig_legend_naive").format(slope=2.0) in found
    assert i18n.ui("fig_legend_sdpa").format(slope=1.0) in found
    assert {"1000", "2000", "4000", i18n.ui("fig_cost_title"), i18n.ui("fig_axis_T")} <= set(found)
    one_row = {1000: cost_table()[1000]}
    with pytest.raises(ValueError, match="at least two rows"):
        cost_svg(one_row)
    with pytest.raises(ValueError, match="positive"):
        cost_svg({1000: [0.0, 1.0, 1.0, 1.0], 2000: [1.0, 1.0, 1.0, 1.0]})
    with pytest.raises(ValueError, match="must be 4 numbers"):
        cost_svg({1000: [1.0, 1.0], 2000: [1.0, 1.0]})


def test_memory_figure():
    found = texts(memory_svg(cost_table()))
    assert i18n.ui("fig_legend_naive").format(slope=2.0) in found
    assert i18n.ui("fig_legend_sdpa").format(slope=1.0) in found
    assert i18n.ui("fig_memory_title") in found
    with pytest.raises(ValueError):
        memory_svg([1, 2, 3])


def test_figure_html():
    svg = heatmap_svg(averaging_weights(5))
    page = figure_html(svg, "平均 <b> & 重み")
    assert page.startswith('<figure class="lesson-figure">') and page.endswith("</figure>")
    assert svg in page
    assert "<figcaption>平均 &lt;b&gt; &amp; 重み</figcaption>" in page
    ET.fromstring(page)
    with pytest.raises(ValueError):
        figure_html("<p>not a figure</p>", "x")


# ------------------------------------------------------------------ what the page's script makes live

KEYS = torch.tensor([[0.1, 0.9], [0.0, 1.0], [0.9, 0.1], [1.0, 0.0], [0.8, 0.2]])  # snippets/scoring.py's k
EXPLORER_KEYS = ("qk_plane_alt", "qk_axis_x", "qk_axis_y", "qk_handle", "qk_preset_lesson", "qk_preset_exercise",
                 "qk_live", "qk_caption", "list_sep", "heat_hint", "heat_row", "heat_masked", "slider_label")


def soup(markup: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(markup, "html.parser")


def test_query_explorer_is_drawn_at_the_listings_query():
    """Before the script moves anything (and without it), the explorer is the listing: 光's query [1, 0], its
    scores and weights at multiplier 1, the five keys as labelled arrows; the data it hands the script are the
    tensors it was given."""
    markup = query_explorer(KEYS, torch.tensor([1.0, 0.0]), list(WORDS))
    assert query_explorer(KEYS.tolist(), [1.0, 0.0], WORDS) == markup  # tensors or lists, the same bytes
    fig = soup(markup).select_one("figure.lesson-figure.lesson-qk")
    data = json.loads(fig["data-qk"])
    assert data["keys"] == KEYS.tolist() and data["labels"] == list(WORDS)
    assert data["presets"] == [[1.0, 0.0], [0.0, 1.0]] and data["range"] == list(QUERY_RANGE)
    assert data["text"] == {"live": i18n.ui("qk_live"), "sep": i18n.ui("list_sep")}
    scores, weights, _ = section2()
    shown = [v.get_text() for v in fig.select(".lesson-qk__value")]
    assert shown == [f"{round(v, 2):.2f}" for v in scores.tolist() + weights.tolist()]
    assert [w.get_text() for w in fig.select(".lesson-qk__word")] == list(WORDS) * 2
    plane = ET.fromstring(str(fig.select_one("svg.lesson-qk__plane")))  # well-formed SVG
    words = [t.text for t in plane.iter(f"{SVG}text")]
    for char in WORDS:
        assert words.count(char) == 1, char
    assert any(i18n.ui("qk_axis_x") in (w or "") for w in words)
    handle = fig.select_one(".lesson-qk__handle")
    assert handle["role"] == "slider" and handle["aria-valuetext"] == "q = [1.00, 0.00]"
    assert fig.find(id=handle["aria-describedby"])["aria-live"] == "polite"
    presets = [b.get_text() for b in fig.select("button.lesson-qk__preset")]
    assert presets == [i18n.ui("qk_preset_lesson").format(q="[1, 0]"), i18n.ui("qk_preset_exercise").format(q="[0, 1]")]
    assert all(b.has_attr("disabled") for b in fig.select("button, input"))  # the script enables them
    assert fig.select_one("label")["for"] == fig.select_one("input[type=range]")["id"]
    assert fig.figcaption.get_text() == i18n.ui("qk_caption")
    assert "<image" not in markup and "http" not in markup.replace("http://www.w3.org", "")


def test_query_explorer_checks_what_it_is_given():
    with pytest.raises(ValueError, match="N×2"):
        query_explorer(torch.rand(5, 3), [1.0, 0.0])
    with pytest.raises(ValueError, match="labels"):
        query_explorer(KEYS, [1.0, 0.0], "床前")
    with pytest.raises(ValueError, match="within"):
        query_explorer(KEYS, [2.0, 0.0])
    with pytest.raises(ValueError, match="exercise"):
        query_explorer(KEYS, [1.0, 0.0], exercise=[0.0, 1.0, 0.0])


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_live_figures_speak_the_pages_language(code):
    table = i18n.strings(code)["ui"]
    missing = [key for key in EXPLORER_KEYS if key not in table]
    assert not missing, f"docs/{code}/strings.yml: ui has no {missing}"
    with i18n.language(code):
        explorer = soup(query_explorer(KEYS, [1.0, 0.0]))
        heat = json.loads(soup(figure("causal", causal_weights())).figure["data-heat"])
    assert explorer.select_one("svg")["aria-label"] == table["qk_plane_alt"]
    assert explorer.select_one(".lesson-qk__handle")["aria-label"] == table["qk_handle"]
    assert heat["text"] == {"hint": table["heat_hint"], "row": table["heat_row"], "masked": table["heat_masked"],
                            "sep": table["list_sep"]}


def test_heatmap_figure_rows_carry_their_cells():
    """A page's heatmap is heatmap_svg's figure, unchanged, with its cells' numbers for the script: each row's
    weights as the cells write them, None where the mask left nothing to look at."""
    weights = causal_weights()
    markup = figure("causal", weights)
    fig = soup(markup).figure
    assert heatmap_svg(weights, "causal") in markup
    data = json.loads(fig["data-heat"])
    assert data["labels"] == list(WORDS)
    cells = cell_texts(heatmap_svg(weights, "causal"))
    expected = [[cells[5 * i + j] if j <= i else None for j in range(5)] for i in range(5)]
    assert data["weights"] == expected
    assert fig.select_one(".lesson-heat__readout").get_text() == ""  # the script writes it
    left, top, width, height = data["box"]
    assert 0 < left < data["cells"][0] and left + width <= 100 and 0 < top and top + 5 * height <= 100
    assert fig.figcaption.get_text() == i18n.ui("fig_causal_alt")


# --------------------------------------------------------------------------------------------- memory


def test_peak_memory_counts_what_the_call_allocates():
    """snippets/cost.py's peak_mib, on calls whose allocations are known."""
    n = 2**20
    assert al.peak_mib(lambda: torch.ones(n)) == 4.0  # one tensor of 4-byte floats
    # two live at once, then both freed before the third: the peak is two

    def two_then_one():
        a = torch.ones(n)
        b = torch.ones(n)
        del a, b
        return torch.ones(n)

    assert al.peak_mib(two_then_one) == 8.0


def test_cost_memory_head_grows_as_t_squared_and_sdpa_does_not():
    """The cost page's memory columns: allocation sizes, not timings, so exact and the same every run."""
    W = [torch.randn(16, 8) for _ in range(3)]
    head, sdpa = [], []
    for T in (256, 512, 1024):
        x = torch.randn(T, 16)
        for f, found in ((al.attention_head, head), (al.sdpa, sdpa)):
            f(x, *W)  # the first call allocates what later calls reuse, as seconds() does on the page
            found.append(al.peak_mib(f, x, *W))
            assert al.peak_mib(f, x, *W) == found[-1]
    assert slope([256, 512, 1024], head) == pytest.approx(2.0, abs=0.05)
    assert slope([256, 512, 1024], sdpa) == pytest.approx(1.0, abs=0.05)  # q, k, v and the output: T·d
    assert head[-1] >= 2 * 1024 * 1024 * 4 / 2**20  # two T×T float tables live at once, at least
    assert sdpa[-1] < head[-1] / 4


# --------------------------------------------------------------------------------------------- language


@pytest.fixture
def english(tmp_path, monkeypatch):
    """A docs folder with Japanese and a partial English: the fig keys translated except fig_axis_d."""
    (tmp_path / "ja").mkdir()
    shutil.copyfile(i18n.docs_dir() / "ja" / "strings.yml", tmp_path / "ja" / "strings.yml")
    (tmp_path / "en").mkdir()
    ui = {"fig_avg_title": "Averaging weights", "fig_axis_query": "Position looking (row)",
          "fig_scores_title": "Scores of 光 and weights", "fig_scaling_title": "Why divide by √d",
          "fig_cost_title": "Sequence length and time", "fig_legend_naive": "This lesson's head (slope {slope:.1f})"}
    (tmp_path / "en" / "strings.yml").write_text(yaml.safe_dump({"name": "English", "ui": ui}), encoding="utf-8")
    i18n._loaded.cache_clear()
    monkeypatch.setattr(i18n, "docs_dir", lambda: tmp_path)
    yield
    i18n._loaded.cache_clear()


def test_titles_in_the_page_language(english, rows):
    with i18n.language("en"):
        avg = texts(heatmap_svg(averaging_weights(5), "avg"))
        assert "Averaging weights" in avg and "Position looking (row)" in avg
        assert "平均の重み" not in avg
        assert i18n.ui("fig_axis_key", "ja") in avg  # untranslated: falls back to Japanese
        assert "Scores of 光 and weights" in texts(scores_svg(*section2()))
        scaling = texts(scaling_svg(rows))
        assert "Why divide by √d" in scaling and i18n.ui("fig_axis_d", "ja") in scaling
        assert "This lesson's head (slope 2.0)" in texts(cost_svg(cost_table()))
        english_svg = heatmap_svg(averaging_weights(5), "avg")
    with i18n.language("ja"):
        ja = heatmap_svg(averaging_weights(5), "avg")
        assert "平均の重み" in texts(ja) and "Averaging weights" not in texts(ja)
        assert parse(ja).find(f"{SVG}title").text == i18n.ui("fig_avg_alt", "ja")
    assert ja != english_svg


def test_every_fig_key_is_japanese_text():
    table = i18n.strings("ja")["ui"]
    keys = [k for k in table if k.startswith("fig_")]
    assert len(keys) >= 30
    for key in keys:
        assert isinstance(table[key], str) and table[key].strip(), key
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", table[key]), key
    sample = {"slope": 2.0, "naive": 2.0, "sdpa": 1.0}
    for key in keys:
        table[key].format(**sample)  # every placeholder is one the figures fill in



@pytest.mark.parametrize("code", LANGUAGES)
def test_each_site_language_draws_its_own_or_the_japanese_text(code):
    with i18n.language(code):
        svg = heatmap_svg(causal_weights(), "causal")
    assert i18n.ui("fig_causal_title", code) in texts(svg)
    assert parse(svg).find(f"{SVG}title").text == i18n.ui("fig_causal_alt", code)
