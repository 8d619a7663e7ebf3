# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 練習問題 3：系列の長さと計算時間
#
# 第 5 節のヘッドの系列の長さを 5 から 1000、2000、4000 に変えて、それぞれの時間を測ります。`time.time()` で 1 回だけ測ると、最初の呼び出し（メモリの確保など）や他の処理の影響で値がぶれます。`cost_sweep` は 1 回空打ちしてから 5 回測り、その中央値を返します。

# %%
from attention_lesson import cost_sweep, fitted_exponent

points = cost_sweep([1000, 2000, 4000])
for p in points:
    print(f"T={p.T:5d}  {p.naive_s * 1000:8.2f} ms")

# %% [markdown]
# **答え：** 時間が T の何乗で増えるかは、両対数で当てはめた直線の傾きでわかります。2 なら T² に比例、つまり長さが倍になるたびに時間はおよそ 4 倍です。値は実行したマシンによって変わり、混み合ったマシンや短い系列では固定的なコストの分だけ 2 より小さく出ることがあります。

# %%
exponent = fitted_exponent([p.T for p in points], [p.naive_s for p in points])
for before, after in zip(points, points[1:]):
    print(f"T {before.T} → {after.T}：時間は ×{after.naive_s / before.naive_s:.1f}")
print("当てはめた指数：", f"{exponent:.1f}")
