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
# # Exercise 3: sequence length and time
#
# Make the sequence of the head of "A complete attention head" longer and time each length. Here we take {{ len(times) }} lengths, doubling from {{ list(times)[0] }} to {{ list(times)[-1] }}: the more lengths, the less one bad measurement sways the trend (much longer, and allocating the memory for the T×T table and moving a table that no longer fits in the cache add time of their own). Elapsed time, such as time.time(), counts the time spent waiting too on a machine busy with other work. So each length is timed {{ len(runs) }} times with `time.process_time()`, which counts only the CPU time this computation used, keeping the fastest run; before measuring, the head runs once on a sequence longer than any of them, so that the timed runs reuse memory instead of receiving fresh memory from the OS (on Windows that clock is too coarse, so `time.perf_counter()` measures elapsed time instead).

# %%
--8<-- "snippets/exercise_3.py:try"

# %% [markdown] tags=["answer"]
# **Answer:** on log-log axes, the power of T the time grows with is the slope of a straight line. Fit a line by least squares through the points (log T, log time) and take its slope as the exponent. It uses every length, so one length measured badly moves it little. An exponent of 2 means time proportional to T²: about 4 times (2 squared) as long each time the length doubles. The value depends on the machine that ran this notebook; at short lengths, fixed costs that do not grow with T can make it come out below 2. The page "The cost of attention" measures the same way.

# %% tags=["answer"]
--8<-- "snippets/exercise_3.py:exponent"
