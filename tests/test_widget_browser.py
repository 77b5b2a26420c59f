"""The Cmd-K widget in a real browser (Debian's Chromium through Playwright): keyboard use,
answers with citation links, the refusal state, focus handling, CORS embedding and XSS."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin

import httpx
import pytest

from sitecite.config import Settings, load_settings
from sitecite.embed import Embedder
from sitecite.index.build import write_index
from sitecite.pipeline import Engine, answer
from sitecite.serve.server import serve_in_thread
from sitecite.types import Section

pytestmark = pytest.mark.browser

ANSWERABLE = (
    "How did she stop shoppers from getting charged twice when they double-clicked pay?",
    "Which city and country is she based in?",
    "Who was the Head of Data at Quayline Logistics?",
)
UNANSWERABLE = (
    "How old is Noor?",
    "What's the capital of Peru?",
    "Who won the 2018 FIFA World Cup?",
)
DIALOG = "sitecite-palette .dialog"
PANEL = "sitecite-palette .panel"
# Where focus is, through the widget's shadow root: "page:<tag>" outside it, "widget:<...>" inside.
FOCUS = """() => {
  const a = document.activeElement;
  if (a && a.shadowRoot && a.shadowRoot.activeElement) {
    const f = a.shadowRoot.activeElement;
    const where = f.closest(".dialog") ? "dialog:" : "outside:";
    return "widget:" + where + (f.id || f.className || f.tagName);
  }
  return "page:" + (a ? (a.getAttribute("href") || a.tagName) : "none");
}"""


def _settings(**serve: Any) -> Settings:
    values: dict[str, Any] = {"serve.rate_limit_per_minute": 0}
    values.update({f"serve.{key}": value for key, value in serve.items()})
    return load_settings({"direct_answers": "any", **values}, config_file=None, environ={})


class HostSite:
    """Someone else's site on 127.0.0.1 (a real server: Chromium blocks pages it cannot place
    on the network from reaching loopback addresses), serving whatever page a test puts here."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                body = pages.get(self.path.split("?")[0], "<p>not here</p>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.other_origin = f"http://localhost:{self.port}"  # same server, an origin not allowed
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def host_site() -> Iterator[HostSite]:
    site = HostSite()
    yield site
    site.httpd.shutdown()


@pytest.fixture(scope="module")
def server(example_index: Path, engine: Engine, host_site: HostSite) -> Iterator[str]:
    settings = _settings(cors_origins=[host_site.origin])
    with serve_in_thread(example_index, settings, engine) as url:
        yield url


def _first(engine: Engine, candidates: tuple[str, ...], refused: bool) -> str:
    wanted = "refused" if refused else "answered"  # a pointed reply is neither
    for question in candidates:
        if str(answer(engine, question)[0].outcome) == wanted:
            return question
    pytest.skip(f"the pipeline {'answers' if refused else 'refuses'} all of {candidates}")


@pytest.fixture(scope="module")
def answerable(engine: Engine) -> str:
    return _first(engine, ANSWERABLE, refused=False)


@pytest.fixture(scope="module")
def unanswerable(engine: Engine) -> str:
    return _first(engine, UNANSWERABLE, refused=True)


@pytest.fixture(params=["light", "dark"])
def scheme(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def page(chromium: Any, scheme: str) -> Iterator[Any]:
    context = chromium.new_context(color_scheme=scheme, viewport={"width": 1100, "height": 820})
    context.set_default_timeout(20_000)
    new_page = context.new_page()
    yield new_page
    context.close()


def _open_and_ask(page: Any, question: str) -> None:
    from playwright.sync_api import expect

    page.keyboard.press("Control+k")
    expect(page.locator(DIALOG)).to_be_visible()
    page.keyboard.type(question)
    page.keyboard.press("Enter")


def test_palette_answers_with_linked_citations(
    page: Any, server: str, answerable: str, scheme: str, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    held: list[Any] = []
    page.route(f"{server}/api/ask", lambda route: held.append(route))  # held: see the loading state
    page.goto(f"{server}/")
    _open_and_ask(page, answerable)
    expect(page.locator("sitecite-palette .status")).to_contain_text("Searching this site")
    expect(page.locator("sitecite-palette .result")).to_have_attribute("aria-busy", "true")
    assert held, "the widget did not send the question"
    page.screenshot(path=str(artifacts / f"widget-loading-{scheme}.png"))
    held[0].continue_()

    expect(page.locator(PANEL)).to_have_attribute("data-state", "answer")
    expect(page.locator("sitecite-palette .result")).to_have_attribute("aria-busy", "false")
    expected = httpx.post(f"{server}/api/ask", json={"question": answerable}).json()
    markers = page.locator("sitecite-palette .answer a.cite")
    assert markers.count() >= 1
    cited = {c["n"]: urljoin(server + "/", c["url"]) for c in expected["citations"]}
    for n in range(markers.count()):
        marker = markers.nth(n)
        number = int(marker.inner_text().strip("[]"))
        assert marker.evaluate("a => a.href") == cited[number]
        assert marker.get_attribute("aria-label").startswith(f"source {number}: ")
    expect(page.locator("sitecite-palette .sources li")).to_have_count(len(expected["citations"]))
    expect(page.locator("sitecite-palette .score")).to_contain_text(
        "Mean similarity of cited sections"
    )
    page.screenshot(path=str(artifacts / f"widget-answer-{scheme}.png"))

    first = markers.first
    target = first.evaluate("a => a.href")
    first.click()
    page.wait_for_url(target)
    if "#" in target:  # a page's intro is cited as the page itself, without a fragment
        expect(page.locator(":target")).to_have_attribute("id", unquote(target.split("#", 1)[1]))
    expect(page.locator(DIALOG)).to_be_hidden()


def test_palette_refusal_has_its_own_state(
    page: Any, server: str, unanswerable: str, scheme: str, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server}/")
    _open_and_ask(page, unanswerable)
    panel = page.locator(PANEL)
    expect(panel).to_have_attribute("data-state", "refused")
    expect(page.locator("sitecite-palette .state-label")).to_have_text("Not on this site")
    expect(page.locator("sitecite-palette .answer")).to_contain_text("doesn't say")
    expect(page.locator("sitecite-palette .sources")).to_be_hidden()
    expect(page.locator("sitecite-palette .score")).to_be_hidden()
    assert page.locator("sitecite-palette .answer a").count() == 0
    page.screenshot(path=str(artifacts / f"widget-refusal-{scheme}.png"))


@pytest.mark.parametrize("scheme", ["light"])
def test_keyboard_only_focus_is_trapped_and_restored(
    page: Any, server: str, answerable: str
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{server}/")
    dialog = page.get_by_role("dialog", name="Ask a question about this site")
    page.focus("a[href='/how']")
    assert page.evaluate(FOCUS) == "page:/how"

    page.keyboard.press("Control+k")
    expect(dialog).to_be_visible()
    expect(dialog).to_have_attribute("aria-modal", "true")
    expect(page.locator("sitecite-palette .result")).to_have_attribute("aria-live", "polite")
    assert page.evaluate(FOCUS) == "widget:dialog:sc-question"
    expect(page.get_by_role("textbox", name="Ask a question about this site")).to_be_focused()
    page.keyboard.type(answerable)
    page.keyboard.press("Enter")
    expect(page.locator(PANEL)).to_have_attribute("data-state", "answer")
    seen = set()
    for _ in range(12):  # around the whole dialog, more than once: focus never leaves it
        page.keyboard.press("Tab")
        where = page.evaluate(FOCUS)
        assert where.startswith("widget:dialog:"), where
        seen.add(where)
    assert len(seen) >= 4, seen  # input, Ask, Close and at least one citation link
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUS).startswith("widget:dialog:")
    page.focus("sitecite-palette #sc-question")
    page.keyboard.press("Shift+Tab")  # from the first element back to the last
    assert page.evaluate(FOCUS).startswith("widget:dialog:")

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate(FOCUS) == "page:/how", "focus goes back where it was"

    page.keyboard.press("Control+k")
    expect(dialog).to_be_visible()
    page.keyboard.press("Control+k")
    expect(dialog).to_be_hidden()
    page.keyboard.press("Meta+k")  # Cmd-K on a Mac
    expect(dialog).to_be_visible()
    page.keyboard.press("Meta+k")
    expect(dialog).to_be_hidden()
    page.focus("button[data-sitecite-open]")
    page.keyboard.press("Enter")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    assert page.evaluate(FOCUS) == "page:BUTTON"


def _host_page(widget_src: str, endpoint: str, theme: str = "auto") -> str:
    return f"""<!doctype html><html><head><title>Someone's site</title></head><body>
<h1>Someone's own site</h1><p><a href="/contact">Contact</a></p>
<script>window.__pwned = 0;</script>
<script src="{widget_src}" data-endpoint="{endpoint}" data-theme="{theme}" defer></script>
</body></html>"""


EVIL_IMG = '<img src=x onerror="window.__pwned=1">'
EVIL_SCRIPT = "<script>window.__pwned=2</script>"
EVIL_ANSWER = {
    "question": "q",
    "refused": False,
    "score": 0.5,
    "score_label": "mean cosine similarity",
    "generator": "extractive",
    "latency_ms": 1.0,
    "retrieved": [],
    "answer": f"She says {EVIL_SCRIPT} and {EVIL_IMG} [1] and more [2] [3].",
    "citations": [
        {
            "n": 1,
            "id": "a#b",
            "title": f"Title {EVIL_SCRIPT}",
            "heading": f"Heading {EVIL_IMG}",
            "url": "javascript:window.__pwned=3",
            "score": 0.5,
        },
        {
            "n": 2,
            "id": "c#d",
            "title": EVIL_IMG,
            "heading": "",
            "url": "/about#intro",
            "score": 0.5,
        },
        {
            "n": 3,
            "id": "e#f",
            "title": "data",
            "heading": "",
            "url": "data:text/html,<script>x</script>",
            "score": 0.5,
        },
    ],
}


def _widget_markup(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
      const root = document.querySelector("sitecite-palette").shadowRoot;
      return {pwned: window.__pwned || 0,
              elements: root.querySelectorAll("script, img, iframe, object, embed, svg").length,
              jsLinks: [...root.querySelectorAll("a")].filter(a => !/^https?:/.test(a.href)).length,
              answer: root.querySelector(".answer").textContent,
              sources: root.querySelector(".sources").textContent};
    }""")


@pytest.mark.parametrize("scheme", ["dark"])
def test_markup_from_the_server_is_shown_as_text_never_run(
    page: Any, server: str, host_site: HostSite, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    replies = [
        (200, EVIL_ANSWER),
        (
            200,
            {
                **EVIL_ANSWER,
                "refused": True,
                "citations": [],
                "answer": f"No {EVIL_IMG}{EVIL_SCRIPT}",
            },
        ),
        (422, {"error": {"code": "x", "message": f"Bad {EVIL_IMG}"}}),
    ]

    def reply(route: Any) -> None:
        status, body = replies.pop(0)
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))

    endpoint = f"{host_site.origin}/evil/api/ask"  # answered by the test, not by sitecite
    host_site.pages["/evil"] = _host_page(f"{server}/widget.js", endpoint, "dark")
    page.route(endpoint, reply)
    page.goto(f"{host_site.origin}/evil")
    _open_and_ask(page, "anything")
    expect(page.locator(PANEL)).to_have_attribute("data-state", "answer")
    page.wait_for_timeout(300)  # an onerror handler would have fired by now
    shown = _widget_markup(page)
    assert shown["pwned"] == 0 and shown["elements"] == 0 and shown["jsLinks"] == 0
    assert EVIL_SCRIPT in shown["answer"] and EVIL_IMG in shown["answer"]
    assert f"Title {EVIL_SCRIPT} › Heading {EVIL_IMG}" in shown["sources"]
    assert "javascript:window.__pwned=3" in shown["sources"], "an unsafe URL is shown, not linked"
    expect(page.locator("sitecite-palette .answer a.cite")).to_have_count(1)  # only the http(s) one
    page.screenshot(path=str(artifacts / "widget-xss-answer.png"))

    page.locator("sitecite-palette #sc-question").fill("again")
    page.keyboard.press("Enter")
    expect(page.locator(PANEL)).to_have_attribute("data-state", "refused")
    page.locator("sitecite-palette #sc-question").fill("and again")
    page.keyboard.press("Enter")
    expect(page.locator(PANEL)).to_have_attribute("data-state", "error")
    expect(page.locator("sitecite-palette .answer")).to_have_text(f"Bad {EVIL_IMG}")
    page.wait_for_timeout(300)
    shown = _widget_markup(page)
    assert shown["pwned"] == 0 and shown["elements"] == 0


def _evil_sections() -> list[Section]:
    rows = [
        (
            "notes#editor",
            f"Notes {EVIL_IMG}",
            f"Editor {EVIL_SCRIPT}",
            [
                "Noor writes all her code in the Helix text editor "
                "<script>window.__pwned=4</script>.",
                f"She switched to the Helix editor in 2022 {EVIL_IMG} after years of Vim.",
            ],
        ),
        ("notes#garden", "Notes", "Garden", ["Her balcony garden grows basil, mint and lemons."]),
        (
            "notes#bike",
            "Notes",
            "Bike",
            ["She cycles to the coworking space on a blue steel bicycle."],
        ),
        (
            "talks#intro",
            "Talks",
            "",
            ["She speaks about web performance at conferences in Europe."],
        ),
    ]
    return [
        Section(
            section_id,
            section_id.split("#")[0],
            title,
            heading,
            "/" + section_id,
            " ".join(sentences),
            f"hash-{n}",
            tuple(sentences),
        )
        for n, (section_id, title, heading, sentences) in enumerate(rows)
    ]


@pytest.mark.parametrize("scheme", ["light"])
def test_markup_in_indexed_content_is_inert_end_to_end(
    page: Any,
    tmp_path: Path,
    embedder: Embedder,
    settings: Settings,
    host_site: HostSite,
    artifacts: Path,
) -> None:
    from playwright.sync_api import expect

    index = tmp_path / "evil-index"
    write_index(_evil_sections(), index, embedder)
    engine = Engine.load(index, settings)
    question = "Which text editor does Noor write her code in?"
    serve = _settings(cors_origins=[host_site.origin])
    with serve_in_thread(index, serve, engine) as url:
        page.goto(f"{url}/notes")  # the server's own rendering of the indexed page
        expect(page.locator("h1")).to_have_text(f"Notes {EVIL_IMG}")
        assert page.locator("article img, article script").count() == 0
        # the widget on a page without a Content-Security-Policy to hide behind
        host_site.pages["/evil-indexed"] = _host_page(f"{url}/widget.js", f"{url}/api/ask")
        page.goto(f"{host_site.origin}/evil-indexed")
        _open_and_ask(page, question)
        expect(page.locator(PANEL)).to_have_attribute("data-state", "answer")
        page.wait_for_timeout(300)
        shown = _widget_markup(page)
        assert shown["pwned"] == 0 and shown["elements"] == 0
        assert "<script>window.__pwned=4</script>" in shown["answer"]
        assert f"Notes {EVIL_IMG} › Editor {EVIL_SCRIPT}" in shown["sources"]
        page.screenshot(path=str(artifacts / "widget-xss-indexed.png"))
    shutil.rmtree(index, ignore_errors=True)


@pytest.mark.parametrize("scheme", ["light"])
def test_widget_embedded_on_another_site_asks_across_origins(
    page: Any, server: str, host_site: HostSite, answerable: str
) -> None:
    from playwright.sync_api import expect

    host_site.pages["/embedded"] = _host_page(f"{server}/widget.js", f"{server}/api/ask")
    for origin, state in ((host_site.origin, "answer"), (host_site.other_origin, "error")):
        page.goto(f"{origin}/embedded")
        _open_and_ask(page, answerable)
        expect(page.locator(PANEL)).to_have_attribute("data-state", state)
        if state == "answer":
            href = page.locator("sitecite-palette .answer a.cite").first.evaluate("a => a.href")
            assert href.startswith(origin + "/"), (
                "relative section URLs point into the embedding site"
            )
        else:  # that origin is not in serve.cors_origins: the browser keeps the answer from it
            expect(page.locator("sitecite-palette .answer")).to_have_text(
                "Could not reach the answer service."
            )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pages_render_without_errors(page: Any, server: str, scheme: str, artifacts: Path) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    for path in ("/", "/lab", "/about", "/how"):
        page.goto(f"{server}{path}")
        expect(page.locator("sitecite-palette")).to_have_count(1)
    svg = page.get_by_role("img", name="The sitecite pipeline")
    expect(svg).to_be_visible()
    expect(page.locator("table.facts")).to_contain_text("sections")
    expect(page.locator("main")).not_to_contain_text("rate_limit_per_minute")
    page.screenshot(path=str(artifacts / f"how-it-works-{scheme}.png"), full_page=True)
    assert not problems, problems  # including Content-Security-Policy violations
