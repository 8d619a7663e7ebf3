import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
# --8<-- [start:length]
T = 5
mask = torch.ones(T, T, dtype=torch.bool).tril()
# --8<-- [end:length]

d_model, d_head = 16, 8
x = torch.randn(T, d_model)
W_q, W_k, W_v = (torch.randn(d_model, d_head) / math.sqrt(d_model)
                 for _ in range(3))
q, k, v = x @ W_q, x @ W_k, x @ W_v
# --8<-- [start:mask]
scores = (q @ k.T / math.sqrt(d_head)).masked_fill(~mask, float("-inf"))
weights = F.softmax(scores, dim=-1)
out = weights @ v

# PyTorch 組み込みの同じ計算
expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
# --8<-- [end:mask]
print("入力の形", tuple(x.shape), "→ q、k、v それぞれ", tuple(q.shape),
      "→ 出力の形", tuple(out.shape))
print("PyTorch の scaled_dot_product_attention との最大の差",
      f"{(out - expected).abs().max().item():.1e}")
