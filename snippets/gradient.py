import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
gradients = {}
print("| d | 勾配の平均の大きさ（スケーリングなし） | 同（√d で割った後） |")
print("|:---|---:|---:|")
for d in [16, 64, 256, 1024]:
    scores = torch.randn(2000, 5, d) @ torch.randn(2000, 5, d).mT
    sizes = []
    for s in (scores, scores / math.sqrt(d)):
        s.requires_grad = True
        # 最初の重みを微分する
        F.softmax(s, dim=-1)[:, :, 0].sum().backward()
        sizes.append(s.grad.abs().mean().item())
    gradients[d] = sizes
    print(f"| {d} | {sizes[0]:.4f} | {sizes[1]:.4f} |")
