# --8<-- [start:try]
import torch
import torch.nn.functional as F

from attention_lesson import label, rounded

k = torch.tensor([[0.1, 0.9],   # 床：場所
                  [0.0, 1.0],   # 前：方角
                  [0.9, 0.1],   # 明：空や光に関係する
                  [1.0, 0.0],   # 月：空にあるもの
                  [0.8, 0.2]])  # 光
q_place = torch.tensor([0.0, 1.0])  # 新しいクエリ：位置に関係するもの
scores = k @ q_place
weights = F.softmax(scores, dim=-1)

print(label("scores"), rounded(scores))
print(label("softmax"), rounded(weights))
print(label("softmax_x5"), rounded(F.softmax(scores * 5, dim=-1)))
# --8<-- [end:try]

# --8<-- [start:answer]
top_two = sorted(rounded(weights).items(), key=lambda item: item[1], reverse=True)[:2]
print(label("ex1_top_two"), [word for word, _ in top_two])
assert {word for word, _ in top_two} == {"床", "前"}
# --8<-- [end:answer]
