"""The owner's loop in Chromium: a visitor asks in the widget, gives a thumbs down with a
reason using only the keyboard, asks a follow-up that only makes sense after the first
answer and gets the right answer; then /lab shows both questions, the feedback and a content
gap group (screenshot in test-artifacts/)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitecite.config import load_settings
from sitecite.pipeline import Engine
from sitecite.serve.server import serve_in_thread

pytestmark = pytest.mark.browser

FIRST = "How did she stop shoppers from getting charged twice when they double-clicked pay?"
FOLLOW_UP = "What does that company sell?"
FOCUSED = """() => {
  const root = document.querySelector("sitecite-palette").shadowRoot;
  const f = root.activeElement;
  return f ? (f.getAttribute("data-rating") || f.value || f.id || f.className) : "";
}"""


@pytest.fixture(scope="module")
def server(
    example_index: Path, engine: Engine, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    index = tmp_path_factory.mktemp("loop") / "index"
    shutil.copytree(example_index, index)  # a question log of its own
    settings = load_settings(
        {"serve.rate_limit_per_minute": 0, "direct_answers": "any"}, config_file=None, environ={}
    )
    with serve_in_thread(index, settings, engine) as url:
        yield url


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def _tab_to(page: Any, target: str, limit: int = 25) -> None:
    for _ in range(limit):
        if page.evaluate(FOCUSED) == target:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target!r}")


def test_ask_rate_follow_up_then_the_lab_shows_it_all(
    page: Any, server: str, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    widget = "sitecite-palette"
    page.goto(f"{server}/")
    page.keyboard.press("Control+k")
    starters = page.locator(f"{widget} .starter")
    expect(starters.first).to_be_visible()  # starter questions in the empty palette
    page.screenshot(path=str(artifacts / "widget-starters.png"))

    page.keyboard.type(FIRST)
    page.keyboard.press("Enter")
    expect(page.locator(f"{widget} .panel")).to_have_attribute("data-state", "answer")
    expect(starters.first).to_be_hidden()

    _tab_to(page, "down")  # the "Not helpful" button, reached by keyboard
    page.keyboard.press("Enter")
    expect(page.locator(f"{widget} fieldset.reasons")).to_be_visible()
    assert page.evaluate(FOCUSED) == "wrong", "focus moves to the first reason"
    page.keyboard.press("ArrowDown")  # the radio group: "Not what I asked"
    assert page.evaluate(FOCUSED) == "not_what_i_asked"
    page.keyboard.press("Tab")
    page.keyboard.type("I wanted the payment provider")
    page.keyboard.press("Enter")
    expect(page.locator(f"{widget} .feedback-status")).to_have_text(
        "Thank you: your feedback was recorded."
    )
    expect(page.locator(f"{widget} .thumb[data-rating=down]")).to_have_attribute(
        "aria-pressed", "true"
    )
    page.screenshot(path=str(artifacts / "widget-feedback.png"))

    page.focus(f"{widget} #sc-question")
    page.keyboard.press("Control+a")
    page.keyboard.type(FOLLOW_UP)
    page.keyboard.press("Enter")
    expect(page.locator(f"{widget} .panel")).to_have_attribute("data-state", "answer")
    expect(page.locator(f"{widget} .answer")).to_contain_text("furniture")
    expect(page.locator(f"{widget} .transcript li")).to_have_count(1)
    expect(page.locator(f"{widget} .transcript")).to_contain_text(FIRST)
    sources = page.locator(f"{widget} .sources a")
    assert all("checkout-rewrite" in (sources.nth(i).get_attribute("href") or "")
               for i in range(sources.count()))  # fmt: skip
    page.screenshot(path=str(artifacts / "widget-follow-up.png"))
    page.locator(f"{widget} .new-chat").click()
    expect(page.locator(f"{widget} .transcript li")).to_have_count(0)
    expect(starters.first).to_be_visible()

    page.goto(f"{server}/lab")
    traffic = page.locator("#traffic")
    expect(traffic).to_contain_text(FIRST)
    expect(page.locator("table.recent")).to_contain_text(FOLLOW_UP)
    expect(page.locator("table.recent")).to_contain_text("follow-up, read as")
    feedback = page.locator("table.feedback")
    expect(feedback).to_contain_text("not what I asked")
    expect(feedback).to_contain_text("I wanted the payment provider")
    gaps = page.locator("table.gaps tr.gap")
    expect(gaps.first).to_contain_text(FIRST)  # the thumbs-down answer is a content gap
    expect(page.get_by_role("img", name="questions per day over 1 days")).to_be_visible()
    page.locator("#gaps").scroll_into_view_if_needed()
    page.locator("#traffic").screenshot(path=str(artifacts / "lab-gaps.png"))
