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
# # 练习 2：去掉因果掩码
#
# 去掉“一个完整的注意力头”一节那个头的因果掩码，和 PyTorch 内置的 `scaled_dot_product_attention(..., is_causal=False)` 比一比。输入和权重矩阵都和那一节相同（同样的随机种子、同样的形状）。

# %%
--8<-- "snippets/exercise_2.py:try"

# %% [markdown] tags=["answer"]
# **答案：** 去掉掩码的头和 `is_causal=False` 的 SDPA 结果相同（在浮点误差范围内）。
#
# 那么去掉掩码到底改变了什么？和加掩码的输出比较，看每个位置的最大差。

# %% tags=["answer"]
--8<-- "snippets/exercise_2.py:mask"

# %% [markdown] tags=["answer"]
# 变化的只是前面那些现在能偷看后面位置的字，最后的“光”的输出没有变。语言模型预测下一个字时，这种偷看就等于看着答案做题，所以需要掩码。
