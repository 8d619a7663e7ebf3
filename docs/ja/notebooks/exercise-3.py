# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 練習問題 3：系列の長さと計算時間
#
# 「完全なアテンションヘッド」の節のヘッドの系列の長さを 5 から長くして、それぞれの時間を測ります。問題の 1000、2000、4000 の代わりに、{{ list(times)[0] }} から {{ list(times)[-1] }} まで倍々に四つの長さを取ります。長さが多いほど、傾向が一つの測定の外れに左右されにくくなるからです（もっと長くすると、T×T の表を置くメモリの確保やキャッシュに収まらない表の読み書きの時間が加わります）。`time.time()` は経過時間なので、マシンがほかの処理で混んでいると、待たされた時間まで数えてしまいます。ここでは、CPU がこの計算に使った時間だけを数える `time.process_time()` で各長さを 10 回測り、最も速い回を取ります（Windows ではこの時計が粗すぎるので、`time.perf_counter()` で経過時間を測ります）。

# %%
--8<-- "snippets/exercise_3.py:try"

# %% [markdown] tags=["answer"]
# **答え：** 時間が T の何乗で増えるかは、両対数のグラフで見ると直線の傾きになります。log T に対する log（時間）の点に最小二乗法で直線を当てはめ、その傾きを指数とします。すべての長さを使うので、一つの長さの測定が外れても指数はあまり動きません。指数が 2 なら時間は T² に比例し、長さが倍になるたびにおよそ 4 倍（2 の 2 乗）になります。値は実行したマシンによって変わり、短い系列では T によらない固定的なコストのぶん 2 より小さく出ることがあります。「アテンションの代償」のページも同じ方法で測っています。

# %% tags=["answer"]
--8<-- "snippets/exercise_3.py:exponent"
