"""Edge colours by gradient magnitude on a log scale, and the legend that explains them.

Magnitude of an edge gradient δ = its root mean square, √(mean δ²): per element, so large
tensors are not bright just for being large. Colours follow viridis, a colour-blind-safe map
whose lightness rises steadily: dark purple (smallest in the graph) through blue and teal to
green (largest), cut before its pale yellow end, which is invisible on white; zero gradients
grey.
"""
import numpy as np

# Stops of matplotlib's "viridis" map, cut before its pale yellow end.
STOPS = ["#440154", "#414487", "#2a788e", "#22a884", "#7ad151"]
ZERO = "#9e9e9e"
NONE = "#444444"


def magnitude(g):
    """√(mean g²) as a float (0 for empty)."""
    g = np.asarray(g, dtype=np.float64)
    return float(np.sqrt(np.mean(g * g))) if g.size else 0.0


class LogScale:
    """Maps magnitudes in [lo, hi] to colours and pen widths, logarithmically."""

    def __init__(self, magnitudes):
        positive = [m for m in magnitudes if m > 0 and np.isfinite(m)]
        self.lo = min(positive) if positive else 1.0
        self.hi = max(positive) if positive else 1.0

    def position(self, m):
        """0 at the smallest magnitude, 1 at the largest."""
        if self.hi <= self.lo:
            return 1.0
        t = (np.log10(m) - np.log10(self.lo)) / (np.log10(self.hi) - np.log10(self.lo))
        return float(np.clip(t, 0.0, 1.0))

    def color(self, m):
        if m is None:
            return NONE
        if not m > 0 or not np.isfinite(m):
            return ZERO if m == 0 else "#d50000"
        return interpolate(self.position(m))

    def width(self, m):
        if m is None or not m > 0 or not np.isfinite(m):
            return 1.0
        return 1.0 + 2.0 * self.position(m)

    def ticks(self, n=5):
        """``n`` magnitudes spread evenly on the log scale from lo to hi."""
        if self.hi <= self.lo:
            return [self.lo]
        return list(np.logspace(np.log10(self.lo), np.log10(self.hi), n))


def interpolate(t):
    """The colour at position t in [0, 1] along STOPS, as #rrggbb."""
    x = t * (len(STOPS) - 1)
    i = min(int(x), len(STOPS) - 2)
    f = x - i
    a, b = _rgb(STOPS[i]), _rgb(STOPS[i + 1])
    return "#" + "".join(f"{round(p + (q - p) * f):02x}" for p, q in zip(a, b))


def _rgb(hex_colour):
    return tuple(int(hex_colour[k:k + 2], 16) for k in (1, 3, 5))
