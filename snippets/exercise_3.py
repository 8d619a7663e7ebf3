# --8<-- [start:try]
import math
import sys
import time

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)  # スレッドを絞って測る：ほかの処理に乱されにくい
d_model, d_head = 16, 8
W_q, W_k, W_v = (torch.randn(d_model, d_head) / math.sqrt(d_model)
                 for _ in range(3))
# この計算に CPU が使った時間を測る（ほかの処理を待つ間は数えない）
# Windows の process_time は粗すぎる
clock = time.process_time
if sys.platform == "win32":
    clock = time.perf_counter

def head(x):  # 「完全なアテンションヘッド」の節と同じ計算
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    mask = torch.ones(len(x), len(x), dtype=torch.bool).tril()
    scores = q @ k.T / math.sqrt(d_head)
    scores = scores.masked_fill(~mask, float("-inf"))
    return F.softmax(scores, dim=-1) @ v

# 測る前に一度、どれよりも長い系列で計算しておく
head(torch.randn(4096, d_model))
times = {}
# --8<-- [start:lengths]
# 倍々に長くした系列で、同じ計算の時間を測る
for T in [256, 512, 1024, 2048]:
    x = torch.randn(T, d_model)
    runs = []
    for _ in range(10):
        start = clock()
        head(x)
        runs.append(clock() - start)
    # 最も速い回を取る：ほかの処理とキャッシュを
    # 取り合った回は遅くなるだけ
    times[T] = min(runs)
    print(f"T={T:5d}  {times[T] * 1000:8.2f} ms")
# --8<-- [end:lengths]
# --8<-- [end:try]

# --8<-- [start:exponent]
# 両対数では、T の p 乗は傾き p の直線になる
log_T = torch.tensor(list(times)).log()
log_time = torch.tensor(list(times.values())).log()
dx, dy = log_T - log_T.mean(), log_time - log_time.mean()
# 最小二乗法で当てはめた直線の傾き
slope = ((dx * dy).sum() / (dx * dx).sum()).item()
print("指数（T の何乗で増えるか）", f"{slope:.1f}")
print("T が倍になるたびに、時間は", f"×{2 ** slope:.1f}")
# --8<-- [end:exponent]
