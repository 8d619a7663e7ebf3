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
# 把“一个完整的注意力头”一节那个头的序列加长，测每个长度花的时间。这里从 {{ list(times)[0] }} 到 {{ list(times)[-1] }} 逐次翻倍取 {{ len(times) }} 个长度：长度越多，趋势越不容易被某一次测偏左右（再长的话，为 T×T 的表分配内存、读写放不进缓存的表都会额外花时间）。像 time.time() 这样的经过时间，在机器忙于其他任务时，连等待的时间也算进去。所以用只计 CPU 花在这次计算上的时间的 `time.process_time()` 把每个长度测 {{ len(runs) }} 次，取最快的一次；测量之前先用比所有长度都长的序列算一次，这样被测的计算就能重复使用内存，不必从操作系统领取新的内存（Windows 上这个时钟太粗，所以改用 `time.perf_counter()` 测经过的时间）。

# %%
--8<-- "snippets/exercise_3.py:try"

# %% [markdown] tags=["answer"]
# **答案：** 在双对数坐标上，时间随 T 的几次方增长，就是直线的斜率。对 (log T, log 时间) 这些点用最小二乘法拟合一条直线，取它的斜率作为指数。它用上了所有长度，某一个长度测偏了，指数也不大会变。指数为 2 就是和 T² 成正比，长度每翻一倍，时间大约变成 4 倍（2 的平方）。数值取决于运行这个笔记本的机器；序列较短时，不随 T 增长的固定开销会让它小于 2。“注意力的代价”一页也是用同样的方法测的。

# %% tags=["answer"]
--8<-- "snippets/exercise_3.py:exponent"
