"""A single number off by exactly a size of the problem (a learning rate for a loss summed
over B = 10 examples, where the mean was meant) is named as that size, though 10 is no simple
factor; a ratio that is no size, or an infinite answer, is not."""
import numpy as np

from dagrad.exercises import Exercise, Value, check, define, given


def learning_rate_exercise():
    define(Exercise("94.1", Value("lr", lambda g: 0.03 / 20, tol=1e-12,
                                  sizes={"the batch size B": 10})))
    given("94.1")


def test_one_number_a_batch_size_off_is_named():
    learning_rate_exercise()
    r = check("94.1", 0.03 / 2)
    assert r.diagnosis == "mean_factor" and "10 is the batch size B" in r.message
    assert check("94.1", 0.03 / 200).diagnosis == "mean_factor"


def test_a_ratio_that_is_no_size_and_an_infinite_answer_are_not():
    learning_rate_exercise()
    assert check("94.1", 0.03 / 7).diagnosis != "mean_factor"
    assert check("94.1", np.inf).diagnosis != "mean_factor"
