"""アテンション機構: the attention lesson's code. It needs torch and nothing else.

The listings in ``snippets/`` import the experiments from here (the √d study, the cost sweep); the site's
machinery (hooks, runner, translations, figures, notebooks) lives apart, in ``attention_lesson.site``.
"""

import importlib
from typing import Any

__all__ = [
    "WORDS",
    "CostPoint",
    "ScalingRow",
    "attention_head",
    "averaging_weights",
    "causal_mask",
    "cost_sweep",
    "fitted_exponent",
    "masked_weights",
    "scaling_study",
    "softmax_weights",
    "temperature_sweep",
]


def __getattr__(name: str) -> Any:
    """Import the lesson's code (and torch) on first use, so that the site's machinery, a subpackage, does
    not pay for torch in the builds that only read stored results."""
    if name in __all__:
        return getattr(importlib.import_module("attention_lesson.core"), name)
    raise AttributeError(f"module 'attention_lesson' has no attribute {name!r}")
