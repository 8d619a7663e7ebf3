# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercise 3: sequence length and time
#
# Change the sequence length of the fifth section's head from 5 to 1000, 2000 and 4000, and time each.
# A single `time.time()` measurement wobbles: the first call pays for memory allocation, and other work on
# the machine gets in the way. `cost_sweep` makes one warm-up call, then times five and returns the median.

# %%
from attention_lesson import cost_sweep, fitted_exponent

points = cost_sweep([1000, 2000, 4000])
for p in points:
    print(f"T={p.T:5d}  {p.naive_s * 1000:8.2f} ms")

# %% [markdown]
# **Answer:** the power of T the time grows with is the slope of a straight line fitted on log-log axes. A slope of 2
# means time proportional to T²: about 4 times as long each time the length doubles. The value depends on
# the machine that ran this notebook; on a busy machine or at short lengths, fixed costs can make it come
# out below 2.

# %%
exponent = fitted_exponent([p.T for p in points], [p.naive_s for p in points])
for before, after in zip(points, points[1:]):
    print(f"T {before.T} → {after.T}: time ×{after.naive_s / before.naive_s:.1f}")
print("Fitted exponent:", f"{exponent:.1f}")
