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
# Change the sequence length of the head of "A complete attention head" from 5 to 1000, 2000 and 4000, and
# time each. A single `time.time()` measurement wobbles: the first call pays for memory allocation, and other
# work on the machine gets in the way. Here each length is timed five times with `time.perf_counter()`, the fine-grained clock for short
# intervals, keeping the fastest run: a run that overlaps other work, or that allocates memory for the first time, is only slower.

# %%
--8<-- "snippets/exercise_3.py:try"

# %% [markdown] tags=["answer"]
# **Answer:** the power of T the time grows with shows in how many times longer it takes when the length is 4 times
# as long (1000 → 4000): 4 times means the first power, 16 times the second, so the exponent is
# log(time ratio) / log(4). An exponent of 2 means time proportional to T²: about 4 times as long each time the
# length doubles. The value depends on
# the machine that ran this notebook; on a busy machine or at short lengths, fixed costs can make it come
# out below 2.

# %% tags=["answer"]
--8<-- "snippets/exercise_3.py:exponent"
