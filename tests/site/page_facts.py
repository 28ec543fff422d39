"""What a reader's browser finds on the site's pages, read in one visit per page and viewport:
the tests of test_pages.py and test_reading.py assert on these facts (tests/site/conftest.py
reads them once per test run and shares them between the workers), so a page is loaded once at
1280 x 800 and once on a phone, however many tests look at it.

A page's facts: {phase: {"value": what was read, "problems": [...]}}, where the problems are
the console errors, script errors, failed requests and requests leaving the site that happened
during that phase (browsing.watched_page), and the error that stopped it, if one did. The
phases run in this order, those that only read before those that step and answer:

- at 1280 x 800, every page: ``load`` (the sideways scroll too), ``buttons``, ``download``,
  ``readme`` (the home page), ``screenshot`` (three pages), ``players`` (each player stepped
  forward and back), ``zoom`` (each player stepped through every frame with its slider, where
  its zoom buttons are), ``quiz`` (each quiz player's first question answered wrongly, then
  shown);
- on a phone, the home page and each lesson page with a picture: ``load``, ``controls``,
  ``labels``, ``graph_images`` (the home page), ``screenshot`` (lesson 02, the home page),
  ``zoom``.
"""
from tests.viz.quiz_reader import answer_first_question

from .browsing import PHONE, SHOTS, open_page, pages_of, watched_page

SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"

# Each player stepped forward and back: [before, after, back], before and after as
# [counter, title].
PLAYERS_STEP = """() => Array.from(document.querySelectorAll(".vz-player")).map(p => {
    const count = p.querySelector(".vz-count"), title = p.querySelector(".vz-title");
    const before = [count.textContent, title.textContent];
    p.querySelector(".vz-next").click();
    const after = [count.textContent, title.textContent];
    p.querySelector(".vz-prev").click();
    return [before, after, count.textContent];
  })"""
# The pictures' buttons: does each have a border or a background (Material resets both)?
BUTTONS = """() => Array.from(document.querySelectorAll(".vz-viewer button")).map(b => {
    const s = getComputedStyle(b), seen = c => !/^rgba\\(.*,\\s*0\\)$/.test(c);
    return {text: b.textContent.trim(),
            border: parseFloat(s.borderTopWidth) > 0 && s.borderTopStyle !== "none"
                    && seen(s.borderTopColor),
            background: seen(s.backgroundColor)};
  })"""
# The notebook's download link: how many, whether shown, where, its text, address and download
# name, and the lesson's width against its page's column (the link above it takes none of it).
DOWNLOAD = """() => {
    const links = document.querySelectorAll("a.dg-download"), link = links[0];
    const notebook = document.querySelector(".jp-Notebook");
    const column = document.querySelector("article.md-content__inner");
    if (!link) return {count: 0};
    const box = link.getBoundingClientRect(), style = getComputedStyle(link);
    return {count: links.length, text: link.innerText, href: link.getAttribute("href"),
            download: link.getAttribute("download"),
            visible: box.width > 0 && box.height > 0 && style.visibility !== "hidden",
            bottom: box.bottom + window.scrollY,
            width: notebook && column ? notebook.getBoundingClientRect().width
                                        / column.getBoundingClientRect().width : null};
  }"""
# Each player's controls: the middles (in height) of its buttons and of its counter, the
# buttons' heights, the slider's width against the row's, and the zoom buttons' middles.
CONTROLS = """() => Array.from(document.querySelectorAll(".vz-player")).map(p => {
    const row = p.querySelector(".vz-controls"), rect = e => e.getBoundingClientRect();
    const middle = e => rect(e).top + rect(e).height / 2;
    const buttons = Array.from(row.querySelectorAll("button"));
    return {middles: buttons.concat([row.querySelector(".vz-count")]).map(middle),
            heights: buttons.map(b => rect(b).height),
            slider: rect(row.querySelector(".vz-slider")).width, row: row.clientWidth,
            zoom: Array.from(p.querySelectorAll(".vz-zoom button")).map(middle)};
  })"""
# Each picture: its smallest label in CSS px as shown, and whether it scrolls inside its box.
LABELS = """() => Array.from(document.querySelectorAll(".vz-viewer")).map(v => {
    const view = v.querySelector(".vz-view");
    const sizes = Array.from(view.querySelectorAll("svg text")).map(
      t => parseFloat(t.getAttribute("font-size")) * t.getScreenCTM().a);
    return {smallest: Math.min(...sizes),
            scrolls: view.scrollWidth > view.clientWidth + 1
                     || view.scrollHeight > view.clientHeight + 1};
  })"""
# The images of graphs (the home page's): shown width, and whether their paragraph scrolls.
GRAPH_IMAGES = """() => Array.from(document.querySelectorAll("img[src$='.svg']")).map(i => ({
    src: i.getAttribute("src"), width: i.getBoundingClientRect().width,
    scrolls: i.parentElement.scrollWidth > i.parentElement.clientWidth + 1}))"""
# Step each player through every frame with its slider: where its zoom buttons are, per frame.
ZOOM_ROW_PER_FRAME = """() => Array.from(document.querySelectorAll(".vz-player")).map(p => {
    const slider = p.querySelector(".vz-slider"), zoom = p.querySelector(".vz-zoom");
    const tops = [];
    for (let i = 0; i <= +slider.max; i++) {
      slider.value = i; slider.dispatchEvent(new Event("input"));
      tops.push(zoom.getBoundingClientRect().top - p.getBoundingClientRect().top);
    }
    slider.value = 0; slider.dispatchEvent(new Event("input"));
    return tops;
  })"""

# The screenshots kept in test-artifacts/site/: {page: file name} at each size.
WIDE_SHOTS = {"index.html": "home.png", "lessons/index.html": "lesson_map.png",
              "lessons/02_backpropagation.html": "lesson_02.png"}
PHONE_SHOTS = {"index.html": "phone_home_graph.png",
               "lessons/02_backpropagation.html": "phone_lesson_02_player.png"}


def phase(problems, read):
    """{"value": read(), "problems": what went wrong meanwhile}: an error that stops ``read``
    is one of its problems (the test of that phase reports it; the other phases still run)."""
    problems.clear()
    try:
        value = read()
    except Exception as e:          # noqa: BLE001 (Playwright's errors, a failed assert, ...)
        return {"value": None, "problems": list(problems) + [f"{type(e).__name__}: {e}"]}
    return {"value": value, "problems": list(problems)}


def loaded(page, problems, url):
    """The ``load`` phase: the page opened, and how far it scrolls sideways."""
    def load():
        open_page(page, url)
        return {"sideways": page.evaluate(SIDEWAYS)}
    return phase(problems, load)


def readme_block(page):
    """The home page's block of commands that holds ``make demo``: its text and its box."""
    block = page.locator("pre", has_text="make demo").first
    return {"text": block.inner_text(), "box": block.bounding_box()}


def wide_screenshot(page, rel):
    """Lesson 02 is shot with its first player in view, the others from their top."""
    if rel == "lessons/02_backpropagation.html":
        page.locator(".vz-player").first.scroll_into_view_if_needed()
        # the header swaps the site's name for the page's title once scrolled: shoot after
        # that, not halfway through it
        page.wait_for_selector(".md-header__title--active")
        page.wait_for_function("() => document.getAnimations().every("
                               "a => a.playState !== 'running')")
    page.screenshot(path=str(SHOTS / WIDE_SHOTS[rel]))
    return WIDE_SHOTS[rel]


def answer_quizzes(page):
    """[(feedback to a wrong value, feedback after "show")] of each quiz player's first
    question (tests/viz/quiz_reader.py)."""
    quizzes = page.locator(".vz-player:has(.vz-quiz)")
    return [answer_first_question(quizzes.nth(k)) for k in range(quizzes.count())]


def read_wide(site, served):
    """{page: facts} of every page at 1280 x 800."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = {}
    with watched_page(served) as (page, problems):
        for rel in pages_of(site):
            facts = pages[rel] = {"load": loaded(page, problems, served + rel)}
            facts["buttons"] = phase(problems, lambda: page.evaluate(BUTTONS))
            facts["download"] = phase(problems, lambda: page.evaluate(DOWNLOAD))
            if rel == "index.html":
                facts["readme"] = phase(problems, lambda: readme_block(page))
            if rel in WIDE_SHOTS:
                facts["screenshot"] = phase(problems, lambda: wide_screenshot(page, rel))
            facts["players"] = phase(problems, lambda: page.evaluate(PLAYERS_STEP))
            facts["zoom"] = phase(problems, lambda: page.evaluate(ZOOM_ROW_PER_FRAME))
            facts["quiz"] = phase(problems, lambda: answer_quizzes(page))
    return pages


def phone_screenshot(page, rel):
    """Lesson 02 with its first player's controls in view, the home page at its first graph."""
    if rel == "index.html":
        page.locator("img[src$='.svg']").first.scroll_into_view_if_needed()
    else:
        page.locator(".vz-player .vz-controls").first.scroll_into_view_if_needed()
        page.evaluate("() => window.scrollBy(0, -100)")     # below the page's header
    page.screenshot(path=str(SHOTS / PHONE_SHOTS[rel]))
    return PHONE_SHOTS[rel]


def read_phone(site, served):
    """{page: facts} of the home page and of each lesson page with a picture, on a phone."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    lessons = sorted(rel for rel in pages_of(site) if rel.startswith("lessons/")
                     and "vz-viewer" in (site / rel).read_text(encoding="utf-8"))
    pages = {}
    with watched_page(served, *PHONE) as (page, problems):
        for rel in lessons + ["index.html"]:
            facts = pages[rel] = {"load": loaded(page, problems, served + rel)}
            if rel == "index.html":
                facts["graph_images"] = phase(problems, lambda: page.evaluate(GRAPH_IMAGES))
            else:
                facts["controls"] = phase(problems, lambda: page.evaluate(CONTROLS))
                facts["labels"] = phase(problems, lambda: page.evaluate(LABELS))
            if rel in PHONE_SHOTS:
                facts["screenshot"] = phase(problems, lambda: phone_screenshot(page, rel))
            facts["zoom"] = phase(problems, lambda: page.evaluate(ZOOM_ROW_PER_FRAME))
    return pages


def trouble(pages, name, only=None):
    """{page: problems} of phase ``name`` on each page that has it (those of ``only`` if
    given) and had problems."""
    return {rel: facts[name]["problems"] for rel, facts in pages.items()
            if name in facts and facts[name]["problems"] and (only is None or rel in only)}
