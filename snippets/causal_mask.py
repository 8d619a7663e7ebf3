import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=2)
T = 5

# 平均を取る節が引いた乱数を先に引き、q と k はその続きから作る
torch.randn(T, 4)
q = torch.randn(T, 8)  # ここの q と k はランダム（学習前）
k = torch.randn(T, 8)

scores = q @ k.T / math.sqrt(8)
mask = torch.ones(T, T, dtype=torch.bool).tril()
scores = scores.masked_fill(~mask, float("-inf"))
weights = F.softmax(scores, dim=-1)

print(weights)
