# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercise 2: remove the causal mask
#
# Remove the causal mask from the fifth section's head and compare with PyTorch's built-in
# `scaled_dot_product_attention(..., is_causal=False)`.
# The input and the weight matrices are the fifth section's (same random seed, same shapes).

# %%
import math

import torch
import torch.nn.functional as F

from attention_lesson import attention_head, rounded

torch.manual_seed(0)
T, d_model, d_head = 5, 16, 8
x = torch.randn(T, d_model)
W_q, W_k, W_v = (torch.randn(d_model, d_head) / math.sqrt(d_model) for _ in range(3))

# %%
out = attention_head(x, W_q, W_k, W_v, causal=False)  # no mask
expected = F.scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v, is_causal=False)

diff = (out - expected).abs().max().item()
print("Largest difference from scaled_dot_product_attention:", f"{diff:.1e}")
assert diff < 1e-6

# %% [markdown]
# **Answer:** without the mask, the head gives the same result as SDPA with `is_causal=False` (up to
# floating-point error).
#
# So what did removing the mask change? Compare with the masked output, position by position.

# %%
masked = attention_head(x, W_q, W_k, W_v, causal=True)
change = (out - masked).abs().amax(dim=1)
print("Largest change in the output per position, with and without the mask:")
print(rounded(change))
assert change[-1] < 1e-6  # the last character, 光, already saw every position

# %% [markdown]
# Only the earlier positions, which can now peek at later ones, change; the output of the last character,
# 光, does not. A language model predicting the next character would be peeking at the answer, which is why
# it needs the mask.
