"""The language rules verification rests on, one module each: the tokenizer (words and names),
figures (numbers, units, money, dates, changes) and stance (negation, quantity, cause)."""

from __future__ import annotations

import pytest

from sitecite.facts import changes, facts, holds, reversed_change
from sitecite.polarity import conflict, stance
from sitecite.tokens import content_stems, names, tokenize, words
from sitecite.verify import meta_clauses


def figures(text: str) -> list[tuple[str, str]]:
    return [f.key for f in facts(text) if not f.weak]


def test_product_names_stay_whole_and_are_names_wherever_they_stand() -> None:
    text = "Next.js and Node.js run on .NET; iCloud, GPT-4o and Backblaze B2 too."
    assert [t.text for t in tokenize(text)][:5] == ["Next.js", "and", "Node.js", "run", "on"]
    assert [n.text for n in names(text)] == [
        "Next.js",
        "Node.js",
        ".NET",
        "iCloud",
        "GPT-4o",
        "Backblaze",
        "B2",
    ]
    assert words("Her site's .is domain") == ["her", "site's", ".is", "domain"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Eventually she moved to Lisbon.", ["Lisbon"]),  # a capital opening a sentence is no name
        ("Idempotency keys are stored. Stripe keeps them.", []),
        ("Apache Kafka sits in the middle.", ["Apache", "Kafka"]),  # unless a name follows
        ("Languages: Arabic (native).", ["Arabic"]),  # after a colon it is a name
        ('The talk "Field data first" is long.', []),  # a quoted title opens like a sentence
        ("In 2021 The Harbour Ledger hired her.", ["Harbour", "Ledger"]),
    ],
)
def test_names_by_evidence(text: str, expected: list[str]) -> None:
    assert [n.text for n in names(text)] == expected


def test_content_words_leave_out_function_words_numbers_and_negations() -> None:
    assert content_stems("She never ran 3 half-day workshops without help") == {
        "ran",
        "half-day",
        "half",
        "day",
        "workshop",
        "help",
    }


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("1,240 ms", "1240 milliseconds"),
        ("$5 a month", "$5/month"),
        ("he was 24", "a 24-year-old"),
        ("in her third week", "in week three"),
        ("on 20 November 2024", "2024-11-20"),
        ("three years there", "from 2018 to 2021"),
        ("at the 75th percentile", "at p75"),
        ("40,000 pallets", "40k pallets"),
        ("sixty-two components", "62 components"),
        ("45 minutes", "a 45-minute call"),
    ],
)
def test_figures_are_read_the_same_way_on_both_sides(claim: str, source: str) -> None:
    assert figures(claim)
    assert all(holds(f, facts(source)) for f in facts(claim) if not f.weak), (
        facts(claim),
        facts(source),
    )


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("98%", "98.1%"),
        ("86 s", "86 ms"),
        ("WCAG 2", "WCAG 2.2"),
        ("over two seconds", "over a second"),
        ("in February", "in 2 weeks"),
        ("4 days a week", "3 days a week"),
    ],
)
def test_different_figures_never_match(claim: str, source: str) -> None:
    assert not all(holds(f, facts(source)) for f in facts(claim) if not f.weak)


def test_backblaze_b2_holds_no_figure() -> None:
    assert figures("Backups go to Backblaze B2 with GPT-4o") == []


def test_changes_are_read_in_their_direction() -> None:
    pairs = [
        "from 4.1 s to 1.3 s",
        "before was 4.1 s and after was 1.3 s",
        "1.3 s, down from 4.1 s",
        "fell to 1.3 s from 4.1 s",
    ]
    for text in pairs:
        assert [(a.value, b.value) for a, b in changes(text)] == [("4.1", "1.3")], text
    assert reversed_change("rose from 1.3 s to 4.1 s", pairs[:1])
    assert not reversed_change("fell from 4.1 s to 1.3 s", pairs[1:2])


@pytest.mark.parametrize(
    ("claim", "source", "kind"),
    [
        ("The old search could handle typos.", "It could not handle typos.", "affirms"),
        ("She does not do on-site visits.", "Remote-first, with on-site visits.", "denies"),
        (
            "It breaks the build instead of falling back to English.",
            "It falls back to English instead of breaking the build.",
            "swaps",
        ),
        ("It is not true that she went independent in 2021.", "She went independent.", "denies"),
        ("She always uses it in portrait.", "It is mostly used in portrait.", "universal"),
        ("She always talks clients out of it.", "She almost always talks them out of it.", ""),
        ("Almost all exceptions are cleaned up.", "About 70% of exceptions are cleaned up.", ""),
        (
            "All fourteen apps use it.",
            "Eleven of the fourteen apps use it for all new screens.",
            "",
        ),
        (
            "It was the largest cause of slowness.",
            "The page waited on the renderer.",
            "superlative",
        ),
        ("She chose it because it is quieter.", "She works in Alcântara.", "reason"),
    ],
)
def test_stance_disagreements_are_found(claim: str, source: str, kind: str) -> None:
    found = conflict(stance(claim), [stance(source)], source)
    assert found and kind in found, found


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("There are no more per-component folders.", "We replaced the per-component folders."),
        ("Threshold alerts were swapped for SLO alerts.", "We replaced threshold alerts."),
        ("The widget isn't loaded until you scroll.", "The widget is only fetched on scroll."),
        ("They no longer run one after another.", "They used to run one after another."),
        ("The budget's logos were not mirrored.", "Icons were mirrored but not logos."),
        ("Quayline's bill fell because ClickHouse was cheaper.", "Because ClickHouse replaced it."),
        ("Every one of its 62 components has a contract.", "Each of its 62 components has one."),
        ("Searches with no results fell to 3.1%.", "Searches with no results fell from 18.4%."),
        ("Rather than loading the whole app, it opens a page.", "It opens a small page."),
        ("Dashboards lag by 90 seconds at most.", "Dashboards are at most 90 seconds behind."),
    ],
)
def test_faithful_rewordings_do_not_disagree(claim: str, source: str) -> None:
    assert conflict(stance(claim), [stance(source)], source) == ""


@pytest.mark.parametrize(
    "sentence",
    [
        "The site doesn't say where she studied.",
        "These sources don't give the before-and-after figures.",
        "There is no mention of a podcast.",
        "Her rates aren't published on the site.",
        "Nothing on the site says she worked at Google.",
    ],
)
def test_sentences_about_what_the_sources_lack_are_meta(sentence: str) -> None:
    meta, claims = meta_clauses(sentence)
    assert meta and not claims


def test_a_meta_clause_and_a_claim_are_told_apart() -> None:
    meta, claims = meta_clauses("The site doesn't mention Kubernetes; he runs Proxmox VE.")
    assert meta == ["The site doesn't mention Kubernetes"] and claims == ["he runs Proxmox VE."]
