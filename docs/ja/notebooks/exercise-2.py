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
# # 練習問題 2：因果マスクを外す
#
# 「完全なアテンションヘッド」の節のヘッドから因果マスクを取り除き、PyTorch 組み込みの `scaled_dot_product_attention(..., is_causal=False)` と比べます。入力と重み行列はその節と同じものです（同じ乱数の種、同じ形）。

# %%
--8<-- "snippets/exercise_2.py:try"

# %% [markdown] tags=["answer"]
# **答え：** マスクを外したヘッドは `is_causal=False` の SDPA と（浮動小数点の誤差の範囲で）同じ結果になります。
#
# では、マスクを外して何が変わったのでしょう。マスク付きの出力と比べて、位置ごとの差の最大値を見ます。

# %% tags=["answer"]
--8<-- "snippets/exercise_2.py:mask"

# %% [markdown] tags=["answer"]
# 変わるのは後ろの位置を覗けるようになった前の位置だけで、最後の「光」の出力は変わりません。言語モデルが次の文字を予測するとき、この「覗き見」は答えを見ながら解くことになるので、マスクが必要です。
