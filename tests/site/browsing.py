"""Reading the built site in headless Chromium: a local server, a page that watches for errors
and for requests leaving the site, and the site's pages."""
import contextlib
import functools
import http.server
import pathlib
import re
import threading

from tests.viz.browser import browser_page

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "site"
WIDTH, HEIGHT = 1280, 800
PHONE = (390, 844)               # a phone held upright, in CSS px


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(folder):
    """A local HTTP server for ``folder``; yields its base URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def pages_of(site):
    """Every HTML page of the site but the 404 page, as paths relative to it."""
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html")
                  if p.name != "404.html" and "assets" not in p.parts)


@contextlib.contextmanager
def watched_page(base, width=WIDTH, height=HEIGHT):
    """A browser page that records console errors, script errors, failed requests and every
    request leaving ``base`` (those are blocked: the site must work offline)."""
    with browser_page(width, height) as page:
        problems = []
        page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
        # a request the browser cancels (net::ERR_ABORTED: the favicon of a page left while it
        # loads) is not the site failing; anything else is
        page.on("requestfailed", lambda r: "ERR_ABORTED" not in (r.failure or "")
                and problems.append(f"failed: {r.url} {r.failure}"))

        def outside(route):
            problems.append(f"fetched from elsewhere: {route.request.url}")
            route.abort()
        page.route(re.compile(r"^(?!" + re.escape(base) + r").*"), outside)
        yield page, problems


def open_page(page, url):
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
