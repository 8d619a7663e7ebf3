import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
text = open("data/tangshi300.txt", encoding="utf-8").read()  # 一行に一首
chars = sorted(set(text))
ids = {c: i for i, c in enumerate(chars)}  # 文字 → 番号
poems = [torch.tensor([ids[c] for c in p]) for p in text.splitlines(True)]
train = torch.cat([p for i, p in enumerate(poems) if i % 10])  # 残りの詩で学習
held_out = torch.cat(poems[::10])  # 読ませない詩（当たり具合を測る）
T, d = 16, 32
def attention_head(x, W_q, W_k, W_v):  # 「完全なアテンションヘッド」と同じ
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    mask = torch.ones(x.shape[-2], x.shape[-2], dtype=torch.bool).tril()
    scores = (q @ k.mT / d**0.5).masked_fill(~mask, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ v, weights.detach()  # 重みも返す（図にする）

embed, position = torch.randn(len(chars), d) * 0.3, torch.randn(T, d) * 0.3
W_q, W_k, W_v = (torch.randn(d, d) / d**0.5 for _ in range(3))
W_out = torch.randn(d, len(chars)) / d**0.5  # 出力層
params = [p.requires_grad_() for p in (embed, position, W_q, W_k, W_v, W_out)]
start = [p.detach().clone() for p in params]  # 学習前（図で比べる）
def next_scores(seq):  # 各位置で、次の文字ごとのスコア
    x = embed[seq] + position[: seq.shape[-1]]
    return (x + attention_head(x, W_q, W_k, W_v)[0]) @ W_out  # 残差接続

optimizer = torch.optim.AdamW(params, lr=0.006, weight_decay=0.1)
for _ in range(600):  # ランダムな 8 か所を読んでは更新する
    at = torch.randint(len(train) - T - 1, (8, 1)) + torch.arange(T)
    optimizer.zero_grad()
    F.cross_entropy(next_scores(train[at]).mT, train[at + 1]).backward()
    optimizer.step()

at = torch.arange(0, len(held_out) - T, T)[:, None] + torch.arange(T)
guessed, answers = next_scores(held_out[at]).detach(), held_out[at + 1]
loss = F.cross_entropy(guessed.mT, answers).item()
right = (guessed.argmax(dim=-1) == answers).float().mean().item()
print("読ませなかった詩で：損失", f"{loss:.2f}", "正解率は", f"{right:.1%}")
line = [ids[c] for c in "床前明月光"]
for _ in range(12):  # 最もスコアの高い文字を書き足す
    line.append(next_scores(torch.tensor(line[-T:]))[-1].argmax().item())

print("「床前明月光」の続き：", "".join(chars[i] for i in line[5:]))
