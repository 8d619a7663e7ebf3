"""Peak memory of one attention forward pass on the CPU, measured by PyTorch's profiler.

What is measured: the bytes of tensor storage that PyTorch's CPU allocator hands out during one call, beyond
what was live when the call started. The autograd profiler (``profile_memory=True``) records every allocation and
every free with its size; summing them in time order gives the bytes live at each moment, and the largest
running sum is the peak. Tensors made before the call (x and the weight matrices) are not counted; the output
is. Memory outside PyTorch's allocator is not seen (the Python interpreter, the BLAS library's own scratch
space, the process's resident size), so this is the memory the computation's tensors need, not what `top`
shows.

Why it is robust where timing is not: the sizes PyTorch allocates depend only on the shapes and on the code
path (and, for the fused SDPA kernel, on the number of threads, through per-thread buffers), not on the
machine's load, so two runs give the same bytes. It relies on the profiler's raw event list
(``prof.kineto_results``), which is not a documented API: a PyTorch that drops it makes
``peak_memory_bytes`` raise RuntimeError instead of returning a wrong number.

What the numbers show: the lesson's head builds T×T score, mask and weight matrices, so its peak grows as T².
``F.scaled_dot_product_attention`` given (batch, heads, T, d) tensors runs the fused CPU kernel, which walks
the keys in blocks and never holds a T×T matrix: its peak hardly grows with T. Given 2-d (T, d) tensors,
the same function falls back to the plain math path and needs T×T matrices too (and is far slower);
``sdpa_2d_bytes`` records that call, the shape the head page ("A complete attention head") compares with.
"""

from __future__ import annotations

# --8<-- [start:imports]
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch

# --8<-- [end:imports]
from attention_lesson.core import cost_cases  # on the page, the cost section of core.py stands before this one



# --8<-- [start:memory]
@dataclass(frozen=True)
class MemoryPoint:
    """Peak bytes of one forward pass at sequence length T."""

    T: int
    naive_bytes: int
    sdpa_bytes: int
    sdpa_2d_bytes: int


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence the profiler's native start/stop lines (written by the C++ library straight to fd 2)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no file descriptor 2 (some embedded interpreters): nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def peak_memory_bytes(fn: Callable[[], object]) -> int:
    """Peak bytes of tensor storage allocated during one call of fn, above what was live before it.

    fn is called once unprofiled first (so one-time allocations, such as the fused kernel's lazily built
    buffers, are not counted), then once under the profiler.
    """
    with torch.no_grad():
        fn()
        # The autograd profiler: torch.profiler.profile records the same events, but its first use imports
        # TorchDynamo, about 1.4 s.
        with _quiet_stderr(), torch.autograd.profiler.profile(profile_memory=True) as prof:
            fn()
    try:
        events = prof.kineto_results.events()
        memory = sorted((e.start_ns(), e.nbytes()) for e in events if e.name() == "[memory]")
    except AttributeError as error:
        raise RuntimeError(
            f"this PyTorch ({torch.__version__}) profiler does not expose its raw memory events: {error}"
        ) from error
    live = peak = 0
    for _, nbytes in memory:
        live += nbytes
        peak = max(peak, live)
    return peak


def cost_memory(
    lengths: Sequence[int] = (1000, 2000, 4000),
    *,
    d_model: int = 16,
    d_head: int = 8,
    seed: int = 0,
) -> list[MemoryPoint]:
    """Peak memory of the lesson's head and of SDPA (is_causal=True) for each T, with the shapes and the
    projections of core.cost_sweep (x @ W_q, x @ W_k, x @ W_v inside the measured call)."""
    return [
        MemoryPoint(T, peak_memory_bytes(calls["naive"]), peak_memory_bytes(calls["sdpa"]),
                    peak_memory_bytes(calls["sdpa_2d"]))
        for T, calls in cost_cases(lengths, d_model=d_model, d_head=d_head, seed=seed)
    ]
# --8<-- [end:memory]
