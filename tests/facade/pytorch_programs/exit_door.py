"""A program written for dagrad with PyTorch's names (``from dagrad import torch``), which runs on
PyTorch itself once its import lines say ``torch`` again: the way out of one CPU.

It trains a small convolutional classifier on 8×8 images with a learning-rate schedule and
gradient clipping, and saves its results in PyTorch's format.
"""
import sys

from dagrad import torch
from dagrad.torch import nn
import dagrad.torch.nn.functional as F
from dagrad.torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3, padding=1, bias=False)   # BN follows
        self.pool = nn.MaxPool2d(2)
        self.norm = nn.BatchNorm2d(4)
        self.head = nn.Linear(4 * 4 * 4, classes)

    def forward(self, x):
        x = self.pool(F.relu(self.norm(self.conv(x))))
        return self.head(x.flatten(1))


def main(data_path, init_path, out_path):
    data = torch.load(data_path, weights_only=True)
    loader = DataLoader(TensorDataset(data["x"], data["y"]), batch_size=16)
    model = SmallCNN()
    model.load_state_dict(torch.load(init_path, weights_only=True))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6)
    losses = []
    for epoch in range(3):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.1)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    model.eval()
    with torch.no_grad():
        logits = model(data["x"])
        accuracy = (logits.argmax(1) == data["y"]).float().mean().item()
    print(f"loss {losses[-1]:.4f} accuracy {accuracy:.3f} shape {logits.shape}")
    torch.save({"losses": torch.tensor(losses), "accuracy": accuracy, "logits": logits,
                "running_mean": model.norm.running_mean}, out_path)


if __name__ == "__main__":
    main(*sys.argv[1:4])
