"""Saving and resuming, as PyTorch's tutorial on checkpoints does it: a checkpoint dict
(model, optimizer, epoch, loss) written to an open file, loaded with weights_only=True into a
new model and optimizer, training resumed; the whole model saved and loaded back with its
classes allowlisted, as PyTorch 2.6+ requires.
"""
import argparse
import os

import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x)


def fit(model, optimizer, x, y, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--init", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    data = torch.load(args.data, weights_only=True)
    x, y = data["x"], data["y"]
    folder = os.path.dirname(args.out)

    model = Regressor()
    model.load_state_dict(torch.load(args.init, weights_only=True))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    first = fit(model, optimizer, x, y, 5)
    with open(os.path.join(folder, "ckpt.pth"), "wb") as f:
        torch.save({"epoch": 5, "model_state_dict": model.state_dict(),
                    "optimizer_state_dict": optimizer.state_dict(), "loss": first[-1]}, f)
    torch.save(model, os.path.join(folder, "whole.pth"))

    resumed = Regressor()
    resumed_opt = torch.optim.SGD(resumed.parameters(), lr=0.5)
    with open(os.path.join(folder, "ckpt.pth"), "rb") as f:
        checkpoint = torch.load(f, weights_only=True)
    resumed.load_state_dict(checkpoint["model_state_dict"])
    resumed_opt.load_state_dict(checkpoint["optimizer_state_dict"])
    second = fit(resumed, resumed_opt, x, y, 5)
    continued = fit(model, optimizer, x, y, 5)

    try:
        torch.load(os.path.join(folder, "whole.pth"))
        refused = False
    except Exception:
        refused = True
    with torch.serialization.safe_globals([Regressor, nn.Sequential, nn.Linear, nn.ReLU]):
        whole = torch.load(os.path.join(folder, "whole.pth"))
    print(type(whole).__name__, checkpoint["epoch"], f"{checkpoint['loss']:.5f}")
    torch.save({"first": first, "second": second, "continued": continued,
                "whole_out": whole(x[:4]).detach(), "refused": refused,
                "lr": resumed_opt.param_groups[0]["lr"]}, args.out)


if __name__ == "__main__":
    main()
