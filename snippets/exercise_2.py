# --8<-- [start:try]
import math

import torch
import torch.nn.functional as F

def rounded(values):  # 文字ごとの値を、小数点以下 2 桁に丸める
    return {w: round(v, 2)
            for w, v in zip("床前明月光", values.tolist(), strict=True)}

torch.manual_seed(0)
T, d_model, d_head = 5, 16, 8
x = torch.randn(T, d_model)
W_q, W_k, W_v = (torch.randn(d_model, d_head) / math.sqrt(d_model)
                 for _ in range(3))
q, k, v = x @ W_q, x @ W_k, x @ W_v
# --8<-- [start:unmasked]
scores = q @ k.T / math.sqrt(d_head)  # マスクなし
weights = F.softmax(scores, dim=-1)
out = weights @ v

expected = F.scaled_dot_product_attention(q, k, v, is_causal=False)
# --8<-- [end:unmasked]
print("PyTorch の scaled_dot_product_attention との最大の差",
      f"{(out - expected).abs().max().item():.1e}")
# --8<-- [end:try]

# --8<-- [start:mask]
mask = torch.ones(T, T, dtype=torch.bool).tril()
# 「完全なアテンションヘッド」のマスクあり
masked_scores = scores.masked_fill(~mask, float("-inf"))
masked = F.softmax(masked_scores, dim=-1) @ v
change = (out - masked).abs().amax(dim=1)
print("マスクの有無による出力の差（位置ごと）：")
print(rounded(change))
# --8<-- [end:mask]
