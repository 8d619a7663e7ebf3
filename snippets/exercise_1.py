# --8<-- [start:try]
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
q_place = torch.tensor([0.0, 1.0])  # 新しいクエリ：位置に関係するもの
scores = k @ q_place
# --8<-- [end:query]
weights = F.softmax(scores, dim=-1)

print("「光」のスコア：", rounded(scores))
print("重み：", rounded(weights))
print("×5 の重み：", rounded(F.softmax(scores * 5, dim=-1)))
# --8<-- [end:try]

# --8<-- [start:answer]
top_two = sorted(rounded(weights).items(), key=lambda item: item[1],
                 reverse=True)[:2]
print("重みが最も大きい二文字：", [word for word, _ in top_two])
assert {word for word, _ in top_two} == {"床", "前"}
# --8<-- [end:answer]
