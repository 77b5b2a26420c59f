"""Answers a visitor would accept: a small site of our own, through the real pipeline and model."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import engine_for_pages

from sitecite.config import Settings
from sitecite.embed import Embedder
from sitecite.eval.presentable import presentable, quoted_pieces
from sitecite.generate.extractive import ExtractiveGenerator
from sitecite.generate.pointer import CLOSEST_SAYS, passage, snippet
from sitecite.generate.ranker import Ranker
from sitecite.ingest.kinds import normal_form
from sitecite.pipeline import Engine, answer
from sitecite.types import Section

USES = """---
title: Uses
---

Here is everything I run at home.

## Table of Contents

- [Homelab](#homelab)
- [Desk](#desk)

## 🧪&nbsp;&nbsp;Homelab

- [**Synology DiskStation DS224+**](https://example.com/ds224)
  - 2x recertified 16TB drives
- [**UniFi Dream Machine SE**](https://example.com/udm)

## Desk

![Example: my messy desk](./desk.png)

My desk holds a 27-inch Dell monitor and a mechanical keyboard.
"""

MOVE = """---
title: Moving from Hugo to Next.js
date: 2021-03-14
authors: ['default']
---

## Why I moved

I moved this site from Hugo to Next.js because I wanted React components everywhere.

## How to deploy it yourself

Deploying the site takes three steps:

- Fork the repository on GitHub.
- Connect the fork to Vercel.
- Push a commit to the main branch.
"""

SCANS = """---
title: Scanning the internet
---

## Network Attached Storage (NAS)

Searching for exposed NAS drives produces thousands of results.
"""

AUTHOR = """---
name: Robin Vale
occupation: Site reliability engineer
company: Northwind
---

Welcome to Quiet Circuits, my notebook.
"""


@pytest.fixture(scope="module")
def site_engine(
    embedder: Embedder, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Engine:
    pages = {
        "uses.md": USES,
        "notes/hugo-to-nextjs.md": MOVE,
        "notes/scans.md": SCANS,
        "authors/default.md": AUTHOR,
    }
    # what these tests check is how an answer is chosen and said, not whether it is sure
    # enough to be given directly (test_sure_answers_only_what_holds_the_kind_asked_for)
    composing = settings.model_copy(update={"direct_answers": "any"})
    built = engine_for_pages(tmp_path_factory.mktemp("site"), pages, embedder, composing)
    # a fixed ranker (closeness and coverage, equally weighted) and no answerability floor:
    # what is checked here is how a chosen sentence is said, not which one the shipped,
    # fitted models choose
    fixed = ExtractiveGenerator(
        built.sentence_threshold,
        coverage_threshold=built.coverage_threshold,
        ranker=fixed_ranker(),
        answerable_threshold=0.0,
        direct_answers="any",
    )
    return Engine.for_index(built.index, composing, built.embedder, fixed)


def fixed_ranker() -> Ranker:
    """A ranker that scores a sentence by its cosine with the question plus its coverage."""
    names = ("cosine", "coverage")
    return Ranker(names, np.zeros(2), np.ones(2), np.ones(2), 0.0, {})


def test_a_list_item_answers_and_says_where_it_comes_from(site_engine: Engine) -> None:
    result, trace = answer(site_engine, "What hardware is in Robin's homelab?")
    assert not result.refused, trace.checks
    assert "On *Uses › Homelab*: " in result.answer
    assert "Synology DiskStation DS224+: 2x recertified 16TB drives" in result.answer
    assert presentable(result.answer, trace.context)[0], presentable(result.answer, trace.context)


def test_headings_contents_and_captions_are_never_quoted(site_engine: Engine) -> None:
    for question in ("What is in the homelab?", "What is on Robin's desk?"):
        result, trace = answer(site_engine, question)
        assert not result.refused, (question, trace.checks)
        pieces = quoted_pieces(result.answer)
        assert "Homelab" not in pieces and "Example: my messy desk" not in pieces
        assert presentable(result.answer, trace.context)[0], result.answer


def test_first_person_is_quoted_and_product_names_with_dots_are_known(
    site_engine: Engine,
) -> None:
    result, trace = answer(site_engine, "Why did Robin move the site from Hugo to Next.js?")
    assert not result.refused, trace.checks
    assert (
        '"I moved this site from Hugo to Next.js because I wanted React components '
        'everywhere" [1].' in result.answer
    )


def test_how_do_i_questions_get_the_steps_as_a_list(site_engine: Engine) -> None:
    result, trace = answer(site_engine, "How do I deploy the site myself?")
    assert not result.refused, trace.checks
    assert "1. Fork the repository on GitHub.\n2. Connect the fork to Vercel." in result.answer
    assert presentable(result.answer, trace.context)[0], presentable(result.answer, trace.context)


def test_the_owner_is_known_by_name_and_short_name(site_engine: Engine) -> None:
    result, trace = answer(site_engine, "Which company does Rob work at?")
    assert not result.refused, trace.checks
    assert "Northwind" in result.answer
    assert result.citations[0].id == "authors/default#profile"


def test_page_dates_are_facts(site_engine: Engine) -> None:
    result, trace = answer(site_engine, "When was the post about moving from Hugo published?")
    assert not result.refused, trace.checks
    assert "14 March 2021" in result.answer


def test_unknown_names_and_unanswered_kinds_are_refused(site_engine: Engine) -> None:
    for question in (
        "What does Robin think of Svelte?",
        "How much did the Synology DiskStation cost?",
    ):
        result, _ = answer(site_engine, question)
        assert result.refused, (question, result.answer)


def test_a_name_the_site_never_uses_is_said_and_the_closest_pages_pointed_at(
    site_engine: Engine,
) -> None:
    result, _ = answer(site_engine, "What does Robin keep on the Svelte homelab?")
    assert result.outcome == "pointed" and result.refusal_reason == "no_direct_answer"
    assert result.answer.startswith("The site doesn't mention Svelte.")
    pages = [c.id.split("#")[0] for c in result.citations]
    assert pages and len(pages) == len(set(pages)) <= 3  # one section per page, at most three
    assert all(f"[{c.n}]" in result.answer for c in result.citations)
    for citation in result.citations:  # each quote is a sentence of the section it cites
        section = site_engine.index.sections[site_engine.index.row_of[citation.id]]
        assert all(quote in section.sentences for quote in citation.quotes)


def test_a_pointed_reply_shows_the_closest_line_with_its_neighbours() -> None:
    """A page's lines: the closest, then the quotable sentence after it, the ranker's next two
    lines and the sentence before it, each while the whole stays within the word budget, in
    page order; a heading is skipped and a line that is no sentence of the section (a
    profile fact) is shown alone. Shown as one passage, a gap is marked."""
    sentences = (
        "Why I left.",
        "I spent six years at agencies and the work was fine.",
        "In April 2021 I went independent.",
        "Clients now come by referral.",
        "My rates are on the services page.",
        "I work from Lisbon.",
    )
    kinds = ("heading", "prose", "prose", "prose", "prose", "prose")
    text = " ".join(sentences)
    section = Section("about#why", "about", "About", "Why", "/", text, "h", sentences, kinds=kinds)
    assert snippet(section, [sentences[1]]) == sentences[1:3]  # the heading is not quoted
    assert snippet(section, [sentences[2]]) == sentences[1:4]
    assert snippet(section, [sentences[2]], words=16) == sentences[2:4]  # the next comes first
    assert snippet(section, [sentences[2]], words=6) == sentences[2:3]
    ranked = [sentences[2], sentences[5], sentences[4]]
    assert snippet(section, ranked, words=18) == (sentences[2], sentences[3], sentences[5])
    assert snippet(section, ranked) == sentences[1:]
    assert passage(section, (sentences[2], sentences[3], sentences[5])) == (
        f"{sentences[2]} {sentences[3]} … {sentences[5]}"
    )
    assert snippet(section, ["city: Lisbon"]) == ("city: Lisbon",)
    assert snippet(section, []) == ()


@pytest.mark.parametrize(
    ("question", "dated"),
    [
        ("When did Robin move the homelab to Proxmox?", True),
        ("When did Robin write about the homelab?", False),
        ("When was the homelab post last updated?", False),
    ],
)
def test_a_page_date_leading_an_answer_is_marked_unless_the_page_was_asked_about(
    question: str, dated: bool
) -> None:
    """A page's date of publication leading a ranked answer to a "when" question is what the
    direct decision reads as `lead_dated`, unless the question asks when the page was written
    or updated."""
    from sitecite.generate.extractive import led_by_page_date
    from sitecite.generate.features import Candidate
    from sitecite.ingest.kinds import PUBLISHED

    lead = Candidate(0, 0, "Homelab was published on 3 May 2021.", PUBLISHED, 0.5, 0.5)
    assert led_by_page_date(lead, question) is dated
    prose = Candidate(0, 1, "In 2021 I moved the homelab to Proxmox.", "prose", 0.5, 0.5)
    assert not led_by_page_date(prose, question)


def test_answers_quote_verbatim(site_engine: Engine, tmp_path: Path) -> None:
    result, trace = answer(site_engine, "What monitor is on the desk?")
    sentences = {normal_form(s) for section in trace.context for s in section.sentences}
    assert quoted_pieces(result.answer)
    for piece in quoted_pieces(result.answer):
        assert normal_form(piece) in sentences, piece


def test_the_answerability_threshold_decides_whether_to_answer(site_engine: Engine) -> None:
    question = "What monitor is on Robin's desk?"
    strict = Engine.for_index(
        site_engine.index,
        site_engine.settings.model_copy(update={"answerable_threshold": 1.0}),
        site_engine.embedder,
    )
    result, trace = answer(strict, question)
    # on topic but not sure: no direct answer, the closest sections pointed at instead
    assert result.refused and result.refusal_reason == "no_direct_answer"
    assert result.outcome == "pointed" and result.citations
    assert any("monitor" in quote for c in result.citations for quote in c.quotes)
    check = next(c for c in trace.checks if c.name == "answerable")
    assert not check.passed and "threshold 1.00" in check.detail
    lenient = Engine.for_index(
        site_engine.index,
        site_engine.settings.model_copy(update={"answerable_threshold": 0.0}),
        site_engine.embedder,
    )
    result, trace = answer(lenient, question)
    assert not result.refused and "27-inch Dell monitor" in result.answer


def test_word_coverage_of_many_sentences_equals_one_at_a_time(site_engine: Engine) -> None:
    from sitecite.generate.base import Context
    from sitecite.generate.evidence import WordCoverage

    index = site_engine.index
    context = Context("q", index.vectors[0], index, [], [], site_engine.embedder)
    for focus in (["homelab", "drives"], ["keyboard", "zyxwv"], []):
        coverage = WordCoverage(context, focus)
        for row in range(len(index.sections)):
            sentences = index.sentence_vocabulary(row)
            one_by_one = [coverage.of_words(words) for words in sentences]
            assert coverage.of_many(sentences) == pytest.approx(one_by_one, abs=1e-6)


def test_a_follower_joins_only_when_the_model_says_it_adds(site_engine: Engine) -> None:
    import numpy as np

    from sitecite.generate.extractive import ExtractiveGenerator, part_names
    from sitecite.generate.follow import FOLLOW_FEATURES
    from sitecite.generate.ranker import Ranker
    from sitecite.generate.select import followers
    from sitecite.pipeline import admitted_context
    from sitecite.retrieve import search
    from sitecite.screen import screen_question

    question = "Which NAS and which router does Robin run at home?"
    vector = site_engine.embedder.embed_query(question)
    hits = search(
        site_engine.index, vector, question, 8, site_engine.threshold, site_engine.settings.retrieve
    ).hits
    admitted = [h for h in hits if h.admitted]
    context, _ = admitted_context(
        site_engine, question, vector, admitted, screen_question(question)
    )
    generator = ExtractiveGenerator()
    ranked, _ = generator.rank_part(context, question, vector, part_names(context, question, []))
    assert ranked is not None and len(ranked.eligible) > 1

    def model(leftover: float) -> Ranker:
        coef = np.array([leftover if name == "leftover" else 0.0 for name in FOLLOW_FEATURES])
        n = len(FOLLOW_FEATURES)
        return Ranker(FOLLOW_FEATURES, np.zeros(n), np.ones(n), coef, -2.0, {"threshold": 0.5})

    assert followers(ranked, model(0.0), 1) == []  # p = 0.12 for every sentence: none joins
    joined = [ranked.candidates.items[i] for i in followers(ranked, model(20.0), 1)]
    lead = ranked.candidates.items[ranked.eligible[0]]
    assert len(joined) == 1 and joined[0].text != lead.text
    asked = ranked.candidates.asked.stems
    assert (asked - lead.terms) & joined[0].terms  # it brings a word of the question the lead lacks


def test_extractive_answers_verify_as_quoted(site_engine: Engine) -> None:
    """The LLM generator's fallback verifies the extractive answer: its passage labels ("On
    *Page › Section*:") are where a quote comes from, never read as claims."""
    from sitecite.verify.draft import draft_sentences
    from sitecite.verify.sources import Lexicon, build_evidence
    from sitecite.verify.verifier import Verifier

    assert draft_sentences("On *Uses › Desk*: My desk holds a monitor [1].")[0].clean == (
        "My desk holds a monitor."
    )
    index = site_engine.index
    lexicon = Lexicon(index.word_rows, index.word_vectors)
    for question in ("What monitor is on Robin's desk?", "Why did Robin move to Next.js?"):
        result, trace = answer(site_engine, question)
        assert not result.refused, question
        evidence = build_evidence(trace.context, lexicon, index.subject_words, question)
        positions = [s.id for s in trace.context]
        to_context = {n: positions.index(c.id) + 1 for n, c in enumerate(result.citations, 1)}
        numbered = re.sub(
            r"\[(\d+)\]", lambda m, t=to_context: f"[{t[int(m.group(1))]}]", result.answer
        )
        verification = Verifier().verify(numbered, evidence)
        assert verification.claims and verification.clean, (question, verification.checks)


SANDBOX = """---
title: I Made a Thing, Powered by Windows 98
---

Introducing the Lantern Sandbox, with on-demand Windows 98 virtual machines.

Play in the Lantern Sandbox, at your own risk.
"""

SANDBOX_NEWS = """---
title: The Lantern Sandbox Is Back
---

The Lantern Sandbox is back online after a week of repairs.

Play in the Lantern Sandbox, at your own risk.
"""


def test_a_line_two_pages_share_is_said_once(
    embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    """Two pages that end with the same line offer it as two candidates with the same scores;
    the copy is never a follower."""
    from sitecite.generate.extractive import ExtractiveGenerator
    from sitecite.generate.follow import follower_rows
    from sitecite.pipeline import admitted_context
    from sitecite.retrieve import search
    from sitecite.screen import screen_question

    pages = {"sandbox.md": SANDBOX, "sandbox-news.md": SANDBOX_NEWS}
    engine = engine_for_pages(tmp_path / "site", pages, embedder, settings)
    question = "Where can I play in the Lantern Sandbox?"
    vector = engine.embedder.embed_query(question)
    hits = search(engine.index, vector, question, 8, engine.threshold, engine.settings.retrieve)
    admitted = [h for h in hits.hits if h.admitted]
    context, _ = admitted_context(engine, question, vector, admitted, screen_question(question))
    ranked, _ = ExtractiveGenerator().rank_part(context, question, vector, [])
    assert ranked is not None
    items = ranked.candidates.items
    repeated = "Play in the Lantern Sandbox, at your own risk."
    assert [items[i].text for i in ranked.eligible].count(repeated) == 2  # either copy may lead
    lead = next(i for i in ranked.eligible if items[i].text == repeated)
    pool, _ = follower_rows(ranked, lead)
    assert pool and all(items[i].text != repeated for i in pool)
    result, _ = answer(engine, question)
    assert result.answer.count(repeated) == 1, result.answer


BACKUPS = """---
title: Backing Up a Small Server
---

## Setting it up

To back up the server yourself, follow these steps:

- Install restic. It is a single binary, so any package manager has it.
- Create a bucket. Any S3-compatible storage works, and Backblaze B2 is the cheapest I found.
- Add a cron job. Mine runs every two hours and keeps a week of snapshots.
"""


def test_a_list_item_of_several_sentences_is_one_step(
    embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    """A bullet of two sentences ("Install restic. It is a single binary...") is one step of
    the list, not two numbered lines of which the first is a bare label."""
    engine = engine_for_pages(tmp_path / "site", {"backups.md": BACKUPS}, embedder, settings)
    result, trace = answer(engine, "How do I back up my server like this?")
    assert not result.refused, trace.checks
    assert "1. Install restic. It is a single binary" in result.answer, result.answer
    assert "2. Create a bucket. Any S3-compatible storage works" in result.answer
    assert "3. Add a cron job. Mine runs every two hours" in result.answer
    assert "4." not in result.answer
    assert presentable(result.answer, trace.context)[0], presentable(result.answer, trace.context)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "In his backup setup, how often does the job run and how many snapshots are kept?",
            ["In his backup setup, how often does the job run", "how many snapshots are kept?"],
        ),
        ("What is the sandbox and what runs it?", ["What is the sandbox", "what runs it?"]),
        (
            "How did INP change on the newspaper project compared with the checkout?",
            ["How did INP change on the newspaper project", "How did INP change on the checkout?"],
        ),
        (
            "How does Tailwind compare to CSS modules?",
            ["How does Tailwind compare to CSS modules?"],
        ),
        (
            "We need help with payments. What checkout work has she done, and has she spoken?",
            ["We need help with payments. What checkout work has she done", "has she spoken?"],
        ),
        (
            "I host on GitHub Pages. How can I add security headers?",
            ["I host on GitHub Pages. How can I add security headers?"],
        ),
        (
            "If a visitor never clicked the toggle, which theme do they get?",
            ["If a visitor never clicked the toggle, which theme do they get?"],
        ),
    ],
)
def test_a_question_is_split_into_the_parts_it_asks(question: str, parts: list[str]) -> None:
    """A part that opens with context before its question word ("In his backup setup, how
    often...") is a question, not context for the next part."""
    from sitecite.question import question_parts

    assert question_parts(question) == parts


TOOLS = """---
title: Thesis Wrap-up
---

## On R and Stata

I wrote the whole thesis in R this time and the packages won me over.

Features that I like:

- Graphing capabilities. Ggplot2 draws great default graphics.
- Pipe syntax. I used to dislike it but now I use it daily.
- Dplyr. Data manipulation is much faster to write than in base R.

Nonetheless, Stata still has certain advantages:

- Help manual. Stata's help files are the best, with examples.
- Speed. Stata is much faster at reading large datasets into memory.
- Econometric tools. New econometric estimators reach Stata before R.
"""


def test_two_parts_answered_from_two_lists_show_each_list_once_with_its_introduction(
    embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    """A list answering a part of "what did he like about R, and where does Stata still win?"
    is introduced by the sentence that says what it is, and never shown twice, even when the
    other part's best sentence is one its items hold."""
    engine = engine_for_pages(tmp_path / "site", {"thesis.md": TOOLS}, embedder, settings)
    # the shipped models choose the sentences; whether each part is sure enough to answer is
    # not what is checked here (the reader doubts "where does Stata still win?")
    composing = ExtractiveGenerator(
        engine.sentence_threshold,
        coverage_threshold=engine.coverage_threshold,
        answerable_threshold=0.0,
        direct_answers="any",
    )
    question = "What did he like about R over Stata, and where does Stata still win?"
    result, trace = answer(engine, question, generator=composing)
    assert not result.refused, trace.checks
    text = result.answer
    assert text.count("Help manual.") == 1, text
    assert "Nonetheless, Stata still has certain advantages:\n1. Help manual." in text, text
    assert text.count("Graphing capabilities.") <= 1, text
    if "Graphing capabilities." in text:
        assert "Features that I like:\n1. Graphing capabilities." in text, text
    assert presentable(text, trace.context)[0], presentable(text, trace.context)


CLI = """---
title: The Lantern CLI
---

Lantern prints the weather in your terminal, with a lantern drawn in ASCII art.

## Usage

```sh
npx lantern-weather
```

## Built with

- ink - React for interactive command-line apps
- meow - CLI helper
"""


def test_how_to_run_it_is_answered_with_the_command(
    embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    """ "How do I run it?" is answered by the command the page gives, in backticks as the
    page shows it; a command never answers a question that does not ask how to do
    something."""
    engine = engine_for_pages(tmp_path / "site", {"cli.md": CLI}, embedder, settings)
    result, trace = answer(engine, "How do I run the Lantern CLI?")
    assert not result.refused, trace.checks
    assert "`npx lantern-weather`" in result.answer, result.answer
    assert presentable(result.answer, trace.context)[0], presentable(result.answer, trace.context)
    result, _ = answer(engine, "What does the Lantern CLI print?")
    assert "npx" not in result.answer, result.answer


DOTFILES = """# Dotfiles

## Networking

On macOS the DNS cache is held by mDNSResponder, which the flush function restarts.

Check, clear and flush your computer's DNS cache, overriding your router:

```bash
flushdns() {
  sudo dscacheutil -flushcache
  sudo killall -HUP mDNSResponder
  echo "flushed"
}
```

Start a simple local web server in the current directory:

```bash
serve() {
  python3 -m http.server 8000
  echo "serving"
  echo "stop with Ctrl-C"
}
```
"""


def test_a_lead_in_whose_completion_was_not_kept_is_never_said(
    embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    """A sentence that introduces a code block the index does not keep ("...flush your
    computer's DNS cache, overriding your router:") is not said: it would end on a colon, or be
    "completed" by the next lead-in (the first one here; the second ends the section)."""
    from sitecite.generate.select import orphaned_lead_in

    engine = engine_for_pages(tmp_path / "site", {"dotfiles.md": DOTFILES}, embedder, settings)
    section = next(s for s in engine.index.sections if s.heading == "Networking")
    orphans = [s for n, s in enumerate(section.sentences) if orphaned_lead_in(section, n)]
    assert len(orphans) == 2 and all(s.endswith(":") for s in orphans), section.sentences
    result, trace = answer(engine, "How do I flush the DNS cache with your dotfiles?")
    assert all(orphan not in result.answer for orphan in orphans), result.answer
    assert presentable(result.answer, trace.context)[0], result.answer


SERIES = """# Learning Julia, part 1

## Conclusion

The untyped version of the model runs the whole simulation in about four seconds.

In the next part of the series, I plan to show how typed code changes the benchmark results.

## Homelab

- Two mini PCs: both run Proxmox VE with Home Assistant and Gitea; full post coming soon!
"""


def test_a_plan_does_not_answer_what_came_of_it(
    embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    """When the sentence that would answer only says what is to come ("I plan to show how typed
    code changes the benchmark results"), a question about the results is refused, and the
    refusal says what the site does say, quoted and cited; a question about the plan is
    answered by it, and a fact followed by "coming soon!" still answers."""
    from sitecite.generate.extractive import ONLY_PLANNED

    engine = engine_for_pages(tmp_path / "site", {"julia.md": SERIES}, embedder, settings)
    results = "What were the typed code benchmark results of the series?"
    result, trace = answer(engine, results)
    # refused either way: the answerability model doubts it, or only a plan answers it
    assert result.refused, (result, trace.checks)
    # past the answerability model, the plan is what answers it: said as a plan
    judging_none = ExtractiveGenerator(
        engine.sentence_threshold,
        coverage_threshold=engine.coverage_threshold,
        answerable_threshold=0.0,
    )
    result, trace = answer(engine, results, generator=judging_none)
    assert result.refused and result.refusal_reason == "only_planned", (result, trace.checks)
    assert result.answer.startswith(ONLY_PLANNED), result.answer
    assert "I plan to show how typed code changes" in result.answer
    assert [c.id for c in result.citations] == ["julia#conclusion"]
    planned, _ = answer(
        engine, "What will the next part of the Julia series show about typed code?"
    )
    assert not planned.refused and "I plan to show" in planned.answer, planned.answer
    homelab, _ = answer(engine, "What does he run on his mini PCs?")
    assert not homelab.refused and "Proxmox VE" in homelab.answer, homelab.answer


@pytest.mark.parametrize(
    ("question", "sentence", "planned"),
    [
        (
            "What did his network look like after he updated it with The Winds of Winter?",
            "I can't wait to update it when the Winds of Winter is released.",
            True,
        ),
        ("Where's his detailed homelab post?", "Full post with more details coming soon!", True),
        # advice and a tutorial's voice are not the owner's plans
        (
            "What's his tip for pitching in a competition?",
            "Prepare the story that you plan to deliver ahead of time.",
            False,
        ),
        (
            "How do I get VMware to notice the freed-up space?",
            "We're going to have Linux overwrite the free space with zeros.",
            False,
        ),
        # a question about intentions is answered by one
        (
            "What does he want to use this blog for?",
            "I hope to use this platform to document my research projects.",
            False,
        ),
        # the plan is a clause beside the answer, not the answer
        (
            "What does he run on his mini PCs?",
            "Both run Proxmox VE with Home Assistant; full post coming soon!",
            False,
        ),
    ],
)
def test_only_a_plan_is_told_apart_from_an_answer(
    question: str, sentence: str, planned: bool
) -> None:
    from sitecite.generate.extractive import only_planned

    assert only_planned(question, sentence) is planned


def test_the_direct_model_decides_whether_an_answer_is_given_directly(
    site_engine: Engine,
) -> None:
    """With `direct_answers = "sure"`, an answer is given directly only when the direct model
    gives it at least its threshold; otherwise the reply says what the site says closest,
    quoting the sentence the answerer would have said first. The trace names the figures."""
    from sitecite.generate.extractive import default_direct

    why = "Why did Robin move the site from Hugo to Next.js?"
    direct, _ = answer(site_engine, why)  # answered when every answer may be direct
    assert direct.outcome == "answered"
    shipped = default_direct()

    def sure(threshold: float) -> ExtractiveGenerator:
        model = dataclasses.replace(shipped, about={**shipped.about, "threshold": threshold})
        serving = site_engine.generator
        assert isinstance(serving, ExtractiveGenerator)
        return ExtractiveGenerator(
            serving.sentence_threshold,
            serving.max_sentences,
            serving.coverage_threshold,
            answerable_threshold=serving.answerable_threshold,
            direct_answers="sure",
            direct=model,
        )

    given, trace = answer(site_engine, why, generator=sure(0.0))
    assert given.outcome == "answered" and given.citations[0].id == direct.citations[0].id
    check = next(c for c in trace.checks if c.name == "direct")
    assert check.passed and set(check.data["features"]) >= set(shipped.features)
    result, trace = answer(site_engine, why, generator=sure(1.01))
    assert result.outcome == "pointed" and result.refusal_reason == "no_direct_answer"
    check = next(c for c in trace.checks if c.name == "direct")
    assert not check.passed and "below its threshold 1.01" in check.detail
    assert result.citations[0].id == direct.citations[0].id
    assert set(result.citations[0].quotes) & set(direct.citations[0].quotes)
    # judged answerable, not surely: the reply says what the site says closest, quoted first
    section = site_engine.index.sections[site_engine.index.row_of[result.citations[0].id]]
    shown = passage(section, result.citations[0].quotes)
    assert result.answer.startswith(f"{CLOSEST_SAYS} “{shown}” [1]")
    gatsby = "Why did Robin move the site from Hugo to Gatsby?"
    unknown, _ = answer(site_engine, gatsby, generator=sure(1.01))
    assert not unknown.answer.startswith(CLOSEST_SAYS), "a name the site never uses is said"
