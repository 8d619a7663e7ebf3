import torch
import torch.nn.functional as F


def rounded(values):  # 文字ごとの値を、小数点以下 2 桁に丸める
    return {w: round(v, 2)
            for w, v in zip("床前明月光", values.tolist(), strict=True)}

k = torch.tensor([[0.1, 0.9],   # 床：場所
                  [0.0, 1.0],   # 前：方角
                  [0.9, 0.1],   # 明：空や光に関係する
                  [1.0, 0.0],   # 月：空にあるもの
                  [0.8, 0.2]])  # 光
# --8<-- [start:query]
q_guang = torch.tensor([1.0, 0.0])  # 「光」が探しているもの：空に関係するもの
scores = k @ q_guang
# --8<-- [end:query]

weights = F.softmax(scores, dim=-1)
weights_x5 = F.softmax(scores * 5, dim=-1)  # スコアを 5 倍してから softmax

print("「光」のスコア：", rounded(scores))
print("重み：", rounded(weights))
print("×5 の重み：", rounded(weights_x5))
