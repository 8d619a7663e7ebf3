from attention_lesson import scaling_study, scaling_table

# d ごとに、ランダムなベクトルの内積の標準偏差と、ランダムな 5×5 のスコア表で
# 各行の最大の重みがどれだけ大きいか（√d で割る前と後、多数の表の平均）を測る
rows = scaling_study([16, 64, 256, 1024])

print(scaling_table(rows))
