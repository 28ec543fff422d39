"""Train a multilayer perceptron on the 8x8 handwritten digits and print its test accuracy.

    python examples/train_mlp_digits.py [--epochs 20]

The 1797 images (64 pixels each, scaled to [0, 1]) are split 80/20 with a fixed seed; the
model is MLP 64-128-64-10 with ReLU, trained with SGD + momentum on mini-batches of 32 and a
cross-entropy loss. ``nn.training.fit`` shows a progress bar (tqdm) and keeps the history.
"""
import argparse

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn import datasets
from dagrad.nn.data import DataLoader, TensorDataset
from dagrad.nn.training import accuracy, evaluate, fit


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    X, y = datasets.load_digits()
    X_train, X_test, y_train, y_test = datasets.train_test_split(X, y, test_size=0.2, seed=0)
    train = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True,
                       seed=args.seed)
    test = DataLoader(TensorDataset(X_test, y_test), batch_size=256)
    print(f"digits: {len(X_train)} training and {len(X_test)} test images of 8x8 pixels")

    ag.manual_seed(args.seed)
    model = nn.models.MLP([64, 128, 64, 10])
    print(model)
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    history = fit(model, loss_fn, optimizer, train, epochs=args.epochs, val_loader=test,
                  metrics={"accuracy": accuracy})

    result = evaluate(model, test, loss_fn, {"accuracy": accuracy})
    print(f"final training loss {history['loss'][-1]:.4f}, test loss {result['loss']:.4f}")
    print(f"test accuracy: {100 * result['accuracy']:.2f}% "
          f"({round(result['accuracy'] * len(X_test))}/{len(X_test)})")


if __name__ == "__main__":
    main()
