"""Run on its own, this file imports the sweep from the package; the notebook shows the sweep's source instead."""

from attention_lesson import cost_sweep, fitted_exponent

# --8<-- [start:try]
from itertools import pairwise

# --8<-- [start:lengths]
points = cost_sweep([1000, 2000, 4000])  # 「完全なアテンションヘッド」のヘッドを T = 1000, 2000, 4000 で測る
for p in points:
    print(f"T={p.T:5d}  {p.naive_s * 1000:8.2f} ms")
# --8<-- [end:lengths]
# --8<-- [end:try]

# --8<-- [start:exponent]
for before, after in pairwise(points):
    print(f"T {before.T} → {after.T}:", "時間は", f"×{after.naive_s / before.naive_s:.1f}")
print("指数（T の何乗で増えるか）", f"{fitted_exponent([p.T for p in points], [p.naive_s for p in points]):.1f}")
# --8<-- [end:exponent]
