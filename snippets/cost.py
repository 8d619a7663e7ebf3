from attention_lesson import cost_sweep, fitted_exponent, label

# 第 5 節のヘッドを T = 1000, 2000, 4000 で測る（1 回の空打ちの後、5 回の中央値）
points = cost_sweep([1000, 2000, 4000])

for p in points:
    print(f"T={p.T:5d}  {label('naive_head')} {p.naive_s * 1000:7.2f} ms   SDPA {p.sdpa_s * 1000:7.2f} ms")
exponent = fitted_exponent([p.T for p in points], [p.naive_s for p in points])
print(label("exponent"), f"{exponent:.1f}")
