# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercise 2: remove the causal mask
#
# Remove the causal mask from the head of "A complete attention head" and compare with PyTorch's built-in
# `scaled_dot_product_attention(..., is_causal=False)`.
# The input and the weight matrices are that page's (same random seed, same shapes).

# %%
--8<-- "snippets/exercise_2.py:try"

# %% [markdown] tags=["answer"]
# **Answer:** without the mask, the head gives the same result as SDPA with `is_causal=False` (up to
# floating-point error).
#
# So what did removing the mask change? Compare with the masked output, position by position.

# %% tags=["answer"]
--8<-- "snippets/exercise_2.py:mask"

# %% [markdown] tags=["answer"]
# Only the earlier positions, which can now peek at later ones, change; the output of the last character,
# 光, does not. A language model predicting the next character would be peeking at the answer, which is why
# it needs the mask.
