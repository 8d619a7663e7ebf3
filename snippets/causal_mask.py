import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=2)
T = 5

# 平均を取る節の x と同じ乱数を先に引き、レッスンと同じ q と k にする
torch.randn(T, 4)
q = torch.randn(T, 8)  # ここの q と k はランダム（学習前）
k = torch.randn(T, 8)

scores = q @ k.T / math.sqrt(8)
mask = torch.ones(T, T, dtype=torch.bool).tril()
scores = scores.masked_fill(~mask, float("-inf"))
weights = F.softmax(scores, dim=-1)

print(weights)
