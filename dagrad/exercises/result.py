"""``CheckResult``: what every check returns, in words a student reads (terminal and Jupyter),
as a ladder of hints: what is wrong and where first, then the rule with the student's own
numbers, and the right value (with the ``why`` that spells out the solution) only on request
(``reveal()``, the button in HTML) or after ``REVEAL_AFTER`` wrong attempts."""
import copy
import html

NOT_ANSWERED = ("Not answered yet: write your answer in the cell above, then run this cell "
                "again.")
REVEAL_AFTER = 3          # the wrong attempt that shows the right value by itself
# verdicts that are not a wrong answer: nothing to hint at, nothing to reveal
QUIET = ("not_answered", "not_set_up")


class CheckResult:
    """The verdict of one check.

    Attributes:
        ok: True when the answer is right.
        hint: what is right, or what is wrong and where (never the right value).
        stronger: the second rung: the rule with the student's own numbers (or None).
        right: the right value in words (shown on reveal), or None.
        why: the reasoning that gives the right value (shown on reveal), or None.
        message: what the student sees now: ``hint``, then ``stronger`` from the second wrong
            attempt, then ``right`` and ``why`` once revealed.
        diagnosis: a short tag for the kind of mistake, or None when right: "not_answered",
            "shape", "value", "transposed", "sign", "factor", "accumulation", "swapped",
            "missing_term", "rows_mixed", "missing_local_derivative", "missing_broadcast_sum",
            "wrong_saved_value", "gradgrad", "choice", "not_an_option", "type", or the name of
            a misconception the exercise lists.
        diagnoses: every part's diagnosis (an exercise with several answers), in order.
        exercise: the exercise id passed to the check (e.g. "08.3"), or None.
        attempt: the number of this wrong attempt at the exercise in this kernel (1, 2, ...),
            None when right or blank.
        table: rows of a table (a list of tuples, the first the header), or None.
        svg: a picture (SVG text) shown in Jupyter under the table, or None; made on first
            use from ``picture(revealed)``, a function (rendering needs Graphviz's ``dot``).
        secrets: texts of the right value that must not be shown before the reveal (tests read
            them); ``yours``: texts of the student's own answer as shown (which may equal
            another part's right value).

    ``bool(result)`` is ``result.ok``; ``str(result)`` is the terminal text, and Jupyter shows
    ``_repr_html_()``: the words "right", "wrong" or "not answered yet" (not only a colour),
    the message, the table, the picture and a "show the right value" button.
    """

    def __init__(self, ok, message, diagnosis=None, exercise=None, table=None, picture=None,
                 *, stronger=None, right=None, why=None, secrets=(), diagnoses=None, yours=()):
        self.ok, self.hint, self.diagnosis = bool(ok), message, diagnosis
        self.exercise, self.table, self.picture = exercise, table, picture
        self.stronger, self.right, self.why = stronger, right, why
        self.secrets = [s for s in secrets if s]
        self.yours = [s for s in yours if s]
        self.diagnoses = list(diagnoses) if diagnoses is not None else [diagnosis]
        self.attempt, self.revealed, self.repeated = None, False, False
        self.parts = None                  # an exercise's check: each part's own verdict
        self._svg = {}
        self._shown_in = None              # the IPython cell that displayed it

    # ------------------------------------------------------------------ the ladder
    @property
    def level(self):
        """1: what and where; 2: the rule with your numbers; 3: the right value and why."""
        if self.revealed:
            return 3
        if self.ok or self.diagnosis in QUIET or not self.attempt:
            return 1
        return 3 if self.attempt >= REVEAL_AFTER else min(self.attempt, 2)

    @property
    def message(self):
        parts = [self.hint]
        if self.ok or self.diagnosis in QUIET:
            return self.hint
        if self.level >= 2 and self.stronger:
            parts.append(self.stronger)
        if self.level >= 3:
            parts += self._revelation()
        elif self.can_reveal:
            parts.append(self._next_step())
        return "\n".join(p for p in parts if p)

    @property
    def can_reveal(self):
        return not self.ok and self.diagnosis not in QUIET and bool(self.right or self.why)

    def _revelation(self):
        lead = []
        if self.attempt and self.attempt >= REVEAL_AFTER and not self.revealed:
            lead.append(f"After {self.attempt} attempts, the right value:")
        return lead + [self.right or "", f"Why: {self.why}" if self.why else ""]

    def _next_step(self):
        ident = f'"{self.exercise}"' if self.exercise else ""
        how = (f"reveal({ident}) or the button shows the right value" if ident else
               "result.reveal() shows the right value")
        again = "" if not self.attempt else \
            f"Attempt {self.attempt}{' (the same answer as before)' if self.repeated else ''}. "
        more = ("; a second attempt gets a stronger hint" if self.level == 1 and self.stronger
                else "")
        return f"({again}Change your answer and check again{more}; {how}.)"

    def reveal(self):
        """This result with the right value and its ``why`` shown (and the picture with every
        gradient)."""
        other = copy.copy(self)
        other.revealed, other._shown_in = True, None
        return other

    # ------------------------------------------------------------------ showing it
    @property
    def svg(self):
        key = self.level >= 3
        if key not in self._svg and self.picture is not None:
            self._svg = dict(self._svg)
            self._svg[key] = self.picture(key)
        return self._svg.get(key)

    def __bool__(self):
        return self.ok

    @property
    def verdict(self):
        """"right", "wrong", "not set up" or "not answered yet"."""
        if self.ok:
            return "right"
        return {"not_answered": "not answered yet", "not_set_up": "not set up"}.get(
            self.diagnosis, "wrong")

    def _headline(self):
        mark = {"right": "✓ right", "wrong": "✗ wrong:", "not set up": "… not set up",
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

    def _ipython_display_(self):
        """Shown once per cell: a check shows itself when it runs (``ladder.show``), so the
        same result as the cell's value, or passed to ``display``, adds nothing."""
        from .ladder import show
        show(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": str(self), "text/html": self._repr_html_()}

    def _repr_html_(self):
        verdict = self.verdict.replace(" ", "-")
        colour = {"right": "#1b5e20", "wrong": "#b71c1c"}.get(self.verdict, "#555555")
        background = {"right": "#e8f5e9", "wrong": "#ffebee"}.get(self.verdict, "#f5f5f5")
        parts = [f'<div class="dagrad-check dagrad-check-{verdict}" '
                 f'style="border-left: 4px solid {colour}; background: {background}; '
                 f'padding: 6px 10px; margin: 4px 0; font-family: Helvetica, Arial, '
                 f'sans-serif; font-size: 14px; color: #222;">',
                 f'<div style="font-weight: bold; color: {colour};">'
                 f'{html.escape(self._headline())}</div>']
        if self.message:
            parts.append('<div class="dagrad-message" style="white-space: pre-wrap; '
                         f'margin-top: 2px;">{html.escape(self.message)}</div>')
        if self.table:
            parts.append(_html_table(self.table))
        if self.picture is not None:
            parts.append(_picture_html(self))
        if self.can_reveal and self.level < 3:
            parts.append(_reveal_button(self))
        parts.append("</div>")
        return "\n".join(parts)

    def as_dict(self):
        """The fields the log records."""
        return {"exercise": self.exercise, "ok": self.ok, "diagnosis": self.diagnosis,
                "diagnoses": self.diagnoses, "message": self.message, "attempt": self.attempt,
                "secrets": [] if self.level >= 3 else self.secrets, "yours": self.yours}


def is_blank(answer):
    """True for the placeholders an exercise cell starts with: ``None`` and ``...``."""
    return answer is None or answer is Ellipsis


def _reveal_button(result):
    """The right value behind a button (HTML ``<details>``: no script, works in every notebook
    front end and on a static page)."""
    body = "\n".join(p for p in result._revelation() if p)
    return ('<details class="dagrad-reveal" style="margin-top: 6px;">'
            '<summary style="cursor: pointer; color: #555;">show the right value</summary>'
            f'<div style="white-space: pre-wrap; margin-top: 2px;">{html.escape(body)}</div>'
            '</details>')


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
