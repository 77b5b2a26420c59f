"""What visitors and owners see, in a real browser (Debian's Chromium through Playwright), on a
desktop and a phone: the widget's three outcomes (an answer, a pointed reply, a refusal) with
their quotes, the lab and the how-it-works page, checked the way a person would check them: no
Markdown markers or HTML entities in visible text, no setting on the public page, the site's
own name and figures. Screenshots go to test-artifacts/display-*.png."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
from conftest import EXAMPLE_QUESTIONS, REPO, shared_data

from sitecite.cli import main
from sitecite.config import Settings, load_settings
from sitecite.embed import Embedder
from sitecite.index.store import load_index
from sitecite.markup import pointer_lead, quote_line, to_html, to_text
from sitecite.pipeline import Engine, answer
from sitecite.serve.pages import site_name
from sitecite.serve.server import serve_in_thread

pytestmark = pytest.mark.browser

DEVICES = {
    "desktop": {"viewport": {"width": 1100, "height": 820}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
PANEL = "sitecite-palette .panel"
# What a reader would take for markup left in the text: emphasis or code markers around a word,
# a Markdown list or heading marker at the start of a line, an HTML character reference.
RAW_MARKUP = re.compile(
    r"(?:^|[\s(])(?:\*{1,3}|_{1,3}|`)\S|\S(?:\*{1,3}|`)(?:$|[\s).,:;])"
    r"|^\s*(?:[-*+]|#{1,6})\s|&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]+);",
    re.IGNORECASE | re.MULTILINE,
)
SHAZOW_CACHE = REPO / ".sitecite" / "test-shazow-index"


def _serve_settings(**serve: Any) -> Settings:
    values: dict[str, Any] = {"serve.rate_limit_per_minute": 0}
    values.update({f"serve.{key}": value for key, value in serve.items()})
    return load_settings(values, config_file=None, environ={})


@pytest.fixture(scope="module")
def site(example_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the example index: this module writes runs and a question log."""
    target = tmp_path_factory.mktemp("display") / "index"
    shutil.copytree(example_index, target)
    return target


@pytest.fixture(scope="module")
def server(site: Path, settings: Settings) -> Iterator[str]:
    with serve_in_thread(site, _serve_settings(), Engine.load(site, settings)) as url:
        yield url


@pytest.fixture(params=list(DEVICES))
def device(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def page(chromium: Any, device: str) -> Iterator[Any]:
    context = chromium.new_context(color_scheme="light", **DEVICES[device])
    context.set_default_timeout(20_000)
    new_page = context.new_page()
    problems: list[str] = []
    new_page.on("pageerror", lambda error: problems.append(str(error)))
    new_page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    yield new_page
    context.close()
    assert not problems, problems  # script errors and Content-Security-Policy violations


def _ask(page: Any, question: str) -> None:
    """Ask through the widget as a visitor does, in a new conversation, and wait for the reply."""
    sequence = page.evaluate(
        """() => { const p = document.querySelector("sitecite-palette");
                   if (p.isOpen) p.newConversation(); else p.open(); return p.sequence; }"""
    )
    page.locator("sitecite-palette #sc-question").fill(question)
    page.keyboard.press("Enter")
    page.wait_for_function(
        """(n) => { const p = document.querySelector("sitecite-palette");
                    return p.sequence > n && !p.pending; }""",
        arg=sequence,
    )


def _visible(page: Any, selector: str) -> str:
    return str(page.locator(selector).inner_text())


def _words(text: str) -> str:
    """The words of an answer as the lab renders it (sitecite.markup.to_html), one line."""
    inline = re.sub(r"</?(?:em|strong|code|a)\b[^>]*>", "", to_html(text))
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def _fits(page: Any) -> None:
    """Nothing on the page is wider than the screen (no sideways scrolling on a phone)."""
    overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"{page.url} is {overflow}px wider than the screen"


def _first(engine: Engine, questions: list[str], outcome: str) -> str:
    for question in questions:
        if str(answer(engine, question)[0].outcome) == outcome:
            return question
    pytest.skip(f"no question of the example set gets outcome {outcome!r}")


def _questions() -> list[str]:
    return [q["question"] for q in json.loads(EXAMPLE_QUESTIONS.read_text())["questions"]]


def test_widget_shows_an_answer_a_pointed_reply_and_a_refusal(
    page: Any, server: str, engine: Engine, device: str, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    questions = _questions()
    page.goto(f"{server}/")
    replies = {
        "answer": _first(engine, questions, "answered"),
        "refused": _first(engine, questions, "refused"),
        "pointed": _first(engine, questions, "pointed"),
    }
    for state in ("answer", "refused"):
        question = replies[state]
        _ask(page, question)
        expect(page.locator(PANEL)).to_have_attribute("data-state", state)
        assert not RAW_MARKUP.search(_visible(page, "sitecite-palette .answer"))
        page.screenshot(path=str(artifacts / f"display-widget-{state}-{device}.png"))

    pointed = httpx.post(f"{server}/api/ask", json={"question": replies["pointed"]}).json()
    _ask(page, replies["pointed"])
    expect(page.locator(PANEL)).to_have_attribute("data-state", "pointed")
    expect(page.locator("sitecite-palette .state-label")).to_have_text("No direct answer")
    expect(page.locator("sitecite-palette .answer")).to_have_text(pointer_lead(pointed["answer"]))
    expect(page.locator("sitecite-palette .sources-label")).to_have_text(
        "Closest sections on this site"
    )
    items = page.locator("sitecite-palette .sources li")
    expect(items).to_have_count(len(pointed["citations"]))
    for n, citation in enumerate(pointed["citations"]):
        item = items.nth(n)
        where = f"{citation['title']} › {citation['heading']}" if citation["heading"] else ""
        expect(item.locator("a.source")).to_have_text(where or citation["title"])
        href = item.locator("a.source").get_attribute("href")
        assert href == urljoin(server + "/", citation["url"])
        expect(item.locator(".line")).to_have_text([quote_line(q) for q in citation["quotes"]])
    background = "p => getComputedStyle(p).backgroundColor"
    pointed_colour = page.locator(PANEL).evaluate(background)
    _ask(page, replies["refused"])
    assert page.locator(PANEL).evaluate(background) != pointed_colour, (
        "a pointed reply does not look like the refusal box"
    )
    _ask(page, replies["pointed"])
    page.screenshot(path=str(artifacts / f"display-widget-pointed-{device}.png"))


def test_a_citations_quote_shows_on_hover_and_keyboard_focus(
    page: Any, server: str, engine: Engine, device: str, artifacts: Path
) -> None:
    """The words a citation rests on: a tooltip the marker is described by, shown on focus (and
    hover), hidden by Escape before the dialog closes, and listed under a source when the
    answer's text does not say them."""
    from playwright.sync_api import expect

    question = _first(engine, _questions(), "answered")
    reply = httpx.post(f"{server}/api/ask", json={"question": question}).json()
    sections = {s.id: s for s in engine.index.sections}
    for citation in reply["citations"]:  # the quotes an LLM answer carries, where none are
        citation["quotes"] = citation["quotes"] or [sections[citation["id"]].sentences[-1]]
    page.route(f"{server}/api/ask", lambda route: route.fulfill(json=reply))
    page.goto(f"{server}/")
    _ask(page, question)
    marker = page.locator("sitecite-palette .answer .cite").first
    tip_id = marker.get_attribute("aria-describedby")
    assert tip_id, "a citation marker is described by its quote"
    tip = page.locator(f"sitecite-palette #{tip_id}")
    expect(tip).to_be_hidden()
    expect(tip).to_have_attribute("role", "tooltip")
    page.keyboard.press("Tab")  # from the question to the Ask button, then into the answer
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(tip).to_be_visible()  # keyboard focus on the first marker shows its quote
    cited = next(c for c in reply["citations"] if f"[{c['n']}]" == marker.inner_text())
    expect(tip).to_contain_text(cited["title"])
    for quote in cited["quotes"]:
        expect(tip).to_contain_text(quote_line(quote))
    page.keyboard.press("Escape")  # the quote goes first, the dialog stays
    expect(tip).to_be_hidden()
    expect(page.locator("sitecite-palette .dialog")).to_be_visible()
    if device == "desktop":
        marker.hover()
        expect(tip).to_be_visible()
    page.screenshot(path=str(artifacts / f"display-widget-quote-{device}.png"))
    answer_text = " ".join(_visible(page, "sitecite-palette .answer").split())
    for n, citation in enumerate(reply["citations"]):
        lines = page.locator("sitecite-palette .sources li").nth(n).locator(".line")
        unsaid = [quote_line(q) for q in citation["quotes"] if quote_line(q) not in answer_text]
        expect(lines).to_have_text(unsaid)


@pytest.mark.parametrize("device", ["desktop"])
def test_no_raw_markup_in_any_answer_of_the_example_set(
    page: Any, server: str, device: str
) -> None:
    """Every question of the example set through the widget: what the visitor reads is the
    answer's text with its Markdown rendered, word for word what the lab shows and (but for
    list numbers) what `sitecite ask` prints."""
    from playwright.sync_api import expect

    page.goto(f"{server}/")
    checked = 0
    for question in _questions():
        reply = httpx.post(f"{server}/api/ask", json={"question": question}).json()
        _ask(page, question)
        expect(page.locator(PANEL)).to_be_visible()
        shown = _visible(page, "sitecite-palette .answer")
        assert not RAW_MARKUP.search(shown), (question, shown)
        assert not RAW_MARKUP.search(_visible(page, "sitecite-palette .panel")), question
        text = pointer_lead(reply["answer"]) if reply["outcome"] == "pointed" else reply["answer"]
        assert " ".join(shown.split()) == _words(text), question
        assert _words(text) == " ".join(to_text(text).split()) or "\n" in text, question
        checked += 1
    assert checked == len(_questions())


@pytest.mark.parametrize("device", ["desktop"])
def test_the_widget_reads_markdown_as_sitecite_ask_does(
    page: Any, server: str, device: str
) -> None:
    """The widget's reader (widget.js) and sitecite.markup agree on every case of the markup
    table, word for word, with no markup left visible."""
    from playwright.sync_api import expect
    from test_markup import CASES

    replies: list[str] = []
    page.route(
        f"{server}/api/ask",
        lambda route: route.fulfill(
            json={"question": "q", "outcome": "answered", "refused": False,
                  "answer": replies[-1], "citations": [], "score": 0.0}
        ),
    )  # fmt: skip
    page.goto(f"{server}/")
    for text, _, _ in CASES:
        replies.append(text)
        _ask(page, f"case {len(replies)}")
        expect(page.locator(PANEL)).to_have_attribute("data-state", "answer")
        shown = _visible(page, "sitecite-palette .answer")
        assert " ".join(shown.split()) == _words(text), text


def test_lab_and_how_share_the_site_header_and_show_its_figures(
    page: Any,
    server: str,
    site: Path,
    engine: Engine,
    device: str,
    artifacts: Path,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    index = load_index(site)
    name = site_name(index)
    page_ids = {json.loads(line)["page_id"] for line in (site / "sections.jsonl").open()}
    figures = f"{len(index.sections)} sections of {len(page_ids)} pages"

    page.goto(f"{server}/")
    nav = [str(link) for link in page.locator("header.top nav a").all_inner_texts()]
    for path in ("/how", "/lab"):
        page.goto(f"{server}{path}")
        assert page.locator("header.top nav a").all_inner_texts() == nav
        expect(page.locator("header.top .brand")).to_have_text(name)
        assert name in page.title() and page.title() != "sitecite"
        expect(page.locator(f'header.top nav a[href="{path}"]')).to_have_attribute(
            "aria-current", "page"
        )

    page.goto(f"{server}/lab")
    if not page.locator("#summary").count():  # the first test on this server: no run yet
        expect(page.locator("#evaluation pre")).to_contain_text("sitecite eval")
        expect(page.locator("#evaluation pre")).to_contain_text("--out")
        _fits(page)
        page.screenshot(path=str(artifacts / f"display-lab-empty-{device}.png"), full_page=True)
        questions = json.loads(EXAMPLE_QUESTIONS.read_text())
        subset = tmp_path / "questions.json"
        chosen = [q for q in questions["questions"] if q["id"] in ("g-01", "g-02", "f-01")]
        chosen += [q for q in questions["questions"] if q["expect"] == "refuse"][:3]
        subset.write_text(json.dumps({**questions, "questions": chosen}))
        out = tmp_path / "results.json"
        assert main(["eval", str(subset), "--index", str(site), "--out", str(out), "--quiet"]) == 0
        httpx.post(f"{server}/api/ask", json={"question": chosen[0]["question"]})
        page.goto(f"{server}/lab")
    expect(page.locator("#summary")).to_be_visible()
    expect(page.locator("#traffic")).to_be_visible()  # the visitors' section, at once
    expect(page.locator(".lab .card", has_text="answered · pointed · refused")).to_be_visible()
    details = page.locator("details.q").first
    details.evaluate("d => { d.open = true; }")
    assert not RAW_MARKUP.search(details.locator(".answer").inner_text())
    _fits(page)
    page.screenshot(path=str(artifacts / f"display-lab-{device}.png"), full_page=True)

    page.goto(f"{server}/how")
    expect(page.get_by_role("img", name="The sitecite pipeline")).to_be_visible()
    expect(page.locator(".figures")).to_have_text(figures)
    expect(page.locator("main")).to_contain_text("The latest evaluation")
    expect(page.locator(".steps")).to_contain_text(f"{engine.threshold:.3f}")
    _fits(page)
    page.screenshot(path=str(artifacts / f"display-how-{device}.png"), full_page=True)


@pytest.mark.parametrize("device", ["desktop"])
def test_how_shows_no_setting(
    page: Any, example_index: Path, engine: Engine, device: str, tmp_path: Path
) -> None:
    """/how is public: none of the owner's settings, by name or value, reaches it."""
    distinctive = {
        "llm.model": "acme-private-model-7",
        "llm.base_url": "https://llm.internal.example/v1",
        "llm.api_key_env": "ACME_PRIVATE_KEY_VAR",
        "serve.cors_origins": ["https://owner-only.example"],
        "serve.allowed_origins": ["https://allowed-only.example"],
        "serve.redis_prefix": "acme-redis-prefix",
        "serve.daily_llm_budget": 4321,
        "serve.rate_limit_per_minute": 0,
    }
    settings = load_settings(distinctive, config_file=None, environ={})
    with serve_in_thread(example_index, settings, engine) as url:
        page.goto(f"{url}/how")
        text = str(page.locator("body").inner_text())
        source = page.content()
    dumped = settings.model_dump()
    keys = [
        f"{group}.{name}" if isinstance(values, dict) else group
        for group, values in dumped.items()
        for name in (values if isinstance(values, dict) else [group])
    ]
    names = [key for key in keys if "." in key or "_" in key]  # unmistakably a setting
    names += [key.split(".")[-1] for key in keys if "_" in key.split(".")[-1]]
    shown = [name for name in names if name in text or name in source]
    assert not shown, f"setting names on /how: {shown}"
    for value in distinctive.values():
        for piece in value if isinstance(value, list) else [value]:
            if piece:
                assert str(piece) not in source, f"setting value on /how: {piece}"
    assert "serve." not in text and "llm." not in text


@pytest.fixture(scope="module")
def shazow_index(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of a real shared site (shazow.net, Hugo) with its live base URL, built once
    (incrementally, so a rerun embeds nothing new) and copied."""
    from sitecite.index.build import build_index

    content = shared_data("sites", "shazow")
    build_index(content, SHAZOW_CACHE, embedder, base_url="https://shazow.net/")
    target = tmp_path_factory.mktemp("shazow") / "index"
    shutil.copytree(SHAZOW_CACHE, target)
    return target


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_real_site_is_titled_and_counted_from_its_index(
    page: Any, shazow_index: Path, settings: Settings, device: str, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    rows = [json.loads(line) for line in (shazow_index / "sections.jsonl").open()]
    pages = len({row["page_id"] for row in rows})
    name = site_name(load_index(shazow_index))
    assert name, "the index names the site (its owner, its root page or its address)"
    with serve_in_thread(
        shazow_index, _serve_settings(), Engine.load(shazow_index, settings)
    ) as url:
        for path in ("/", "/how", "/lab"):
            page.goto(f"{url}{path}")
            assert name in page.title() and "sitecite" not in page.title()
            expect(page.locator("header.top .brand")).to_have_text(name)
        page.goto(f"{url}/")
        expect(page.locator(".figures")).to_contain_text(f"{len(rows)} sections of {pages} pages")
        assert pages > 1
        links = page.locator(".groups a")
        assert links.count() >= pages - 3, "the site's pages are listed, linked to the live site"
        assert all(href.startswith("https://shazow.net/") for href in links.evaluate_all(
            "links => links.map(a => a.href)"
        ))  # fmt: skip
        _fits(page)
        page.screenshot(path=str(artifacts / f"display-real-site-{device}.png"))
        page.goto(f"{url}/how")
        expect(page.locator(".figures")).to_have_text(f"{len(rows)} sections of {pages} pages")
