"""Text into markup: the one escaping rule of every picture and page viz makes.

Every string dagrad did not write itself (a module path, an operation's or ``Function``
subclass's name, a formula from a docstring, a foreign engine's ``_op``, a tensor's name, a
title) is text, never markup, wherever it goes:

* ``text(s)``: into HTML, as page text or an attribute value: ``& < > " '`` as entities;
* ``label(s)``: into a Graphviz label, HTML-like (``<<B>…</B>>``, which dagrad builds from
  such parts only) or plain (a cluster's title): entities as for HTML, so no ``<`` reaches the
  DOT text (the ``graphviz`` package takes any value of the form ``<…>`` for an HTML-like label,
  where ``<TABLE HREF="javascript:…">`` is a link) and no ``"`` ends a DOT string; and every
  backslash doubled, since dot reads ``\\N`` (the node's name), ``\\G``, ``\\l`` ... in labels
  and a trailing ``\\`` would eat the closing quote;
* ``tooltip(lines)``: into a Graphviz tooltip: like ``label``, but dot unescapes a tooltip
  twice (its line breaks, then its ``\\N``), so a backslash is written four times; lines are
  joined by dot's line break;
* ``script_json(obj)``: data inside a ``<script>`` element: JSON with ``< > &`` written as
  ``\\u003c`` ..., so no ``</script>`` or ``<!--`` can end or bend the script;
  ``json_attr(obj)``: JSON in an attribute value.

All of them first make the text printable: control characters (which neither Graphviz's HTML
parser nor an SVG file accepts) are written out as ``\\x07``, lone surrogates (which cannot be
encoded) become U+FFFD. tests/viz/test_markup.py checks each rule on dot's own output,
tests/viz/test_hostile_text.py in Chromium.
"""
import html
import json
import re

_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def printable(s):
    """``str(s)`` with control characters written out (``\\x07``) and lone surrogates as
    U+FFFD."""
    def visible(m):
        c = m.group(0)
        return "\ufffd" if "\ud800" <= c <= "\udfff" else f"\\x{ord(c):02x}"
    return _UNPRINTABLE.sub(visible, str(s))


def text(s):
    """``s`` as text in HTML (an element's content or an attribute's value)."""
    return html.escape(printable(s), quote=True)


def label(s):
    """``s`` as text in a Graphviz label, HTML-like or plain."""
    return text(s).replace("\\", "\\\\")


def tooltip(lines):
    """The lines ``lines`` as one Graphviz tooltip."""
    return DOT_NEWLINE.join(text(line).replace("\\", "\\\\\\\\") for line in lines)


DOT_NEWLINE = "\\n"        # a line break in a DOT string (dot writes it into the SVG tooltip)

_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                  "\u2029": "\\u2029"}


def _json(obj):
    """JSON of ``obj`` with its strings printable (non-ASCII text kept as is)."""
    return json.dumps(_printable_strings(obj), ensure_ascii=False)


def _printable_strings(obj):
    if isinstance(obj, str):
        return printable(obj)
    if isinstance(obj, dict):
        return {_printable_strings(k): _printable_strings(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_printable_strings(v) for v in obj]
    return obj


def script_json(obj):
    """``obj`` as JSON that can stand inside a ``<script>`` element of an HTML page."""
    return re.sub("[<>&\u2028\u2029]", lambda m: _SCRIPT_UNSAFE[m.group(0)], _json(obj))


def json_attr(obj):
    """``obj`` as JSON in an HTML or SVG attribute value (``data-tip="…"``)."""
    return html.escape(_json(obj), quote=True)
