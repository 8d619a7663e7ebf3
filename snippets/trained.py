from pathlib import Path
import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
text = (Path(__file__).parent / "data" / "tangshi300.txt").read_text(encoding="utf-8")  # 唐詩三百首、一行に一首
chars = sorted(set(text))
ids = {c: i for i, c in enumerate(chars)}  # 文字 → 番号
data = torch.tensor([ids[c] for c in text])
T, d_model, d_head = 8, 16, 16

def attention_head(x, W_q, W_k, W_v):
    q, k, v = x @ W_q, x @ W_k, x @ W_v  # 「完全なアテンションヘッド」の節と同じ計算（k.mT は組ごとに転置）
    mask = torch.ones(x.shape[-2], x.shape[-2], dtype=torch.bool).tril()
    weights = F.softmax((q @ k.mT / q.shape[-1] ** 0.5).masked_fill(~mask, float("-inf")), dim=-1)
    return weights @ v, weights.detach()  # 重みも返して、後で見られるようにする
embed, position = torch.randn(len(chars), d_model), torch.randn(T, d_model)  # 文字の埋め込みと位置の埋め込み
W_q, W_k, W_v = (torch.randn(d_model, d_head) / d_model**0.5 for _ in range(3))
W_out = torch.randn(d_head, len(chars)) / d_head**0.5  # 出力層：ヘッドの出力を、次の文字ごとのスコアにする
params = [p.requires_grad_() for p in (embed, position, W_q, W_k, W_v, W_out)]
def loss(at):  # 詩集の位置 at の文字を読み、どの位置でも次の文字を当てる
    out, _ = attention_head(embed[data[at]] + position, W_q, W_k, W_v)
    return F.cross_entropy((out @ W_out).flatten(0, 1), data[at + 1].flatten())

line = torch.tensor([ids[c] for c in "床前明月光"])
weights_before = attention_head(embed[line] + position[:5], W_q, W_k, W_v)[1]  # 学習前（ランダム）の重み
test = torch.randint(len(data) - T, (1000, 1)) + torch.arange(T)  # ランダムな 1000 か所の T 文字
before = loss(test).item()
sums = [torch.zeros_like(p) for p in params]  # パラメータごとに、これまでの勾配の二乗を足していく
for _ in range(1500):  # ランダムな 8 か所を読むたびに、誤差逆伝播法で勾配を求め、
    grads = torch.autograd.grad(loss(torch.randint(len(data) - T, (8, 1)) + torch.arange(T)), params)
    for p, g, s in zip(params, grads, sums):
        s += g**2
        p.data -= 0.1 * g / (s.sqrt() + 1e-8)  # 勾配降下法で更新する。s の平方根で割るので、まれな文字も大きく動く
after = loss(test).item()
out, weights = attention_head(embed[line] + position[:5], W_q, W_k, W_v)  # 学習後の重み
guess = chars[(out[3] @ W_out).argmax()]  # 「月」の位置（「床前明月」まで見た）で、スコアが最も高い文字
print("損失（同じ 1000 か所の平均）：学習する前", f"{before:.2f}", "→ 学習した後", f"{after:.2f}")
print("「床前明月」の次に最も来そうな文字：", guess)
