import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, T, d_model, h = 1, 5, 16, 2  # 文の数、文字数、ベクトルの次元、ヘッドの数
d_head = d_model // h  # ヘッド一つあたりの次元
x = torch.randn(B, T, d_model)  # 「床前明月光」の 5 文字（ランダムなベクトル）
W_q, W_k, W_v, W_o = torch.randn(4, d_model, d_model) / math.sqrt(d_model)

def split(t):  # (B, T, d_model) → (B, h, T, d_head)：次元をヘッドごとに分ける
    return t.view(B, T, h, d_head).transpose(1, 2)

q, k, v = split(x @ W_q), split(x @ W_k), split(x @ W_v)
print("q、k、v の形", tuple(q.shape))  # （文、ヘッド、文字、次元）
mask = torch.ones(T, T, dtype=torch.bool).tril()
scores = (q @ k.mT / math.sqrt(d_head)).masked_fill(~mask, float("-inf"))
weights = F.softmax(scores, dim=-1)  # ヘッドごとに T×T の重み
print("重みの形", tuple(weights.shape))
heads = weights @ v  # ヘッドごとの出力
print("ヘッドの出力の形", tuple(heads.shape))
out = heads.transpose(1, 2).reshape(B, T, d_model) @ W_o  # つなげて混ぜる
print("つなげて W_o で混ぜた出力の形", tuple(out.shape))

expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
expected = expected.transpose(1, 2).reshape(B, T, d_model) @ W_o
print("PyTorch 組み込みとの最大の差", f"{(out - expected).abs().max():.1e}")
