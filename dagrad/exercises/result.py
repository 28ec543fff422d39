"""``CheckResult``: what every check returns, in words a student reads (terminal and Jupyter),
and the one JSON line per check that tests read (``DAGRAD_EXERCISES_LOG``)."""
import html
import json
import os

NOT_ANSWERED = ("Not answered yet: write your answer in the cell above, then run this cell "
                "again.")
LOG_VARIABLE = "DAGRAD_EXERCISES_LOG"


class CheckResult:
    """The verdict of one check.

    Attributes:
        ok: True when the answer is right.
        message: what was expected and why (never only "wrong").
        diagnosis: a short tag for the kind of mistake, or None when right: "not_answered",
            "shape", "value", "transposed", "sign", "factor", "missing_local_derivative",
            "missing_broadcast_sum", "wrong_saved_value", "gradgrad", "choice",
            "not_an_option", "type".
        exercise: the exercise id passed to the check (e.g. "08.3"), or None.
        table: rows of a table (a list of tuples, the first the header), or None.
        svg: a picture (SVG text) shown in Jupyter under the table, or None; made on first
            use (rendering needs Graphviz's ``dot``), from ``picture``, a function of no
            arguments.

    ``bool(result)`` is ``result.ok``; ``str(result)`` is the terminal text, and Jupyter shows
    ``_repr_html_()``: the words "right", "wrong" or "not answered yet" (not only a colour),
    the message, the table and the picture.
    """

    def __init__(self, ok, message, diagnosis=None, exercise=None, table=None, picture=None):
        self.ok, self.message, self.diagnosis = bool(ok), message, diagnosis
        self.exercise, self.table, self.picture = exercise, table, picture
        self._svg = None

    @property
    def svg(self):
        if self._svg is None and self.picture is not None:
            self._svg = self.picture()
        return self._svg

    def __bool__(self):
        return self.ok

    @property
    def verdict(self):
        """"right", "wrong" or "not answered yet"."""
        if self.ok:
            return "right"
        return "not answered yet" if self.diagnosis == "not_answered" else "wrong"

    def _headline(self):
        mark = {"right": "✓ right", "wrong": "✗ wrong:",
                "not answered yet": "… not answered yet"}[self.verdict]
        return (f"Exercise {self.exercise}: " if self.exercise else "") + mark

    def __str__(self):
        lines = [self._headline(), self.message]
        if self.table:
            lines.append(_text_table(self.table))
        return "\n".join(line for line in lines if line)

    def _repr_pretty_(self, printer, cycle):
        """IPython in a terminal shows the text, as ``print`` does."""
        printer.text(str(self))

    def __repr__(self):
        return (f"<CheckResult {self.verdict}{' ' + self.exercise if self.exercise else ''}"
                f"{' (' + self.diagnosis + ')' if self.diagnosis else ''}>")

    def _repr_html_(self):
        colour = {"right": "#1b5e20", "wrong": "#b71c1c", "not answered yet": "#555555"}[
            self.verdict]
        background = {"right": "#e8f5e9", "wrong": "#ffebee",
                      "not answered yet": "#f5f5f5"}[self.verdict]
        parts = [f'<div class="dagrad-check dagrad-check-{self.verdict.replace(" ", "-")}" '
                 f'style="border-left: 4px solid {colour}; background: {background}; '
                 f'padding: 6px 10px; margin: 4px 0; font-family: Helvetica, Arial, '
                 f'sans-serif; font-size: 14px; color: #222;">',
                 f'<div style="font-weight: bold; color: {colour};">'
                 f'{html.escape(self._headline())}</div>']
        if self.message:
            parts.append('<div style="white-space: pre-wrap; margin-top: 2px;">'
                         f'{html.escape(self.message)}</div>')
        if self.table:
            parts.append(_html_table(self.table))
        if self.picture is not None:
            parts.append(_picture_html(self))
        parts.append("</div>")
        return "\n".join(parts)

    def as_dict(self):
        """The fields the log records."""
        return {"exercise": self.exercise, "ok": self.ok, "diagnosis": self.diagnosis,
                "message": self.message}


def finish(result):
    """Log ``result`` when ``DAGRAD_EXERCISES_LOG`` names a file, and return it."""
    path = os.environ.get(LOG_VARIABLE)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(result.as_dict(), ensure_ascii=False) + "\n")
    return result


def not_answered(exercise, what=None):
    """The result for a blank answer (``None`` or ``...``)."""
    message = NOT_ANSWERED if what is None else f"{NOT_ANSWERED} (Still blank: {what}.)"
    return finish(CheckResult(False, message, "not_answered", exercise))


def is_blank(answer):
    """True for the placeholders an exercise cell starts with: ``None`` and ``...``."""
    return answer is None or answer is Ellipsis


def _text_table(rows):
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(cells[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _html_table(rows):
    head = "".join(f'<th style="text-align: left; padding: 2px 10px 2px 0;">'
                   f'{html.escape(str(c))}</th>' for c in rows[0])
    body = []
    for row in rows[1:]:
        cells = []
        for c in row:
            text = html.escape(str(c))
            if str(c).startswith("✗"):
                text = f'<span style="color: #b71c1c; font-weight: bold;">{text}</span>'
            elif str(c).startswith("✓"):
                text = f'<span style="color: #1b5e20; font-weight: bold;">{text}</span>'
            cells.append(f'<td style="padding: 2px 10px 2px 0; font-family: Menlo, Consolas, '
                         f'monospace;">{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return ('<table style="border-collapse: collapse; margin-top: 6px;">'
            f"<tr>{head}</tr>{''.join(body)}</table>")


def _picture_html(result):
    """The result's picture as inline SVG, or a sentence saying why there is none."""
    try:
        svg = result.svg
    except (RuntimeError, ValueError) as e:     # no `dot`, or a graph too large to draw
        return (f'<div style="color: #555; margin-top: 6px;">(No picture: '
                f'{html.escape(str(e))})</div>')
    if not svg:
        return ""
    return f'<div style="margin-top: 6px; overflow-x: auto;">{svg}</div>'
