"""Run on its own, this file imports the study from the package; the page shows the study's source instead."""

from attention_lesson import scaling_study

# --8<-- [start:listing]
# d ごとに、ランダムなベクトルの内積の標準偏差と、ランダムな 5×5 のスコア表で
# 各行の最大の重みがどれだけ大きいか（√d で割る前と後、多数の表の平均）を測る
rows = scaling_study([16, 64, 256, 1024])

headers = ["内積の標準偏差", "√d", "各行の最大の重みの平均（スケーリングなし）", "同（√d で割った後）"]
print("| d |", " | ".join(headers), "|")
print("|:---|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r.d} | {r.dot_std:.2f} | {r.sqrt_d:.2f} | {r.max_weight_unscaled:.2f} | {r.max_weight_scaled:.2f} |")
# --8<-- [end:listing]
