import math
import sys
import time
import timeit

import torch
import torch.nn.functional as F
from torch.autograd.profiler import profile

def attention_head(x, W_q, W_k, W_v):  #@save
    q, k, v = x @ W_q, x @ W_k, x @ W_v  # 「完全なアテンションヘッド」の節と同じ計算
    mask = torch.ones(len(x), len(x), dtype=torch.bool).tril()
    scores = (q @ k.T / math.sqrt(q.shape[1])).masked_fill(~mask, float("-inf"))
    return F.softmax(scores, dim=-1) @ v

def sdpa(x, W_q, W_k, W_v):  #@save
    q, k, v = ((x @ W)[None, None] for W in (W_q, W_k, W_v))  # (バッチ, ヘッド, T, d) の形で渡すと
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)[0, 0]  # PyTorch の SDPA は融合カーネルを使う

def seconds(f, *args):  #@save
    # CPU がこの計算に使った時間を測る：ほかの処理に CPU を譲って待っていた時間は数えない
    clock = time.perf_counter if sys.platform == "win32" else time.process_time  # Windows のこの時計は粗すぎる
    return min(timeit.repeat(lambda: f(*args), number=1, repeat=10, timer=clock))  # 10 回測って最も速い回

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
    x, y = torch.tensor(lengths).log(), torch.tensor(values).log()  # 両対数では、T の p 乗は傾き p の直線になる
    dx, dy = x - x.mean(), y - y.mean()
    return ((dx * dy).sum() / (dx * dx).sum()).item()  # 最小二乗法で当てはめた直線の傾き

torch.set_num_threads(1)  # 1 スレッドで測る：ほかの処理とコアを取り合っても、時間が揺れにくい
W_q, W_k, W_v = (torch.randn(16, 8) / math.sqrt(16) for _ in range(3))
print("| T | ヘッド ms | SDPA ms | ヘッド MiB | SDPA MiB |")  # 時間とピークメモリ
print("|:---|---:|---:|---:|---:|")
# 測る前に一度、どれよりも長い系列で計算しておく：一度確保して解放した大きなメモリは
# 使い回されるので、測るたびに OS からメモリを受け取る時間が加わらない
attention_head(torch.randn(4096, 16), W_q, W_k, W_v)
table = {}
for T in [256, 512, 1024, 2048]:  # 長さを倍々にする
    x = torch.randn(T, 16)
    table[T] = [seconds(f, x, W_q, W_k, W_v) * 1000 for f in (attention_head, sdpa)]  # ミリ秒
    table[T] += [peak_mib(f, x, W_q, W_k, W_v) for f in (attention_head, sdpa)]  # MiB
    print(f"| {T} |", " | ".join(f"{value:.2f}" for value in table[T]), "|")
exponents = [slope(list(table), [row[i] for row in table.values()]) for i in range(4)]  # すべての長さを使う
print("| 指数（T の何乗で増えるか） |", " | ".join(f"{e:.1f}" for e in exponents), "|")
