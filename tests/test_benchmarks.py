"""The benchmark workloads compute what they claim: every framework's first step must equal
the same step computed in NumPy, so the tables compare equal work (no timing here)."""
import numpy as np

from benchmarks import lstm_cell_step, mlp_step, overhead
from benchmarks.others import reference
from dagrad import autograd as ag, nn


def test_the_unrolled_lstm_cell_step_matches_numpy():
    step = lstm_cell_step.setup_dagrad()      # raises if its first loss differs from NumPy's
    step()


def test_the_other_engines_reference_values_are_dagrad_s():
    x = ag.tensor([0.5])
    assert np.isclose(float(overhead._chain(x)), reference.chain_value(), rtol=1e-6)
    layers, data, labels = mlp_step._problem()
    model = nn.models.MLP(mlp_step.SIZES)
    model.load_state_dict(mlp_step._state_dict(layers))
    loss = nn.CrossEntropyLoss()(model(ag.tensor(data)), ag.tensor(labels))
    assert np.isclose(float(loss), reference.mlp_loss(), rtol=1e-5)
    reference.check("W2", loss, reference.mlp_loss())
