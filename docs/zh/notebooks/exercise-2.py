# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 练习 2：去掉因果掩码
#
# 去掉第五节那个头的因果掩码，和 PyTorch 内置的 `scaled_dot_product_attention(..., is_causal=False)` 比一比。输入和权重矩阵都和第五节相同（同样的随机种子、同样的形状）。

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
out = attention_head(x, W_q, W_k, W_v, causal=False)  # 不加掩码
expected = F.scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v, is_causal=False)

diff = (out - expected).abs().max().item()
print("和 scaled_dot_product_attention 的最大差：", f"{diff:.1e}")
assert diff < 1e-6

# %% [markdown]
# **答案：** 去掉掩码的头和 `is_causal=False` 的 SDPA 结果相同（在浮点误差范围内）。
#
# 那么去掉掩码到底改变了什么？和加掩码的输出比较，看每个位置的最大差。

# %%
masked = attention_head(x, W_q, W_k, W_v, causal=True)
change = (out - masked).abs().amax(dim=1)
print("有无掩码时输出的差（按位置）：")
print(rounded(change))
assert change[-1] < 1e-6  # 最后的“光”本来就能看到所有位置

# %% [markdown]
# 变化的只是前面那些现在能偷看后面位置的字，最后的“光”的输出没有变。语言模型预测下一个字时，这种偷看就等于看着答案做题，所以需要掩码。
