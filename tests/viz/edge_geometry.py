"""Where Graphviz put each edge and its label in a rendered SVG: which label a reader would tie
to which edge. A label belongs to the edge whose drawn path passes nearest to it; a label that
sits nearer another edge's path than its own is read as that edge's."""
import html
import re

import numpy as np

_EDGE = re.compile(r'<g id="(vz_e\d+)" class="edge">(.*?)(?=<!--|<g id="vz_|</svg>)', re.S)
_PATH = re.compile(r'<path [^>]*\bd="([^"]*)"')
_TEXT = re.compile(r'<text [^>]*x="(-?[\d.]+)" y="(-?[\d.]+)"[^>]*font-size="([\d.]+)"[^>]*>'
                   r'(.*?)</text>')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def bezier_points(d, per_segment=24):
    """Points along an SVG path of Graphviz's form: M x,y C (three points)..."""
    numbers = [float(v) for v in _NUMBER.findall(d)]
    points = np.array(numbers).reshape(-1, 2)
    out = [points[0]]
    t = np.linspace(0, 1, per_segment)[:, None]
    for k in range(1, len(points) - 2, 3):
        p0, p1, p2, p3 = points[k - 1], points[k], points[k + 1], points[k + 2]
        out.extend((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2
                   + t ** 3 * p3)
    return np.array(out)


def label_box(texts):
    """(left, top, right, bottom) around an edge's label rows: ``texts`` are (x, y, size,
    text) of ``text-anchor="start"`` rows; a character is about 0.55 em wide."""
    lefts = [x for x, _, _, _ in texts]
    rights = [x + 0.55 * size * len(html.unescape(s)) for x, _, size, s in texts]
    tops = [y - size for _, y, size, _ in texts]
    bottoms = [y + 0.25 * size for _, y, size, _ in texts]
    return min(lefts), min(tops), max(rights), max(bottoms)


def box_distance(box, points):
    """The distance from a rectangle to the nearest of ``points`` (0 inside it)."""
    left, top, right, bottom = box
    dx = np.maximum(np.maximum(left - points[:, 0], 0), points[:, 0] - right)
    dy = np.maximum(np.maximum(top - points[:, 1], 0), points[:, 1] - bottom)
    return float(np.sqrt(dx ** 2 + dy ** 2).min())


def edges(svg):
    """{edge id: (points along its path, label box or None, label text)}."""
    found = {}
    for m in _EDGE.finditer(svg):
        path = _PATH.search(m.group(2))
        if path is None:
            continue
        texts = [(float(x), float(y), float(size), s) for x, y, size, s in
                 _TEXT.findall(m.group(2))]
        box = label_box(texts) if texts else None
        found[m.group(1)] = (bezier_points(path.group(1)), box,
                             " ".join(html.unescape(t[3]) for t in texts))
    return found


def misplaced_labels(svg, slack=2.0):
    """[(label text, its edge, the edge it sits nearer to, distances)] for every label that
    is more than ``slack`` points nearer to another edge's path than to its own."""
    drawn = edges(svg)
    wrong = []
    for key, (points, box, text) in drawn.items():
        if box is None:
            continue
        own = box_distance(box, points)
        for other, (other_points, _, _) in drawn.items():
            if other != key:
                d = box_distance(box, other_points)
                if d + slack < own:
                    wrong.append((text, key, other, round(own, 1), round(d, 1)))
    return wrong
