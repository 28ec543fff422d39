"""Untrusted text is text (viz/markup.py): each hostile payload (tests/viz/hostile.py) as a
module name, a Function's name and formula, a tensor's name, a ``names=`` key, a foreign
value's ``_op`` and label, a player's title and a check's answer key, checked on the DOT
source (as dot parses it), on dot's SVG and on the HTML pages: the payload adds no attribute,
element or link, dot renders it, and a person reads it exactly. The same pages are opened and
clicked in Chromium by test_hostile_text.py."""
import html
import json
import re
import subprocess
from html.parser import HTMLParser

import pytest

from dagrad import viz
from dagrad.exercises import check_grads
from dagrad.viz import markup
from dagrad.viz.render import svg as render_svg

from . import hostile

PAYLOADS = list(hostile.PAYLOADS)
PLAIN = "plain name"


# ------------------------------------------------------------------------------ the rules
def test_text_escapes_html_and_writes_control_characters_out():
    assert markup.text("<a href='x'>&\"") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&quot;"
    assert markup.text("a\x07b\x00\ud800") == "a\\x07b\\x00\ufffd"
    assert markup.text("tab\tand\nline") == "tab\tand\nline"


def test_label_doubles_backslashes_and_tooltip_writes_them_four_times():
    assert markup.label("<x>\\N\\") == "&lt;x&gt;\\\\N\\\\"
    assert markup.tooltip(["a\\n", "<b>"]) == "a\\\\\\\\n\\n&lt;b&gt;"


def test_script_json_cannot_end_or_bend_a_script():
    data = markup.script_json({"k": "</script><!--<script>&\u2028\ud800"})
    assert "<" not in data and ">" not in data and "&" not in data and "\u2028" not in data
    assert json.loads(data) == {"k": "</script><!--<script>&\u2028\ufffd"}


def test_json_attr_round_trips_through_an_attribute():
    value = [[0, 'say "<b>" & \'x\'']]
    assert json.loads(html.unescape(markup.json_attr(value))) == value
    assert '"' not in markup.json_attr(value)


# ------------------------------------------------------------------------- DOT and SVG
def dot_objects(source):
    """What dot parsed from ``source``: per node, edge and cluster, its attribute names, and the
    values of every label and tooltip (dot's ``json0`` output)."""
    done = subprocess.run(["dot", "-Tjson0"], input=source.encode("utf-8"),
                          capture_output=True, check=True)
    parsed = json.loads(done.stdout)
    objects = parsed.get("objects", []) + parsed.get("edges", [])
    shapes = sorted(tuple(sorted(k for k in o if not k.startswith("_"))) for o in objects)
    return shapes, [o.get(k) for o in objects for k in ("label", "tooltip") if k in o]


def svg_texts(svg):
    """The text a person reads in ``svg``: every <text> element and every tooltip."""
    texts = re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)
    titles = re.findall(r'xlink:title="([^"]*)"', svg)
    return [html.unescape(t) for t in texts + titles]


def assert_no_markup_from_text(svg):
    """dagrad sets no link, script or event handler in a picture: any there came from text."""
    elements = Elements(svg)
    assert not elements.links
    assert not [tag for tag, _ in elements.tags if tag in ("script", "img", "iframe",
                                                           "foreignobject")]
    assert not [names for _, names in elements.tags if any(n.startswith("on") for n in names)]


def draw_svg(payload, typed=True):
    """The drawing of ``hostile.graph(payload)``: with ``typed``, clusters are titled
    ``path: class`` (params= given), else by the module path alone."""
    loss, names, model = hostile.graph(payload)
    dot = viz.draw(loss, grads=True, names=names, params=model if typed else None)
    return dot, render_svg(dot)


def cluster_titles(svg):
    return [html.unescape(t) for t in
            re.findall(r'class="cluster">\s*<title>[^<]*</title>.*?<text\b[^>]*>(.*?)</text>',
                       svg, re.S)]


@pytest.mark.parametrize("key", PAYLOADS)
def test_draw_shows_hostile_names_as_text(key):
    payload = hostile.PAYLOADS[key]
    dot, svg = draw_svg(payload)
    plain_dot, _ = draw_svg(PLAIN)
    shapes, _ = dot_objects(dot.source)
    assert shapes == dot_objects(plain_dot.source)[0]      # no attribute added by the text
    assert_no_markup_from_text(svg)
    seen = svg_texts(svg)
    text = hostile.shown(payload)
    assert text in seen                                    # the Function's name, in bold
    assert f"{text}: Linear" in seen                       # the module's cluster title
    assert f"{text} h" in seen                             # the names= key on its edge
    tips = [t for t in seen if t.startswith(f"{text}: y = 3 x {text}")]
    assert tips, "the Function's tooltip shows its name and formula as written"
    assert any(t.startswith(f"Linear (module {text})") for t in seen)
    dot, svg = draw_svg(payload, typed=False)
    assert dot_objects(dot.source)[0] == dot_objects(draw_svg(PLAIN, typed=False)[0].source)[0]
    assert_no_markup_from_text(svg)
    assert cluster_titles(svg) == [text]                  # the module path, as written


@pytest.mark.parametrize("key", PAYLOADS)
def test_foreign_operation_and_labels_are_text(key):
    payload = hostile.PAYLOADS[key]
    dot = viz.draw(hostile.foreign(payload), grads=True)
    svg = render_svg(dot)
    assert_no_markup_from_text(svg)
    text = hostile.shown(payload)
    seen = svg_texts(svg)
    assert text in seen and seen.count(text) >= 2          # the operation and the leaf
    assert dot_objects(dot.source)[0] == dot_objects(
        viz.draw(hostile.foreign(PLAIN), grads=True).source)[0]


# ------------------------------------------------------------------------------ HTML pages
class Elements(HTMLParser):
    """Every start tag of a page with its attribute names, and the scripts' text."""

    def __init__(self, page):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self.links, self._in_script = [], [], [], False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(sorted(name for name, _ in attrs))))
        self.links += [value for name, value in attrs if name.endswith("href") or name == "src"]
        self._in_script = tag == "script"

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)

    def handle_endtag(self, tag):
        self._in_script = False


def same_structure(page, plain_page):
    """The payload's page has exactly the elements, attributes and scripts of the same page
    made with a plain name (only text differs)."""
    hostile_page, plain = Elements(page), Elements(plain_page)
    assert sorted(hostile_page.tags) == sorted(plain.tags)
    assert len(hostile_page.scripts) == len(plain.scripts)
    assert not [link for link in hostile_page.links if not link.startswith("data:image/svg")]


def player_page(payload, quiz):
    loss, names, model = hostile.graph(payload)
    frames = viz.steps(loss, names=names, params=model)
    return viz.player(frames, quiz=quiz, title=payload).page()


@pytest.mark.parametrize("quiz", [False, True], ids=["player", "quiz"])
@pytest.mark.parametrize("key", PAYLOADS)
def test_player_and_quiz_pages_hold_hostile_names_as_text(key, quiz):
    payload = hostile.PAYLOADS[key]
    page = player_page(payload, quiz)
    same_structure(page, player_page(PLAIN, quiz))
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert html.unescape(title) == hostile.shown(payload)
    frames = json.loads(re.search(r"var frames = (.*?);\n", page).group(1))
    assert any(hostile.shown(payload) in f[1] for f in frames)     # frame titles, as text


def draw_page(payload):
    loss, names, model = hostile.graph(payload)
    return viz.draw(loss, grads=True, names=names, params=model).page()


@pytest.mark.parametrize("key", PAYLOADS)
def test_drawing_page_holds_hostile_names_as_text(key):
    same_structure(draw_page(hostile.PAYLOADS[key]), draw_page(PLAIN))


def check_page(payload):
    """check_grads' verdict, as Jupyter shows it, on a wrong answer keyed by ``payload``."""
    loss, names, _ = hostile.graph(payload)
    scaled = names[payload + " h"]
    right = 2 * scaled.detach().numpy()                    # ∂(Σ s²)/∂s = 2s
    return check_grads({payload: -right}, loss, names={payload: scaled})._repr_html_()


@pytest.mark.parametrize("key", PAYLOADS)
def test_check_grads_picture_holds_hostile_keys_as_text(key):
    payload = hostile.PAYLOADS[key]
    page = check_page(payload)
    same_structure(page, check_page(PLAIN))
    svg = page[page.index("<svg"):page.index("</svg>")]
    assert_no_markup_from_text(svg)
    assert f"✗ ∂L/∂{hostile.shown(payload)} wrong" in svg_texts(svg)
