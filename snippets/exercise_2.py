"""Run on its own, this file imports the head from the package; the notebook shows the head's source instead."""

from attention_lesson import attention_head

# --8<-- [start:try]
import math

import torch
import torch.nn.functional as F


def rounded(values):  # 文字ごとの値を小数点以下 2 桁で、レッスンと同じ形で表示する
    return {w: round(v, 2) for w, v in zip("床前明月光", values.tolist(), strict=True)}


torch.manual_seed(0)
T, d_model, d_head = 5, 16, 8
x = torch.randn(T, d_model)
W_q, W_k, W_v = (torch.randn(d_model, d_head) / math.sqrt(d_model) for _ in range(3))

out = attention_head(x, W_q, W_k, W_v, causal=False)  # マスクなし
expected = F.scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v, is_causal=False)
diff = (out - expected).abs().max().item()
print("PyTorch 組み込みの scaled_dot_product_attention との最大の差", f"{diff:.1e}")
assert diff < 1e-6
# --8<-- [end:try]

# --8<-- [start:mask]
masked = attention_head(x, W_q, W_k, W_v, causal=True)
change = (out - masked).abs().amax(dim=1)
print("マスクの有無による出力の差（位置ごと）：", rounded(change))
assert change[-1] < 1e-6  # 最後の「光」はもともとすべての位置を見ている
# --8<-- [end:mask]

# Not in the notebook: the change docs/*/exercises.md shows, the head page's listing (snippets/head.py,
# section "mask") with the mask taken out. It runs here, so the lines the page shows are known to work.
q, k, v = x @ W_q, x @ W_k, x @ W_v
# --8<-- [start:unmasked]
scores = q @ k.T / math.sqrt(d_head)  # マスクなし
weights = F.softmax(scores, dim=-1)
out = weights @ v

expected = F.scaled_dot_product_attention(q, k, v, is_causal=False)
# --8<-- [end:unmasked]
assert (out - expected).abs().max().item() < 1e-6
assert (out - attention_head(x, W_q, W_k, W_v, causal=False)).abs().max().item() < 1e-6
