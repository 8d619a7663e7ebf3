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
# # Exercise 1: change the query of 光
#
# On the page "Queries and keys", the query of 光 looked for things related to the sky (明, 月).
# How do the weights change when the query becomes `{{ q_place:g }}` (looking for things related to location)?
#
# The keys are that page's: the first column is "related to the sky", the second "related to
# location".

# %%
--8<-- "snippets/exercise_1.py:try"

# %% [markdown] tags=["answer"]
# **Answer:** the scores become the keys' second column, and the weight moves from 明 and 月 to 床 and 前.
# Multiplying the scores by 5 concentrates the weights further, as on "Queries and keys".

# %% tags=["answer"]
--8<-- "snippets/exercise_1.py:answer"
