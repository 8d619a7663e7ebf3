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
# 「完全なアテンションヘッド」の節のヘッドの系列の長さを 5 から 1000、2000、4000 に変えて、それぞれの時間を測ります。`time.time()` で 1 回だけ測ると、最初の呼び出し（メモリの確保など）や他の処理の影響で値がぶれます。`cost_sweep` は 1 回空打ちしてから 5 回測り、その中央値を返します。

# %%
--8<-- "src/attention_lesson/core.py:imports"
--8<-- "src/attention_lesson/core.py:head"
--8<-- "src/attention_lesson/core.py:cost"
--8<-- "snippets/exercise_3.py:try"

# %% [markdown]
# **答え：** 時間が T の何乗で増えるかは、両対数で当てはめた直線の傾きでわかります。2 なら T² に比例、つまり長さが倍になるたびに時間はおよそ 4 倍です。値は実行したマシンによって変わり、混み合ったマシンや短い系列では固定的なコストの分だけ 2 より小さく出ることがあります。

# %%
--8<-- "snippets/exercise_3.py:exponent"
