"""A character-level language model, as the PyTorch tutorials and d2l write one: an embedding,
a GRU, a linear read-out; truncated backpropagation through time with the hidden state carried
and detached, gradient clipping, then greedy generation from a prompt.

``python char_rnn.py --text t.txt --init w.pt --out r.pt`` (PyTorch), or the same line after
``python -m dagrad.torch.run`` (dagrad).
"""
import argparse

import torch
from torch import nn
from torch.nn import functional as F


class CharRNN(nn.Module):
    def __init__(self, vocab_size, embed=16, hidden=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed)
        self.rnn = nn.GRU(embed, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, vocab_size)

    def forward(self, x, state=None):
        out, state = self.rnn(self.embedding(x), state)
        return self.fc(out), state


def batches(ids, batch_size, steps):
    """Consecutive windows: row b reads the b-th stretch of the text, so the hidden state of
    one window continues into the next."""
    n = (len(ids) - 1) // batch_size
    rows = ids[:n * batch_size].view(batch_size, n)
    targets = ids[1:n * batch_size + 1].view(batch_size, n)
    for start in range(0, n - steps + 1, steps):
        yield rows[:, start:start + steps], targets[:, start:start + steps]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--text", required=True)
    parser.add_argument("--init", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    with open(args.text) as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)

    model = CharRNN(len(chars))
    model.load_state_dict(torch.load(args.init, weights_only=True))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses, norms = [], []
    for epoch in range(args.epochs):
        state = None
        for x, y in batches(ids, batch_size=4, steps=8):
            logits, state = model(x, state)
            state = state.detach()
            loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch + 1}: loss {losses[-1]:.4f}")

    model.eval()
    prompt = text[:5]
    with torch.no_grad():
        x = torch.tensor([[stoi[c] for c in prompt]])
        logits, state = model(x)
        out = prompt
        for _ in range(20):
            nxt = logits[0, -1].argmax().item()
            out += chars[nxt]
            logits, state = model(torch.tensor([[nxt]]), state)
    print(repr(out))
    torch.save({"losses": losses, "norms": norms, "generated": out,
                "state_shape": list(state.shape), "model": model.state_dict()}, args.out)


if __name__ == "__main__":
    main()
