from attention_lesson import cost_sweep, cost_table
from attention_lesson.memory import cost_memory

# 第 5 節のヘッドと PyTorch の SDPA の 1 回の計算時間（1 回の空打ちの後、5 回の中央値）
points = cost_sweep([1000, 2000, 4000])
# 1 回の計算で PyTorch が確保するテンソルのメモリのピーク（時間と違ってマシンの混み具合によらない）
memory = cost_memory([1000, 2000, 4000])

print(cost_table(points, memory))
