import torch

# クエリとキーの節と同じキー
k = torch.tensor([[0.1, 0.9], [0.0, 1.0], [0.9, 0.1], [1.0, 0.0], [0.8, 0.2]])
# 「光」のクエリで採点した重み
weights = torch.softmax(k @ torch.tensor([1.0, 0.0]), dim=-1)

# 値 v（手作り）：1 次元目は「明るさ」、2 次元目は「場所」の情報
v = torch.tensor([[0.0, 1.0],    # 床：場所だけ
                  [0.0, 0.5],    # 前：少し場所
                  [1.0, 0.0],    # 明：明るさだけ
                  [0.75, 0.25],  # 月：明るさと少し場所
                  [0.5, 0.0]])   # 光：少し明るさ
for c, w, v_c in zip("床前明月光", weights, v):
    print(c, f"{w:.2f} × {v_c.tolist()}")

output = weights @ v  # 重みで v を足し合わせる：Σ 重み × v
print("「光」の出力：", [round(x, 2) for x in output.tolist()])
