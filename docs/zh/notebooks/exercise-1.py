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
# # 练习 1：换掉“光”的查询
#
# 在“查询和键”一节里，“光”的查询找的是和天空有关的东西（明、月）。把查询换成 `{{ q_place:g }}`（找和位置有关的东西），权重会怎么变？
#
# 键和那一节相同：第一列是“和天空有关的程度”，第二列是“和位置有关的程度”。

# %%
--8<-- "snippets/exercise_1.py:try"

# %% [markdown] tags=["answer"]
# **答案：** 分数变成各个键的第二列，权重从“明”“月”移到了“床”“前”。把分数乘以 5，权重会像“查询和键”一节里那样更加集中。

# %% tags=["answer"]
--8<-- "snippets/exercise_1.py:answer"
