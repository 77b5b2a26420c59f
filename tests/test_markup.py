"""The answer text's light Markdown (sitecite.markup): what a visitor reads of it, as clean text
and as HTML, and how `sitecite ask` prints an answer, a pointed reply and a refusal."""

from __future__ import annotations

import pytest

from sitecite.markup import plain, pointer_lead, quote_line, to_html, to_text
from sitecite.types import Answer, Citation, RefusalReason

CASES = [
    # (answer text, clean text, HTML)
    (
        "On *Uses › Homelab*: a rack [1]",
        "On Uses › Homelab: a rack [1]",
        "<p>On <em>Uses › Homelab</em>: a rack [1]</p>",
    ),
    ("**bold**, __also__ and _em_", "bold, also and em", None),
    ("***both***", "both", "<p><strong><em>both</em></strong></p>"),
    ("`a*b*c` stays", "a*b*c stays", "<p><code>a*b*c</code> stays</p>"),
    ("5*3*2 and snake_case_name", "5*3*2 and snake_case_name", None),  # not emphasis
    ("a * b * c, *unclosed", "a * b * c, *unclosed", None),
    (  # a cron line in the site's text: the page label is the emphasis, not "*/2 ... Cron*"
        "mine looks like 15 */2 * * *. On *Backups › Cron*: more",
        "mine looks like 15 */2 * * *. On Backups › Cron: more",
        "<p>mine looks like 15 */2 * * *. On <em>Backups › Cron</em>: more</p>",
    ),
    ("\\*literal\\*", "*literal*", None),
    ("AT&amp;T&#39;s &mdash; &bogus;", "AT&T's — &bogus;", "<p>AT&amp;T's — &amp;bogus;</p>"),
    ("`&amp;` in code", "&amp; in code", "<p><code>&amp;amp;</code> in code</p>"),
    (
        "Steps:\n1. one\n2. two [1]\nOn *X*: after",
        "Steps:\n1. one\n2. two [1]\nOn X: after",
        "<p>Steps:</p><ol><li>one</li><li>two [1]</li></ol><p>On <em>X</em>: after</p>",
    ),
    (
        "3) third\n4) fourth",
        "3. third\n4. fourth",
        '<ol start="3"><li>third</li><li>fourth</li></ol>',
    ),
    ("- a\n* b\n• c", "• a\n• b\n• c", "<ul><li>a</li><li>b</li><li>c</li></ul>"),
    ("## Title ##\n> quoted *it*", "Title\n    quoted it", None),
    (
        "```py\nx = 1 * 2\n```\nafter",
        "    x = 1 * 2\nafter",
        "<pre><code>x = 1 * 2</code></pre><p>after</p>",
    ),
    ("[site](https://x.example) and [1]", "site (https://x.example) and [1]", None),
    ("[bad](javascript:alert(1))", None, None),
    (
        "<script>alert(1)</script>",
        "<script>alert(1)</script>",
        "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
    ),
]


@pytest.mark.parametrize(("text", "clean", "markup"), CASES)
def test_answer_text_reads_as_clean_text_and_html(
    text: str, clean: str | None, markup: str | None
) -> None:
    if clean is not None:
        assert to_text(text) == clean
    if markup is not None:
        assert to_html(text) == markup
    assert 'href="javascript' not in to_html(text), "only web and relative links are linked"


def test_citation_markers_can_be_linked_and_plain_is_one_line() -> None:
    html = to_html("A *b* [1]\n- c [2]", lambda t: t.replace("[1]", '<a href="#s1">[1]</a>'))
    assert html == '<p>A <em>b</em> <a href="#s1">[1]</a></p><ul><li>c [2]</li></ul>'
    assert plain("On *X*:\n1. a\n2.  b") == "On X: 1. a 2. b"


def _answer(outcome: str) -> Answer:
    quotes = ("Dashboards are now at most 90 seconds behind.",)
    citation = Citation(1, "p#r", "Pipeline", "Results", "/p#r", 0.5, quotes)
    if outcome == "answered":
        return Answer("q", False, f"On *Pipeline › Results*: {quotes[0]} [1]", (citation,), 0.5,
                      "extractive", 1.0, ())  # fmt: skip
    reason = (
        RefusalReason.NO_DIRECT_ANSWER if outcome == "pointed" else RefusalReason.UNKNOWN_ENTITY
    )
    text = (
        "No direct answer on the site. The closest sections: Pipeline › Results [1]."
        if outcome == "pointed"
        else "The site doesn't say."
    )
    cited = (citation,) if outcome == "pointed" else ()
    return Answer("q", True, text, cited, 0.0, "extractive", 1.0, (), str(reason))


def test_terminal_text_of_each_outcome() -> None:
    answered = _answer("answered").to_text()
    assert answered.startswith("On Pipeline › Results: Dashboards") and "*" not in answered
    assert "[1] Pipeline › Results — /p#r" in answered
    assert answered.count("90 seconds") == 1, "a quote the answer already says is not repeated"
    pointed = _answer("pointed").to_text()
    assert (
        "Closest sections:" in pointed
        and "“Dashboards are now at most 90 seconds behind.”" in pointed
    )
    assert "similarity" not in pointed
    assert _answer("refused").to_text() == "The site doesn't say."
    markdown = _answer("answered").to_text(markdown=True)
    assert (
        markdown.startswith("On *Pipeline › Results*:")
        and "1. [Pipeline › Results](/p#r)" in markdown
    )


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("I found none. The closest sections: A › B [1]; C [2].", "I found none."),
        ('It only says it\'s planned. On *X*: "I plan to" [1].', "It only says it's planned."),
        ("Nothing cited here.", "Nothing cited here."),
        ("Closest: A [1]", "Closest: A [1]"),
    ],
)
def test_a_pointed_reply_leads_with_what_it_says_before_its_sections(text: str, lead: str) -> None:
    assert pointer_lead(text) == lead


@pytest.mark.parametrize(
    ("quote", "line"),
    [
        ('"Noor fixed it in her third week.', "Noor fixed it in her third week."),
        ('saved us from two detours."', "saved us from two detours."),
        ('He said "go" and   left.', 'He said "go" and left.'),
    ],
)
def test_a_quoted_line_loses_a_quotation_mark_without_its_pair(quote: str, line: str) -> None:
    assert quote_line(quote) == line
