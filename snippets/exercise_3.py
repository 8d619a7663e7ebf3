# --8<-- [start:try]
import math
import sys
import time

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)  # 1 スレッドで測る：ほかの処理とコアを取り合っても、時間が揺れにくい
d_model, d_head = 16, 8
W_q, W_k, W_v = (torch.randn(d_model, d_head) / math.sqrt(d_model) for _ in range(3))
# CPU がこの計算に使った時間を測る：ほかの処理に CPU を譲って待っていた時間は数えない
clock = time.perf_counter if sys.platform == "win32" else time.process_time  # Windows のこの時計は粗すぎる

def head(x):  # 「完全なアテンションヘッド」の節と同じ計算
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    mask = torch.ones(len(x), len(x), dtype=torch.bool).tril()
    scores = (q @ k.T / math.sqrt(d_head)).masked_fill(~mask, float("-inf"))
    return F.softmax(scores, dim=-1) @ v

head(torch.randn(4096, d_model))  # 測る前に一度、どれよりも長い系列で計算しておく
times = {}
# --8<-- [start:lengths]
for T in [256, 512, 1024, 2048]:  # 5 の代わりに倍々の長い系列で、同じ計算の時間を測る
    x = torch.randn(T, d_model)
    times[T] = math.inf
    for _ in range(10):  # 10 回測って最も速い回を取る（キャッシュをほかの処理と取り合った回は遅くなるだけ）
        start = clock()
        head(x)
        times[T] = min(times[T], clock() - start)
    print(f"T={T:5d}  {times[T] * 1000:8.2f} ms")
# --8<-- [end:lengths]
# --8<-- [end:try]

# --8<-- [start:exponent]
# 両対数では、T の p 乗は傾き p の直線になる
log_T, log_time = torch.tensor(list(times)).log(), torch.tensor(list(times.values())).log()
dx, dy = log_T - log_T.mean(), log_time - log_time.mean()
slope = ((dx * dy).sum() / (dx * dx).sum()).item()  # 最小二乗法で当てはめた直線の傾き
print("指数（T の何乗で増えるか）", f"{slope:.1f}")
print("T が倍になるたびに、時間は", f"×{2 ** slope:.1f}")
# --8<-- [end:exponent]
