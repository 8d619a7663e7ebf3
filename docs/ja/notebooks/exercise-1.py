# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 練習問題 1：「光」のクエリを替える
#
# 第 2 節では、「光」のクエリ `[1, 0]` が空に関係するもの（明、月）を探しました。クエリを `[0, 1]`（位置に関係するものを探す）に替えると、重みはどう変わるでしょうか。
#
# キーは第 2 節と同じです。1 列目は「空に関係する度合い」、2 列目は「位置に関係する度合い」です。

# %%
import torch

from attention_lesson import rounded, softmax_weights

k = torch.tensor([[0.1, 0.9],   # 床
                  [0.0, 1.0],   # 前
                  [0.9, 0.1],   # 明
                  [1.0, 0.0],   # 月
                  [0.8, 0.2]])  # 光

# %%
q_sky = torch.tensor([1.0, 0.0])    # 第 2 節のクエリ：空に関係するもの
q_place = torch.tensor([0.0, 1.0])  # 新しいクエリ：位置に関係するもの

for q in (q_sky, q_place):
    print(q.tolist(), rounded(softmax_weights(k @ q)))

# %% [markdown]
# **答え：** スコアは各キーの 2 列目になり、重みは「明」「月」から「床」「前」に移ります。スコアを 5 倍すると、第 2 節と同じように重みはさらに集中します。

# %%
weights = rounded(softmax_weights(k @ q_place))
top_two = sorted(weights, key=weights.get, reverse=True)[:2]
print("重みが最も大きい二文字：", top_two)
print("スコアを 5 倍：", rounded(softmax_weights(k @ q_place, scale=5)))
assert set(top_two) == {"床", "前"}
