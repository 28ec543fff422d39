"""Argument helpers shared by the functional API."""
REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction, op, extra=()):
    if reduction not in REDUCTIONS + tuple(extra):
        allowed = ", ".join(repr(r) for r in REDUCTIONS + tuple(extra))
        raise ValueError(f"{op}: reduction must be one of {allowed}, got {reduction!r}")


def reduce(loss, reduction):
    """Apply the reduction: the mean or sum of all elements, or the elementwise loss."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
