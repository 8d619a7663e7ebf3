"""Run on its own, this file imports the measurements from the package; the page shows their source instead."""

from attention_lesson import cost_sweep, fitted_exponent
from attention_lesson.memory import cost_memory

# --8<-- [start:listing]
# 「完全なアテンションヘッド」のヘッドと PyTorch の SDPA の 1 回の計算時間（1 回の空打ちの後、5 回の中央値）
points = cost_sweep([1000, 2000, 4000])
# 1 回の計算で PyTorch が確保するテンソルのメモリのピーク（時間と違ってマシンの混み具合によらない）
memory = cost_memory([1000, 2000, 4000])

lengths = [p.T for p in points]
columns = [
    [p.naive_s * 1000 for p in points],  # ミリ秒
    [p.sdpa_s * 1000 for p in points],
    [m.naive_bytes / 2**20 for m in memory],  # MiB
    [m.sdpa_bytes / 2**20 for m in memory],
]
headers = [
    "時間 ms（このレッスンのヘッド）",
    "時間 ms（SDPA）",
    "ピークメモリ MiB（このレッスンのヘッド）",
    "ピークメモリ MiB（SDPA）",
]
print("| T |", " | ".join(headers), "|")
print("|:---|---:|---:|---:|---:|")
for i, T in enumerate(lengths):
    print(f"| {T} |", " | ".join(f"{column[i]:.1f}" for column in columns), "|")
print("|", "指数（T の何乗で増えるか）", "|", " | ".join(f"{fitted_exponent(lengths, c):.1f}" for c in columns), "|")
# --8<-- [end:listing]
