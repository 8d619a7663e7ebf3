"""The lesson's computations as small, typed, validated functions.

The snippets show the lesson's own listings line by line, because that is what a reader copies. The functions
here are what the rest of the project reuses (the √d study, the cost sweep, the temperature slider, the
exercises and the notebooks), each checking its input so that a wrong shape fails with a message that says what
was expected instead of a broadcasting error three calls deeper.

The parts between ``# --8<-- [start:NAME]`` and ``# --8<-- [end:NAME]`` are shown on the lesson's pages inside
the listings that use them (pymdownx.snippets sections), so a listing copied from a page carries the
definitions it needs and runs with torch alone: d2l's ``#@save``, the other way round. Each section therefore
uses only the standard library, torch, and the sections before it.
"""

from __future__ import annotations

# --8<-- [start:imports]
import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

# --8<-- [end:imports]

WORDS = "床前明月光"
"""The five characters of the lesson's running example (a line of a poem, the same in every language)."""


# --8<-- [start:head]
def _check_tensor(name: str, value: object, ndim: int) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor with {ndim} dimensions, got {type(value).__name__}")
    if value.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(value.shape)}")
    return value


def causal_mask(T: int) -> torch.Tensor:
    """Boolean T×T mask, True where a position may look (itself and the past)."""
    if not isinstance(T, int) or T <= 0:
        raise ValueError(f"T must be a positive int, got {T!r}")
    return torch.ones(T, T, dtype=torch.bool).tril()


def attention_head(
    x: torch.Tensor,
    W_q: torch.Tensor,
    W_k: torch.Tensor,
    W_v: torch.Tensor,
    causal: bool = True,
) -> torch.Tensor:
    """One attention head, softmax(QKᵀ/√d)V, as on the lesson's page "A complete attention head".

    x is (T, d_model); W_q and W_k are (d_model, d_head); W_v is (d_model, d_value).
    """
    _check_tensor("x", x, 2)
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        _check_tensor(name, W, 2)
        if W.shape[0] != x.shape[1]:
            raise ValueError(
                f"{name} must have {x.shape[1]} rows to match x of shape {tuple(x.shape)}, "
                f"got shape {tuple(W.shape)}"
            )
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"W_q and W_k must have the same number of columns, got {W_q.shape[1]} and {W_k.shape[1]}")
    T, d_head = x.shape[0], W_q.shape[1]
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.T / math.sqrt(d_head)
    if causal:
        scores = scores.masked_fill(~causal_mask(T), float("-inf"))
    return F.softmax(scores, dim=-1) @ v
# --8<-- [end:head]


def averaging_weights(T: int) -> torch.Tensor:
    """Lower-triangular T×T matrix whose row i averages positions 0..i (the averaging page)."""
    if not isinstance(T, int) or T <= 0:
        raise ValueError(f"T must be a positive int, got {T!r}")
    weights = torch.ones(T, T).tril()
    return weights / weights.sum(dim=1, keepdim=True)


def softmax_weights(scores: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    """softmax(scale · scores): a larger scale concentrates the weights (the ×5 line of "Queries and keys")."""
    _check_tensor("scores", scores, 1)
    if not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number, got {scale!r}")
    return F.softmax(scores * scale, dim=-1)


def temperature_sweep(scores: torch.Tensor, scales: Sequence[float]) -> list[list[float]]:
    """Weights for each scale, precomputed for the page's slider so the browser runs no Python."""
    return [softmax_weights(scores, s).tolist() for s in scales]


def masked_weights(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """softmax of scores with the positions where mask is False set to -inf first (the causal-mask page)."""
    _check_tensor("scores", scores, 2)
    _check_tensor("mask", mask, 2)
    if mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be square (T, T), got shape {tuple(mask.shape)}")
    if mask.shape != scores.shape:
        raise ValueError(f"mask shape {tuple(mask.shape)} must equal scores shape {tuple(scores.shape)}")
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor, got {mask.dtype}")
    return F.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)


# --8<-- [start:scaling]
@dataclass(frozen=True)
class ScalingRow:
    """One row of the √d table: how spread the dot products are and how peaked softmax gets."""

    d: int
    dot_std: float
    sqrt_d: float
    max_weight_unscaled: float
    max_weight_scaled: float


def scaling_study(
    dims: Sequence[int] = (16, 64, 256, 1024),
    *,
    n_dots: int = 4000,
    n_matrices: int = 2000,
    T: int = 5,
    seed: int = 0,
) -> list[ScalingRow]:
    """Measure why attention divides by √d (the scaling page).

    The lesson printed one random draw per row, which wobbles by several hundredths; this averages the std over
    n_dots dot products and the row maximum over n_matrices T×T score matrices, so the table is stable enough to
    quote in prose. Every draw comes from one generator seeded with `seed`.
    """
    if not dims:
        raise ValueError("dims must name at least one dimension")
    for d in dims:
        if not isinstance(d, int) or d <= 0:
            raise ValueError(f"every d must be a positive int, got {d!r}")
    if n_dots < 2 or n_matrices < 1 or T < 1:
        raise ValueError("n_dots must be ≥ 2, n_matrices and T ≥ 1")
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for d in dims:
        a = torch.randn(n_dots, d, generator=gen)
        b = torch.randn(n_dots, d, generator=gen)
        dot_std = (a * b).sum(dim=1).std().item()
        q = torch.randn(n_matrices, T, d, generator=gen)
        k = torch.randn(n_matrices, T, d, generator=gen)
        scores = q @ k.transpose(1, 2)
        unscaled = F.softmax(scores, dim=-1).amax(dim=-1).mean().item()
        scaled = F.softmax(scores / math.sqrt(d), dim=-1).amax(dim=-1).mean().item()
        rows.append(ScalingRow(d, dot_std, math.sqrt(d), unscaled, scaled))
    return rows
# --8<-- [end:scaling]


# --8<-- [start:cost]
@dataclass(frozen=True)
class CostPoint:
    """Median time (seconds) of one forward pass at sequence length T, for the lesson's head and for SDPA."""

    T: int
    naive_s: float
    sdpa_s: float


def cost_sweep(
    lengths: Sequence[int] = (1000, 2000, 4000),
    *,
    d_model: int = 16,
    d_head: int = 8,
    repeats: int = 5,
    seed: int = 0,
    statistic: Callable[[list[float]], float] = statistics.median,
) -> list[CostPoint]:
    """Time the lesson's head against PyTorch's SDPA over sequence lengths (exercise 3).

    One warm-up call, then `statistic` (the median) of `repeats` timed calls: the first call pays for
    allocation and kernel selection, and a median is robust to the odd slow run on a shared machine. `min`
    estimates the cost of the computation itself, which other work on the machine can only add to.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be ≥ 1, got {repeats!r}")
    return [
        CostPoint(T, _time(calls["naive"], repeats, statistic), _time(calls["sdpa"], repeats, statistic))
        for T, calls in cost_cases(lengths, d_model=d_model, d_head=d_head, seed=seed)
    ]


def cost_cases(
    lengths: Sequence[int], *, d_model: int = 16, d_head: int = 8, seed: int = 0
) -> Iterator[tuple[int, dict[str, Callable[[], torch.Tensor]]]]:
    """For each T, the calls the cost page measures (timed by cost_sweep, weighed by memory.cost_memory).

    "naive" is the lesson's head; "sdpa" is PyTorch's SDPA on (batch, heads, T, d), the shape that selects
    its fused CPU kernel; "sdpa_2d" is SDPA on (T, d) as the head page calls it, which falls back to the plain
    T×T computation. The projections x @ W run inside every call, so all of them do the same work around attention.
    """
    if not lengths or any(not isinstance(T, int) or T <= 0 for T in lengths):
        raise ValueError(f"lengths must be positive ints, got {list(lengths)!r}")
    gen = torch.Generator().manual_seed(seed)
    W_q, W_k, W_v = (torch.randn(d_model, d_head, generator=gen) / math.sqrt(d_model) for _ in range(3))
    for T in lengths:
        x = torch.randn(T, d_model, generator=gen)

        def naive(x: torch.Tensor = x) -> torch.Tensor:
            return attention_head(x, W_q, W_k, W_v)

        def sdpa(x: torch.Tensor = x) -> torch.Tensor:
            q, k, v = ((x @ W)[None, None] for W in (W_q, W_k, W_v))
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)[0, 0]

        def sdpa_2d(x: torch.Tensor = x) -> torch.Tensor:
            return F.scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v, is_causal=True)

        yield T, {"naive": naive, "sdpa": sdpa, "sdpa_2d": sdpa_2d}


def _time(fn: Callable[[], object], repeats: int, statistic: Callable[[list[float]], float]) -> float:
    with torch.no_grad():
        fn()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return statistic(times)


def fitted_exponent(lengths: Sequence[float], values: Sequence[float]) -> float:
    """Slope of log(value) against log(length): 2 means the cost grows as T²."""
    if len(lengths) != len(values) or len(lengths) < 2:
        raise ValueError("need at least two (length, value) pairs of equal count")
    xs = [math.log(v) for v in lengths]
    ys = [math.log(v) for v in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
# --8<-- [end:cost]
