# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercise 1: change the query of 光
#
# In the second section, the query of 光, `[1, 0]`, looked for things related to the sky (明, 月).
# How do the weights change when the query becomes `[0, 1]` (looking for things related to location)?
#
# The keys are the second section's: the first column is "related to the sky", the second "related to
# location".

# %%
import torch

from attention_lesson import rounded, softmax_weights

k = torch.tensor([[0.1, 0.9],   # 床
                  [0.0, 1.0],   # 前
                  [0.9, 0.1],   # 明
                  [1.0, 0.0],   # 月
                  [0.8, 0.2]])  # 光

# %%
q_sky = torch.tensor([1.0, 0.0])    # the second section's query: the sky
q_place = torch.tensor([0.0, 1.0])  # the new query: location

for q in (q_sky, q_place):
    print(q.tolist(), rounded(softmax_weights(k @ q)))

# %% [markdown]
# **Answer:** the scores become the keys' second column, and the weight moves from 明 and 月 to 床 and 前.
# Multiplying the scores by 5 concentrates the weights further, as in the second section.

# %%
weights = rounded(softmax_weights(k @ q_place))
top_two = sorted(weights, key=weights.get, reverse=True)[:2]
print("The two characters with the largest weights:", top_two)
print("Scores ×5:", rounded(softmax_weights(k @ q_place, scale=5)))
assert set(top_two) == {"床", "前"}
