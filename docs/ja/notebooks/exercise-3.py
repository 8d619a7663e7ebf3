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
# 「完全なアテンションヘッド」の節のヘッドの系列の長さを 5 から 1000、2000、4000 に変えて、それぞれの時間を測ります。`time.time()` で 1 回だけ測ると、最初の呼び出し（メモリの確保など）や他の処理の影響で値がぶれます。ここでは、短い時間を測るための細かい時計 `time.perf_counter()` で各長さを 5 回測り、最も速い回を取ります。ほかの処理と重なった回やメモリを初めて確保する回は、遅くなるだけだからです。

# %%
--8<-- "snippets/exercise_3.py:try"

# %% [markdown] tags=["answer"]
# **答え：** 時間が T の何乗で増えるかは、長さが 4 倍（1000 → 4000）になったとき時間が何倍になったかでわかります。4 倍なら 1 乗、16 倍なら 2 乗、つまり指数は log(時間の比) / log(4) です。2 なら T² に比例し、長さが倍になるたびに時間はおよそ 4 倍になります。値は実行したマシンによって変わり、混み合ったマシンや短い系列では固定的なコストの分だけ 2 より小さく出ることがあります。

# %% tags=["answer"]
--8<-- "snippets/exercise_3.py:exponent"
