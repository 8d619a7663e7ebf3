import torch

torch.manual_seed(0)
torch.set_printoptions(precision=2)
T = 5

# 5 つの文字、それぞれ 4 次元のベクトル（まずは適当に）
x = torch.randn(T, 4)
# 下三角：i 行目は最初の i+1 個の位置だけが 1
weights = torch.ones(T, T).tril()
# 各行を個数で割って平均にする
weights = weights / weights.sum(dim=1, keepdim=True)
out = weights @ x

print(weights)
print("3 番目の位置（「明」）の結果 = 前の三つのベクトルの平均？",
      torch.allclose(out[2], x[:3].mean(dim=0)))
