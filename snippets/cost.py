import math
import sys
import time
import timeit

import torch
import torch.nn.functional as F
from torch.autograd.profiler import profile

def attention_head(x, W_q, W_k, W_v):  #@save
    # 「完全なアテンションヘッド」の節と同じ計算
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    mask = torch.ones(len(x), len(x), dtype=torch.bool).tril()
    scores = (q @ k.T / math.sqrt(q.shape[1])).masked_fill(~mask, float("-inf"))
    return F.softmax(scores, dim=-1) @ v

def sdpa(x, W_q, W_k, W_v):  #@save
    # (バッチ, ヘッド, T, d) の形で渡すと、PyTorch の SDPA は融合カーネルを使う
    q, k, v = ((x @ W)[None, None] for W in (W_q, W_k, W_v))
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)[0, 0]

def seconds(f, *args):  #@save
    # この計算に CPU が使った時間を測る（ほかの処理を待つ間は数えない）
    # Windows の process_time は粗すぎる
    clock = time.perf_counter if sys.platform == "win32" else time.process_time
    times = timeit.repeat(lambda: f(*args), number=1, repeat=10, timer=clock)
    return min(times)  # 最も速い回

def peak_mib(f, *args):  #@save
    # テンソルの確保と解放を、起きた順にすべて記録する（端末に profiler_start と
    # profiler_stop が出ることがある：環境変数 KINETO_LOG_LEVEL=6 で出なくなる）
    with profile(profile_memory=True) as prof:
        f(*args)
    live = peak = 0
    for event in prof.function_events:
        live += event.self_cpu_memory_usage  # 確保はプラス、解放はマイナス
        peak = max(peak, live)
    return peak / 2**20

def slope(lengths, values):
    # 両対数では、T の p 乗は傾き p の直線になる
    x, y = torch.tensor(lengths).log(), torch.tensor(values).log()
    dx, dy = x - x.mean(), y - y.mean()
    return ((dx * dy).sum() / (dx * dx).sum()).item()  # 最小二乗法の直線の傾き

torch.set_num_threads(1)  # スレッドを絞って測る：ほかの処理に乱されにくい
W_q, W_k, W_v = (torch.randn(16, 8) / math.sqrt(16) for _ in range(3))
# 時間とピークメモリ
print("| T | ヘッド ms | SDPA ms | ヘッド MiB | SDPA MiB |")
print("|:---|---:|---:|---:|---:|")
# 測る前に一度、どれよりも長い系列で計算する：確保して解放した大きなメモリは
# 使い回されるので、測るたびに OS からメモリを受け取る時間が加わらない
attention_head(torch.randn(4096, 16), W_q, W_k, W_v)
table = {}
for T in [256, 512, 1024, 2048]:  # 長さを倍々にする
    x = torch.randn(T, 16)
    table[T] = [seconds(f, x, W_q, W_k, W_v) * 1000  # ミリ秒
                for f in (attention_head, sdpa)]
    table[T] += [peak_mib(f, x, W_q, W_k, W_v)  # MiB
                 for f in (attention_head, sdpa)]
    print(f"| {T} |", " | ".join(f"{value:.2f}" for value in table[T]), "|")

exponents = [slope(list(table), [row[i] for row in table.values()])
             for i in range(4)]  # すべての長さを使う
print("| 指数（T の何乗で増えるか） |",
      " | ".join(f"{e:.1f}" for e in exponents), "|")
