"""Reverse-mode autodiff on one neuron: y = tanh(w * x + b).

The forward pass records three operations in a DAG (multiply, add, tanh).
``y.backward()`` walks it backwards and applies the chain rule edge by edge:

    u = w * x + b,   y = tanh(u)
    dy/du = 1 - tanh(u)^2
    dy/dw = dy/du * x
    dy/dx = dy/du * w
    dy/db = dy/du * 1

The script prints the gradients autograd computed next to these hand-derived
formulas and exits with status 1 if they disagree.
"""

import math
import sys

from dagrad import autograd as ag


def main() -> int:
    x_val, w_val, b_val = 0.8, -1.5, 0.3

    x = ag.tensor(x_val, requires_grad=True)
    w = ag.tensor(w_val, requires_grad=True)
    b = ag.tensor(b_val, requires_grad=True)

    y = (w * x + b).tanh()  # forward: every operation is recorded in the graph
    y.backward()            # backward: reverse topological order, chain rule per edge

    # Hand-derived derivatives, computed in double precision with the math module.
    u = w_val * x_val + b_val
    dy_du = 1.0 - math.tanh(u) ** 2
    expected = {
        "y": math.tanh(u),
        "dy/dx": dy_du * w_val,
        "dy/dw": dy_du * x_val,
        "dy/db": dy_du,
    }
    computed = {
        "y": y.item(),
        "dy/dx": x.grad.item(),
        "dy/dw": w.grad.item(),
        "dy/db": b.grad.item(),
    }

    print(f"x = {x_val}, w = {w_val}, b = {b_val}")
    print("y = tanh(w*x + b)\n")
    print(f"{'quantity':<8} {'autograd':>12} {'by hand':>12}   formula")
    formulas = {
        "y": "tanh(w*x + b)",
        "dy/dx": "(1 - y^2) * w",
        "dy/dw": "(1 - y^2) * x",
        "dy/db": "(1 - y^2)",
    }
    ok = True
    for key, formula in formulas.items():
        got, want = computed[key], expected[key]
        # Tensors default to float32, so compare with a float32-sized tolerance.
        match = math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6)
        ok = ok and match
        print(f"{key:<8} {got:>12.6f} {want:>12.6f}   {formula}{'' if match else '   MISMATCH'}")

    print("\nall gradients match" if ok else "\ngradients do not match the formulas")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
