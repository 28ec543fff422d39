"""An MNIST-style classifier, written as pytorch/examples' mnist/main.py is: a network class,
train and test functions, Adadelta with StepLR, a DataLoader, log lines, a saved result.

Run it with PyTorch (``python mnist_mlp.py --data d.pt --init w.pt --out r.pt``) or on dagrad
(``python -m dagrad.torch.run mnist_mlp.py ...``): the source is the same.
"""
import argparse

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 64)
        self.dropout = nn.Dropout(0.0)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout(x)
        return F.log_softmax(self.fc2(x), dim=1)


def train(args, model, device, train_loader, optimizer, epoch, losses):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args.log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
                  f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.item():.6f}")


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print(f"\nTest set: Average loss: {test_loss:.4f}, Accuracy: {correct}/"
          f"{len(test_loader.dataset)} ({100. * correct / len(test_loader.dataset):.0f}%)\n")
    return test_loss, correct


def main():
    parser = argparse.ArgumentParser(description="MNIST-style MLP")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--gamma", type=float, default=0.7)
    parser.add_argument("--no-cuda", action="store_true", default=False)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log-interval", type=int, default=4)
    parser.add_argument("--data", required=True)
    parser.add_argument("--init", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if use_cuda else "cpu")
    if use_cuda:
        cudnn.benchmark = True

    data = torch.load(args.data, weights_only=True)
    train_kwargs = {"batch_size": args.batch_size, "shuffle": False}
    train_loader = DataLoader(TensorDataset(data["train_x"], data["train_y"]), **train_kwargs)
    test_loader = DataLoader(TensorDataset(data["test_x"], data["test_y"]), batch_size=100)

    model = Net().to(device)
    model.load_state_dict(torch.load(args.init, map_location=device, weights_only=True))
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    losses = []
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch, losses)
        test_loss, correct = test(model, device, test_loader)
        scheduler.step()
    torch.save({"losses": torch.tensor(losses), "test_loss": test_loss, "correct": correct,
                "lr": scheduler.get_last_lr()[0], "model": model.state_dict()}, args.out)


if __name__ == "__main__":
    main()
