import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
T = 5
torch.randn(T, 4)  # 上のリストと同じ順に乱数を引き、同じ q と k にする
q, k = torch.randn(T, 8), torch.randn(T, 8)
mask = torch.ones(T, T, dtype=torch.bool).tril()
weights = F.softmax(q @ k.T / math.sqrt(8), dim=-1)  # マスクせずに softmax
after = weights.masked_fill(~mask, 0)  # softmax の後でマスクする
print("各行の合計：", [round(s, 2) for s in after.sum(dim=-1).tolist()])
