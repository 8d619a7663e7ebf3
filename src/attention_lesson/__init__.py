"""アテンション機構: the attention lesson's code, labels and site build.

Snippets import from here what a reader should not have to read (labels in the page's language, formatting,
the experiment loops); the lesson's own listings stay in ``snippets/``.
"""

from attention_lesson.core import (
    WORDS,
    CostPoint,
    ScalingRow,
    attention_head,
    averaging_weights,
    causal_mask,
    cost_sweep,
    fitted_exponent,
    masked_weights,
    scaling_study,
    softmax_weights,
    temperature_sweep,
)
from attention_lesson.fmt import cost_table, markdown_table, rounded, scaling_table
from attention_lesson.i18n import label

__all__ = [
    "WORDS",
    "CostPoint",
    "ScalingRow",
    "attention_head",
    "averaging_weights",
    "causal_mask",
    "cost_table",
    "cost_sweep",
    "fitted_exponent",
    "label",
    "markdown_table",
    "masked_weights",
    "rounded",
    "scaling_study",
    "scaling_table",
    "softmax_weights",
    "temperature_sweep",
]
