import torch
import torch.nn.functional as F

from attention_lesson import label, rounded

k = torch.tensor([[0.1, 0.9],   # 床：場所
                  [0.0, 1.0],   # 前：方角
                  [0.9, 0.1],   # 明：空や光に関係する
                  [1.0, 0.0],   # 月：空にあるもの
                  [0.8, 0.2]])  # 光
q_guang = torch.tensor([1.0, 0.0])  # 「光」が探しているもの：空に関係するもの
scores = k @ q_guang

weights = F.softmax(scores, dim=-1)
weights_x5 = F.softmax(scores * 5, dim=-1)  # スコアを 5 倍してから softmax

print(label("scores"), rounded(scores))
print(label("softmax"), rounded(weights))
print(label("softmax_x5"), rounded(weights_x5))
