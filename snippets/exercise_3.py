# --8<-- [start:try]
import math
import time

import torch
import torch.nn.functional as F

torch.manual_seed(0)
d_model, d_head = 16, 8
W_q, W_k, W_v = (torch.randn(d_model, d_head) / math.sqrt(d_model) for _ in range(3))
times = {}
# --8<-- [start:lengths]
for T in [1000, 2000, 4000]:  # 5 の代わりに長い系列で、「完全なアテンションヘッド」と同じ計算をする
    x = torch.randn(T, d_model)
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    times[T] = math.inf
    for _ in range(5):  # 5 回測って最も速い回を取る（ほかの処理と重なった回は遅くなるだけ）
        start = time.perf_counter()
        q, k, v = x @ W_q, x @ W_k, x @ W_v
        scores = (q @ k.T / math.sqrt(d_head)).masked_fill(~mask, float("-inf"))
        out = F.softmax(scores, dim=-1) @ v
        times[T] = min(times[T], time.perf_counter() - start)
    print(f"T={T:5d}  {times[T] * 1000:8.2f} ms")
# --8<-- [end:lengths]
# --8<-- [end:try]

# --8<-- [start:exponent]
for T in [2000, 4000]:
    print(f"T {T // 2} → {T}:", "時間は", f"×{times[T] / times[T // 2]:.1f}")
print("指数（T の何乗で増えるか）", f"{math.log(times[4000] / times[1000]) / math.log(4):.1f}")
# --8<-- [end:exponent]
