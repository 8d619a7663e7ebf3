# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 練習問題 2：因果マスクを外す
#
# 第 5 節のヘッドから因果マスクを取り除き、PyTorch 組み込みの `scaled_dot_product_attention(..., is_causal=False)` と比べます。入力と重み行列は第 5 節と同じものです（同じ乱数の種、同じ形）。

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
out = attention_head(x, W_q, W_k, W_v, causal=False)  # マスクなし
expected = F.scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v, is_causal=False)

diff = (out - expected).abs().max().item()
print("scaled_dot_product_attention との最大の差：", f"{diff:.1e}")
assert diff < 1e-6

# %% [markdown]
# **答え：** マスクを外したヘッドは `is_causal=False` の SDPA と（浮動小数点の誤差の範囲で）同じ結果になります。
#
# では、マスクを外して何が変わったのでしょう。マスク付きの出力と比べて、位置ごとの差の最大値を見ます。

# %%
masked = attention_head(x, W_q, W_k, W_v, causal=True)
change = (out - masked).abs().amax(dim=1)
print("マスクの有無による出力の差（位置ごと）：")
print(rounded(change))
assert change[-1] < 1e-6  # 最後の「光」はもともとすべての位置を見ている

# %% [markdown]
# 変わるのは後ろの位置を覗けるようになった前の位置だけで、最後の「光」の出力は変わりません。言語モデルが次の文字を予測するとき、この「覗き見」は答えを見ながら解くことになるので、マスクが必要です。
