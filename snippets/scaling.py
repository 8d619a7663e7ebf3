import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)

def scaling_study(d, n=2000, T=5):  #@save
    # ランダムな d 次元のベクトルの組 n 個で、内積の標準偏差を測る
    a, b = torch.randn(n, d), torch.randn(n, d)
    dot_std = (a * b).sum(dim=1).std().item()
    # ランダムな T×T のスコア表 n 枚で、各行の最大の重みの平均を、
    # √d で割る前と後で測る
    scores = torch.randn(n, T, d) @ torch.randn(n, T, d).transpose(1, 2)
    unscaled = F.softmax(scores, dim=-1).amax(dim=-1).mean().item()
    scaled = F.softmax(scores / math.sqrt(d), dim=-1).amax(dim=-1).mean().item()
    return dot_std, unscaled, scaled

print("| d | 内積の標準偏差 | √d | 最大の重みの平均 | √d で割った後 |")
print("|:---|---:|---:|---:|---:|")
rows = {}
for d in [16, 64, 256, 1024]:
    dot_std, unscaled, scaled = scaling_study(d)
    rows[d] = [dot_std, math.sqrt(d), unscaled, scaled]
    print(f"| {d} |", " | ".join(f"{x:.2f}" for x in rows[d]), "|")
