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
# # 練習問題 1：「光」のクエリを替える
#
# 「クエリとキー」の節では、「光」のクエリが空に関係するもの（明、月）を探しました。クエリを `{{ q_place:g }}`（位置に関係するものを探す）に替えると、重みはどう変わるでしょうか。
#
# キーは「クエリとキー」の節と同じです。1 列目は「空に関係する度合い」、2 列目は「位置に関係する度合い」です。

# %%
--8<-- "snippets/exercise_1.py:try"

# %% [markdown] tags=["answer"]
# **答え：** スコアは各キーの 2 列目になり、重みは「明」「月」から「床」「前」に移ります。スコアを 5 倍すると、「クエリとキー」の節と同じように重みはさらに集中します。

# %% tags=["answer"]
--8<-- "snippets/exercise_1.py:answer"
