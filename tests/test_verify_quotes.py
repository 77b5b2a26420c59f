"""Quoted replies: a model's quote is found in its source despite the slips of copying and not
despite a changed meaning; a quoted sentence's figures and names must be borne by its quotes,
and the support model weighs the rest against the sentences they stand in; the reply of
either contract is read from what real models return."""

from __future__ import annotations

import json

import pytest
from test_verify import P95_MISS, make_evidence

from sitecite.generate.parse import parse_reply
from sitecite.verify import Cite, QuotedSentence, Verifier, locate
from sitecite.verify.quoted import reversed_comparison

SOURCES = [
    (
        "Rewriting checkout. What I did",
        (
            "I joined the checkout squad as lead engineer for five months, from May to "
            "September 2023.",
            "The first fix was not a rewrite at all.",
            "Every payment attempt now carries an idempotency key derived from the cart, so a "
            "second click can never create a second charge.",
            "The old checkout loaded 1,240 KB of JavaScript — the new one loads 146 KB.",
            'The team called it "the quiet release" because nobody noticed.',
            "We wrote tests for expired cards, 3-D Secure challenges and vanished delivery slots.",
        ),
    ),
    ("About. Where I live", ("She lives in Lisbon, Portugal.", "Her colour scheme is dark.")),
]


@pytest.mark.parametrize(
    ("quote", "slip"),
    [
        ("as lead engineer for five months", "none"),
        ("As Lead Engineer For Five Months", "case"),
        ("lead engineer for five months from May to September, 2023", "punctuation"),
        ("the team called it “the quiet release”", "quote marks"),
        ("loaded 1,240 KB of JavaScript - the new one loads 146 KB", "dash"),
        ("loaded 1240 KB of JavaScript", "digit grouping"),
        ("The first fix was not a rewrite at all", "none"),
        ("so the first fix was not a rewrite", "small word added"),
        ("joined checkout squad as lead engineer", "small word dropped"),
        ("carries an idempotency key ... can never create a second charge", "ellipsis"),
        ("expired cards, 3-D Secure challenges, and vanished delivery slots", "list joined"),
        ("expired cards, 3-D Secure challenges, vanished delivery slots", "list joined"),
        ("Her color scheme is dark", "spelling"),
        ("carry an idempotency key derived from the cart", "word form"),
        ("Rewriting checkout", "title"),
    ],
)
def test_a_quote_is_found_despite_a_copying_slip(quote: str, slip: str) -> None:
    cited = 1 if "colour" in quote or "color" in quote else 0
    located = locate(quote, cited, SOURCES)
    assert located.status == "found", slip
    assert located.found is not None and located.found.position == cited


LINES = [
    (
        "Contact. Where to find me",
        (
            "It is also on the Tor network at:",
            "sitecitexyz.onion",
            "Religion Share",
            "Buddhism 33.19",
            "I have come to crave quiet.The rest followed.",
            "I live in the U.S. now, near the coast.",
            "It's the one I’d pick.",
            "Then it was time to move on.",
            "This is a horrible idea.",
        ),
    )
]


@pytest.mark.parametrize(
    ("quote", "slip"),
    [
        ("also on the Tor network at: sitecitexyz.onion", "across a line break"),
        ("Religion Share Buddhism 33.19", "a table row and its header"),
        ("I have come to crave quiet", "a full stop with no space after it"),
        ("the rest followed", "the sentence after it"),
        ("I live in the US now", "initials without their points"),
        ("It’s the one I'd pick", "apostrophes swapped"),
        ("it was the time to move on", "a small word added beside small words"),
        ("This is horrible idea", "a small word dropped at the edge"),
    ],
)
def test_a_quote_is_found_across_lines_and_odd_punctuation(quote: str, slip: str) -> None:
    assert locate(quote, 0, LINES).status == "found", slip


@pytest.mark.parametrize(
    ("quote", "cited", "status", "why"),
    [
        ("She lives in Lisbon", 0, "elsewhere", "from another source"),
        ("the first fix was a rewrite", 0, "nowhere", "negation dropped"),
        ("the old checkout loaded 1,420 KB", 0, "nowhere", "number changed"),
        ("She lives in Porto, Portugal", 1, "nowhere", "name changed"),
        ("joined the squad as lead engineer", 0, "nowhere", "content word dropped"),
        ("the first fix was always a rewrite", 0, "nowhere", "quantity word added"),
        ("a second click can never create a second refund", 0, "nowhere", "word changed"),
        ("I joined it as the lead of the squad of them all", 0, "nowhere", "too many edits"),
        ("the new one loads 146 KB ... I joined the checkout squad", 0, "nowhere", "out of order"),
        ("She moved to Lisbon in 2021", None, "nowhere", "invented"),
    ],
)
def test_a_quote_that_changes_what_the_source_says_is_not_found(
    quote: str, cited: int | None, status: str, why: str
) -> None:
    assert locate(quote, cited, SOURCES).status == status, why


def test_a_found_quote_is_shown_in_the_sources_own_words() -> None:
    found = locate("the team called it 'the quiet release'", 0, SOURCES).found
    assert found is not None and found.text == 'The team called it "the quiet release'
    joined = locate("carries an idempotency key ... never create a second charge", 0, SOURCES)
    assert joined.found is not None and " … " in joined.found.text
    assert "ellipsis" in joined.found.slips and joined.found.sentences == (2,)


@pytest.fixture(scope="module")
def evidence(embedder):
    return make_evidence(embedder)  # tests/test_verify.py's four hand-made sections


def sentence(text: str, *cites: tuple[int | None, str]) -> QuotedSentence:
    return QuotedSentence(text, tuple(Cite(n, q) for n, q in cites))


def verdict(evidence, quoted: QuotedSentence):
    return Verifier().verify_quoted([quoted], evidence).sentences[0]


@pytest.mark.parametrize(
    "quoted",
    [
        pytest.param(
            sentence(
                "Search results came back in 86 ms at the 95th percentile, down from 1,240 ms.",
                (1, "search results came back in 86 ms at p95, down from 1240 ms"),
            ),
            marks=pytest.mark.xfail(strict=True, reason=P95_MISS),
        ),
        sentence(
            "Searches that found nothing fell from 18.4% to 3.1%.",
            (1, "Searches with no results fell from 18.4% to 3.1%"),
        ),
        sentence("Noor works remotely from Lisbon.", (2, "I work remotely from Lisbon")),
        sentence(
            "At Bramble Books the old search could not handle typos.",  # the title's name
            (1, "The old search could not handle typos"),
        ),
        sentence(
            "She keeps a four-day week and reviews accessibility against WCAG 2.2 AA.",
            (2, "keep a four-day week: Monday to Thursday"),
            (2, "Accessibility is reviewed against WCAG 2.2 AA"),
        ),
        sentence("Her backups go to Backblaze B2.", (None, "Backups go to Backblaze B2")),
        sentence("The site doesn't say which database she prefers."),
    ],
)
def test_a_faithful_quoted_sentence_is_kept(evidence, quoted: QuotedSentence) -> None:
    result = verdict(evidence, quoted)
    assert result.ok, result.problems


@pytest.mark.parametrize(
    ("kind", "quoted", "check"),
    [
        (
            "a world knowledge",
            sentence(
                "Bramble Books is owned by Waterstones.", (1, "Search results came back in 86 ms")
            ),
            "names",
        ),
        (
            "b wrong number",
            sentence("Search results came back in 90 ms.", (1, "came back in 86 ms at p95")),
            "numbers",
        ),
        (
            "c entity swapped",
            sentence(
                "Orders from Hebrew-language sessions grew to 8% of all orders.",
                (4, "orders from Arabic-language sessions grew to 8% of all orders"),
            ),
            "names",
        ),
        (
            "d motive invented",
            sentence(
                "She works remotely from Lisbon because she wanted to spend more time with her "
                "family.",
                (2, "I work remotely from Lisbon"),
            ),
            "polarity",
        ),
        (
            "e wrong source",
            sentence("She works remotely from Lisbon.", (1, "I work remotely from Lisbon")),
            "citations",
        ),
        (
            "f detail blended in",
            sentence(
                "Searches with no results fell from 18.4% to 3.1% after a move to Elasticsearch.",
                (1, "Searches with no results fell from 18.4% to 3.1%"),
            ),
            "names",
        ),
        (
            "g polarity flipped",
            sentence(
                "The old search could handle typos.", (1, "The old search could not handle typos")
            ),
            "polarity",
        ),
        (
            "h unsupported quantity",
            sentence("She always works remotely from Lisbon.", (2, "I work remotely from Lisbon")),
            "polarity",
        ),
        (
            "i fabricated quote",
            sentence(
                "Search results came back in 40 ms.", (1, "search results came back in 40 ms")
            ),
            "quotes",
        ),
        (
            "b a figure of its section that its quotes do not hold",
            sentence(
                "Search results came back in 86 ms, down from 1,240 ms.",
                (1, "Search results came back in 86 ms"),
            ),
            "numbers",
        ),
        ("no citation", sentence("She works remotely from Lisbon."), "citations"),
        (
            "source outside the context",
            sentence("She works remotely from Lisbon.", (9, "I work remotely from Lisbon")),
            "citations",
        ),
    ],
)
def test_each_kind_of_unsupported_quoted_sentence_is_caught(
    evidence, kind: str, quoted: QuotedSentence, check: str
) -> None:
    result = verdict(evidence, quoted)
    assert check in result.problems, (kind, result.problems)


@pytest.mark.parametrize(
    ("claim", "turned"),
    [
        ("He found R faster than Stata at reading large datasets.", True),
        ("He found Stata faster than R at reading large datasets.", False),
        ("Stata reads large datasets faster.", False),
    ],
)
def test_a_comparison_turned_round_is_found(claim: str, turned: bool) -> None:
    quote = "Stata is much faster at reading and processing large datasets"
    assert bool(reversed_comparison(claim, [quote])) is turned


def test_the_verified_quotes_follow_the_citations_they_back(evidence) -> None:
    result = Verifier().verify_quoted(
        [
            sentence("Noor works remotely from Lisbon.", (2, "i work remotely from lisbon")),
            sentence("Search results came back in 90 ms.", (1, "came back in 86 ms")),
            sentence("Her backups go to Backblaze B2.", (3, "Backups go to Backblaze B2")),
        ],
        evidence,
    )
    assert [v.ok for v in result.sentences] == [True, False, True]
    assert result.text == (
        "Noor works remotely from Lisbon [1]. Her backups go to Backblaze B2 [2]."
    )
    assert result.cited == (1, 2)
    assert result.quotes == (("I work remotely from Lisbon",), ("Backups go to Backblaze B2",))
    checks = {c.name: c for c in result.checks}
    assert checks["verify_numbers"].passed is False and checks["verify_quotes"].passed


QUOTED = {
    "sentences": [
        {"text": "She moved to Lisbon in 2021.", "cites": [{"source": 2, "quote": "moved"}]}
    ],
    "not_on_site": False,
}


@pytest.mark.parametrize(
    ("raw", "unread"),
    [
        (json.dumps(QUOTED), ""),
        (f"```json\n{json.dumps(QUOTED)}\n```", "code fence"),
        (f"{json.dumps(QUOTED)}\n// quotes copied from source 2", "text after"),
        (json.dumps(QUOTED).replace("false}", "false, // none\n}"), "malformed"),
        (json.dumps(QUOTED).replace("}]}]", "},]},]"), "malformed"),  # trailing commas
        (
            json.dumps(QUOTED).replace('[{"source": 2, "quote": "moved"}]', '"moved"'),
            "'cites' is a string",
        ),
        (
            json.dumps(QUOTED).replace('"quote": "moved"', '"quote": ["moved"]'),
            "",
        ),
        (json.dumps(QUOTED).replace('"source": 2', '"source": "[2]"'), ""),
    ],
)
def test_a_quoted_reply_is_read_from_what_models_return(raw: str, unread: str) -> None:
    reply = parse_reply(raw)
    assert reply is not None and reply.quoted and reply.sentences
    first = reply.sentences[0]
    assert first.text == "She moved to Lisbon in 2021." and first.cites[0].quote == "moved"
    if unread:
        assert any(unread in note for note in reply.unread), reply.unread
    else:
        assert not reply.unread
    if "'cites' is a string" not in unread:
        assert first.cites[0].source == 2 and reply.answer == "She moved to Lisbon in 2021 [2]."


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"sentences": [], "not_on_site": true}', "not_on_site"),
        ('{"sentences": [], "not_on_site": "true"}', "not_on_site"),
        ('{"not_on_site": true}', "not_on_site"),
        (
            '{"sentences": [{"text": "The site does not say.", "cites": []}], "not_on_site": true}',
            "not_on_site",
        ),
        ('{"sentences": ["She moved in 2021 [2]."], "not_on_site": false}', "markers"),
        (
            '{"sentences": [{"text": "She said "hi" to all.", "cites": [{"source": 1, '
            '"quote": "said "hi" to all"}]}], "not_on_site": false}',
            "inner quotes",
        ),
        (
            '{"sentences": [{"text": "She moved.", "cites": [{"source": 1, "quote": "moved to',
            "cut off",
        ),
        ('{"sentences": [{"cites": []}, 3, null]}', None),
        ('{"answer": "Lumen has 62 components [1].", "citations": [1]}', "unquoted"),
        ("I cannot help with that.", None),
    ],
)
def test_replies_of_every_shape(raw: str, expected: str | None) -> None:
    reply = parse_reply(raw)
    if expected is None:
        assert reply is None
        return
    assert reply is not None
    if expected == "not_on_site":
        assert reply.quoted and reply.not_on_site
    elif expected == "markers":
        assert reply.sentences and reply.sentences[0].cites[0].source == 2
        assert reply.sentences[0].text == "She moved in 2021." and reply.unread
    elif expected == "inner quotes":
        assert reply.sentences and reply.sentences[0].cites[0].quote == 'said "hi" to all'
    elif expected == "cut off":
        assert reply.sentences and "malformed JSON (repaired)" in reply.unread
    else:
        assert not reply.quoted and reply.citations == (1,) and not reply.not_on_site
