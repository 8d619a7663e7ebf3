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
# # 练习 3：序列长度和计算时间
#
# 把“一个完整的注意力头”一节那个头的序列长度从 5 改成 1000、2000、4000，测每个长度花的时间。用 `time.time()` 只测一次，数值会受第一次调用（分配内存等）和机器上其他任务的影响而波动。这里用测短时间的精细时钟 `time.perf_counter()` 把每个长度测五次，取最快的一次：和其他任务重叠的那次、第一次分配内存的那次，都只会更慢。

# %%
--8<-- "snippets/exercise_3.py:try"

# %% [markdown] tags=["answer"]
# **答案：** 时间按 T 的几次方增长，可以看长度变成 4 倍（1000 → 4000）时时间变成了几倍：4 倍是一次方，16 倍是二次方，所以指数就是 log(时间之比) / log(4)。指数为 2 就是和 T² 成正比，也就是长度每翻一倍，时间大约变成 4 倍。数值取决于运行这个笔记本的机器；机器繁忙或序列较短时，固定开销会让它小于 2。

# %% tags=["answer"]
--8<-- "snippets/exercise_3.py:exponent"
