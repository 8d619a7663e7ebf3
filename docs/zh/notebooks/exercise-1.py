# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 练习 1：换掉“光”的查询
#
# 在第二节里，“光”的查询 `[1, 0]` 找的是和天空有关的东西（明、月）。把查询换成 `[0, 1]`（找和位置有关的东西），权重会怎么变？
#
# 键和第二节相同：第一列是“和天空有关的程度”，第二列是“和位置有关的程度”。

# %%
import torch

from attention_lesson import rounded, softmax_weights

k = torch.tensor([[0.1, 0.9],   # 床
                  [0.0, 1.0],   # 前
                  [0.9, 0.1],   # 明
                  [1.0, 0.0],   # 月
                  [0.8, 0.2]])  # 光

# %%
q_sky = torch.tensor([1.0, 0.0])    # 第二节的查询：和天空有关的东西
q_place = torch.tensor([0.0, 1.0])  # 新的查询：和位置有关的东西

for q in (q_sky, q_place):
    print(q.tolist(), rounded(softmax_weights(k @ q)))

# %% [markdown]
# **答案：** 分数变成各个键的第二列，权重从“明”“月”移到了“床”“前”。把分数乘以 5，权重会像第二节那样更加集中。

# %%
weights = rounded(softmax_weights(k @ q_place))
top_two = sorted(weights, key=weights.get, reverse=True)[:2]
print("权重最大的两个字：", top_two)
print("分数乘以 5：", rounded(softmax_weights(k @ q_place, scale=5)))
assert set(top_two) == {"床", "前"}
