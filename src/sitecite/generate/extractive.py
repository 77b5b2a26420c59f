"""The extractive generator: answers with sentences quoted verbatim from the admitted sections.

It cannot invent anything: every sentence it shows is copied from an admitted section and
cited. It refuses unless the evidence is good enough, on four counts, each recorded as a Check
in the Trace:

- `entities`: every proper name in the question (Google, Delft, Next.js) occurs on the site or
  is one of the owner's names ("Tim" for Timothy Lin);
- `answer_kind`: a question asking for a kind of thing (an age, an amount of money, a phone
  number, a count of something) is answered only by a sentence containing that kind of thing;
- `support`: some quotable sentence reaches both calibrated thresholds: its cosine with the
  question, and its coverage of the question's focus words (an exact word counts 1, another
  word the cosine of the closest word in the sentence);
- `answerable`: the answerability model (`generate/answerable.py`), reading the ranked
  candidates, gives the site at least `answerable_threshold` probability of answering some part
  of the question.

Only prose, list items, table rows and facts are candidates (sentence kinds are decided at
ingestion). Which of them to say is the answer-sentence ranker's choice (`generate/ranker.py`),
and how to say it is `generate/select.py` and `generate/compose.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from sitecite.generate import answer_types as asked
from sitecite.generate.answer_types import ASKS_PLANS, OWN_PLAN, question_type
from sitecite.generate.answerable import (
    NEEDS,
    Ranked,
    answerable_row,
    default_answerability,
    expected_column,
)
from sitecite.generate.base import Context, Generator
from sitecite.generate.compose import Composition, Passage, render
from sitecite.generate.features import (
    FEATURES,
    Candidate,
    candidate_kinds,
    candidates_and_features,
)
from sitecite.generate.follow import NEEDS as FOLLOWER_NEEDS
from sitecite.generate.follow import default_follower
from sitecite.generate.overview import lead_with, overview_lead, page_lead
from sitecite.generate.owner import describes_owner, keyed_facts, owner_facts
from sitecite.generate.pointer import pointed, ranked_lines
from sitecite.generate.ranker import Ranker, default_ranker, shipped_model
from sitecite.generate.reader import Reader, default_reader
from sitecite.generate.select import merge, orphaned_lead_in, passages_for, shown
from sitecite.ingest.kinds import FACT, PUBLISHED, QUOTABLE
from sitecite.question import ROLE, SITE, WHO, Part, Reading, proper_names
from sitecite.screen import answer_kind, has_answer_kind
from sitecite.tokens import content_stems
from sitecite.types import Check, Draft, Section

ONLY_PLANNED = "The site doesn't say yet; it mentions this only as planned."
_CLAUSE = re.compile(r"[;:!?]\s+|\.\s+")
DEFAULT_SENTENCE_THRESHOLD = 0.0
DEFAULT_COVERAGE_THRESHOLD = 0.51
CALIBRATION_PAIRS = 30  # (cosine, coverage) of the top sentences, kept for `sitecite calibrate`


@dataclass(frozen=True)
class Proposal:
    """One strategy's answer to one part of the question: the passages it would show and the
    sentence that leads them; `planned` when the only sentence that would answer says what
    is to come (a refusal that quotes the plan)."""

    strategy: str  # one of STRATEGIES
    part: str
    passages: list[Passage]
    lead: Candidate
    planned: Candidate | None = None
    features: dict[str, float] = field(default_factory=dict)  # what its confidence reads


STRATEGIES = ("profile", "overview", "ranked")  # tried in this order for each part
# a question about when a page was written, which its date of publication answers; a page's
# date leading the answer to anything else is a feature of the direct decision ("lead_dated")
ABOUT_WRITING = re.compile(
    r"\b(?:publish|post|wr[io]te|written|writing|update|blog|article|essay)\w*", re.IGNORECASE
)
# the lead sentence's candidate features the direct decision reads beside its own
LEAD_COLUMNS = (
    *("idf_overlap", "context_idf", "heading_idf", "type_match", "names_in_sentence"),
    *("summary", "fact", "item", "row", "first_person", "length", "topicality"),
    *("question_mark", "restates", "novelty", "new_detail", "lead_in"),  # what it adds
    "reader",  # how the reader (generate/reader.py) reads it
)
ASKED_TYPES = (  # question_type's answers but "what", the rest
    *(asked.COUNT, asked.WHEN, asked.WHERE, asked.WHO, asked.WHY, asked.HOW, asked.STEPS),
    *(asked.WHICH, asked.YESNO),
)
# what the decision to answer directly reads (decision_features, answer_features)
DIRECT_FEATURES = (
    *("profile", "overview", "answerable", "lead_score", "margin", "lead_cosine"),
    *("lead_coverage", "lead_expected", "asks_kind", "section_rank", "lead_dated"),
    *(f"lead_{name}" for name in LEAD_COLUMNS),
    *(f"asks_{name}" for name in ASKED_TYPES),
    "parts_answered",
    "lead_judge",  # the reader's judge, reading the question and the lead together
)
DIRECT_WEIGHTS = "answer_direct.json"


def default_direct() -> Ranker:
    """The direct-answer model shipped with sitecite (training/train_direct.py)."""
    return shipped_model(DIRECT_WEIGHTS, DIRECT_FEATURES)


class ExtractiveGenerator(Generator):
    """Quote-and-cite: the ranker picks the sentence that answers, the composer presents it."""

    name = "extractive"

    def __init__(
        self,
        sentence_threshold: float = DEFAULT_SENTENCE_THRESHOLD,
        max_sentences: int = 3,
        coverage_threshold: float = DEFAULT_COVERAGE_THRESHOLD,
        ranker: Ranker | None = None,
        answerability: Ranker | None = None,
        follower: Ranker | None = None,
        answerable_threshold: float | None = None,
        overview: bool = True,
        direct_answers: str = "sure",
        direct: Ranker | None = None,
        reader: Reader | None = None,
    ) -> None:
        self.overview = overview  # a question about a whole page is led by its summary
        # "sure": answer directly when the direct model is sure (`direct_decision`); "any": always
        self.direct_answers = direct_answers
        self.direct = direct  # the direct-answer model; None: the shipped one, read when used
        self.sentence_threshold = sentence_threshold
        self.coverage_threshold = coverage_threshold
        self.max_sentences = max_sentences
        self.ranker = ranker or default_ranker()
        self.answerability = answerability or default_answerability()
        self.follower = follower or default_follower()
        self.answerable_threshold = (
            self.answerability.threshold if answerable_threshold is None else answerable_threshold
        )
        # the candidate features the models read (ranker, answerability, follower, direct),
        # computed once per candidate
        wanted = {*self.ranker.features, *NEEDS, *FOLLOWER_NEEDS, *LEAD_COLUMNS}
        self.features = tuple(name for name in FEATURES if name in wanted)
        # the reader (generate/reader.py), when a model reads its column; None: the shipped one
        self.reader = reader if reader is not None or "reader" not in wanted else default_reader()

    def generate(self, context: Context) -> Draft:
        reading = context.read()
        unknown = unknown_names(context, reading)
        checks = [
            Check(
                "entities",
                not unknown,
                f"not on the site: {', '.join(unknown)}" if unknown else "all names occur",
            )
        ]
        if unknown:
            return pointed(context, self.name, checks, missing=unknown)

        parts = [part.text for part in reading.parts]
        whole = len(parts) == 1
        vectors = [context.query_vector] if whole else part_vectors(context, parts)
        composition = Composition()
        said: set[str] = set()
        missing_kind: list[str] = []
        planned: list[Candidate] = []  # leads that say what is to come, for parts asking what is
        support: list[str] = []
        judged: list[str] = []
        pairs: list[list[float]] = []
        names: list[str] = []
        proposals: list[Proposal] = []
        lines: dict[int, list[str]] = {}  # each section's ranked sentences, for a pointed reply
        for part, vector in zip(reading.parts, vectors, strict=True):
            names = part_names(context, part.text, names)
            ranked, order = self.rank_part(context, part.text, vector, names, said, whole)
            if ranked is not None and not lines:
                items = ranked.candidates.items
                lines = ranked_lines(
                    [c.section_position for c in items], ranked.scores, [c.text for c in items]
                )
            if ranked is None:
                kind = context.answer_kind if whole else part.kind
                missing_kind.append(f"'{part.text}' asks for {kind}; no admitted sentence has one")
                composition.uncovered.append(part.text)
                continue
            items = ranked.candidates.items
            pairs = pairs or [
                [round(items[i].cosine, 4), round(items[i].coverage, 4)]
                for i in order[:CALIBRATION_PAIRS]
            ]
            support.append(_support_detail(part.text, ranked, order, self))
            proposal = self.propose(context, part, ranked, order, said, whole, judged)
            if proposal is None or proposal.planned is not None:
                if proposal is not None and proposal.planned is not None:
                    planned.append(proposal.planned)
                composition.uncovered.append(part.text)
                continue
            proposals.append(proposal)
            composition.passages.extend(proposal.passages)
            said.update(
                s for passage in proposal.passages for s in shown(passage, context.sections)
            )

        if context.answer_kind or any(part.kind for part in reading.parts):
            detail = "; ".join(missing_kind) or "every part that asks for a kind of answer has one"
            answered = bool(composition.passages)
            checks.append(Check("answer_kind", not missing_kind or answered, detail))
            if len(missing_kind) == len(parts):
                return pointed(context, self.name, checks, lines=lines)
        checks.append(Check("support", bool(judged), "; ".join(support), {"pairs": pairs}))
        if not judged:
            return pointed(context, self.name, checks, lines=lines)
        found = bool(composition.passages)
        detail = (
            f"probability that the site answers {'; '.join(judged)}; "
            f"threshold {self.answerable_threshold:.2f}"
        )
        checks.append(Check("answerable", found, detail))
        if planned:
            said_planned = "; ".join(f"'{c.text[:80]}'" for c in planned)
            checks.append(Check("planned", False, f"only a plan answers it: {said_planned}"))
        if not found and planned:
            return self._only_planned(planned[0], context.sections, checks)
        if not found:
            return pointed(context, self.name, checks, lines=lines)
        decision = answer_features(proposals, len(parts), partial(self.judge_lead, context))
        sure, detail = self.direct_decision(decision, len(parts), composition)
        checks.append(Check("direct", sure, detail, {"features": decision}))
        if not sure:
            lead = proposals[0].lead
            first = {lead.section_position: lead.text}
            # every part was judged answerable, but not surely: the reply quotes what the site
            # says closest, rather than saying it found no answer over a line that may be one
            likely = not composition.uncovered
            return pointed(context, self.name, checks, lines=lines, first=first, likely=likely)
        text, cited = render(composition, context.sections)
        quotes = tuple(_quoted(composition, position) for position in cited)
        return Draft(text, cited, False, self.name, checks=tuple(checks), quotes=quotes)

    def propose(
        self,
        context: Context,
        part: Part,
        ranked: Ranked,
        order: list[int],
        said: set[str],
        whole: bool,
        judged: list[str],
    ) -> Proposal | None:
        """The first strategy's answer to one part, in the order of STRATEGIES: the owner's
        profile facts that say it, the summary of the page it asks about, the ranked
        sentences that answer it. None when no strategy answers (the reason in `judged`)."""
        facts = self.from_profile(context, part, ranked, order)
        if facts:  # about the owner: the profile facts that say it, and nothing else
            judged.append(f"'{part.text}': asks about the owner; the profile says it")
            items = ranked.candidates.items
            new = [i for i in facts if items[i].text not in said]  # an earlier part's?
            shown_facts = [Passage(items[i].section_position, (items[i].text,)) for i in new]
            features = decision_features(ranked, facts[0], part, "profile", 1.0)
            return Proposal(
                "profile", part.text, merge(shown_facts), items[facts[0]], features=features
            )
        lead = self.from_overview(context, part, ranked, whole)
        summary = "overview" if lead is not None else ""
        if lead is None:
            lead = self.from_bio(context, part, ranked)
            summary = "about" if lead is not None else ""
        probability = 1.0
        if lead is not None:  # a question about a whole page or person: its summary leads
            ranked = lead_with(ranked, lead)
            judged.append(f"'{part.text}': asks about a page the context holds")
        else:
            judgement = self.judged_answerable(context, part.text, ranked, judged)
            if judgement is None:
                return None
            probability = judgement
        lead_item = ranked.candidates.items[ranked.eligible[0]]
        if lead is None and only_planned(part.text, lead_item.text):
            # "What did the network look like after the update?" led by "I can't wait to
            # update it when...": the site says it is to come, not what came of it
            return Proposal("ranked", part.text, [], lead_item, planned=lead_item)
        # a question of several parts gets one sentence per part; a single one, followers
        room = self.max_sentences - 1 if whole else 0
        if summary == "about":  # a bio is said as it opens, its sentences in their order
            # said whole, whatever the number of parts: "What's her job, and which company is
            # it?" is answered by the opening once, not by its first sentence once per part
            bio = opening(context.sections[lead_item.section_position], lead_item)
            fresh = tuple(sentence for sentence in bio.sentences if sentence not in said)
            chosen = [Passage(bio.section_position, fresh)] if fresh else []
        else:
            chosen = passages_for(
                ranked, context.sections, part.text, self.follower, room, keep_lead=bool(summary)
            )
        strategy = summary or "ranked"
        lead_section = context.sections[lead_item.section_position]
        if (
            strategy == "ranked"
            and part.owner
            and describes_owner(lead_section, context.index.subject)
        ):
            # who they are, what they do, where: said on the page where the owner says it
            strategy = "about"
        features = decision_features(ranked, ranked.eligible[0], part, strategy, probability)
        return Proposal(strategy, part.text, chosen, lead_item, features=features)

    def judge_lead(self, context: Context, part: str, lead: str) -> float:
        """The reader's judge of the lead as the part's answer (`Reader.judge`); 0.0 when the
        reader does not read this index's embedder, or has no judge."""
        if self.reader is None or not self.reader.reads(context.embedder.id):
            return 0.0
        return self.reader.judge(part, lead)

    def direct_decision(
        self, features: dict[str, float], parts: int, composition: Composition
    ) -> tuple[bool, str]:
        """Whether the answer is given directly, and why: with `direct_answers` "sure", every
        part must be answered and the direct model (a logistic regression over the weakest
        part's decision features, `features`; training/train_direct.py) must give the answer
        at least its threshold, chosen with whole sites left out so that few unanswerable
        questions are answered directly."""
        if self.direct_answers == "any":
            return True, "every answer is given directly (direct_answers = any)"
        if composition.uncovered:
            return False, f"{len(composition.uncovered)} of {parts} part(s) not answered"
        if not features:
            return False, "no part's answer has decision features"
        model = self.direct or default_direct()
        row = np.array([[features[name] for name in model.features]])
        probability = float(model.probability(row)[0])
        verdict = "at least" if probability >= model.threshold else "below"
        detail = f"the direct-answer model gives {probability:.2f}, {verdict} its threshold"
        return probability >= model.threshold, f"{detail} {model.threshold:.2f}"

    def from_profile(
        self, context: Context, part: Part, ranked: Ranked, order: list[int]
    ) -> list[int]:
        """Strategy 1: the owner's profile facts that answer a question about the owner (who,
        what they do, where, whether free, how to reach them) or name a key of the profile."""
        if not self.overview:
            return []
        if part.owner:
            return owner_facts(ranked, context.sections, part.owner)
        is_owner = context.index.is_subject
        return keyed_facts(ranked, order, context.sections, part.text, is_owner)

    def from_bio(self, context: Context, part: Part, ranked: Ranked) -> int | None:
        """Strategy 2b: who the owner is or what they do, asked of a site that says it in
        prose: the opening of the closest page that describes the owner (their home or about
        page), as a question about a page is answered by its summary."""
        if not (self.overview and part.owner in (WHO, ROLE, SITE)):
            return None
        owner = context.index.subject
        for section in context.sections:
            if describes_owner(section, owner) and FACT not in section.sentence_kinds:
                return page_lead(ranked, context.sections, section.page_id)
        return None

    def from_overview(
        self, context: Context, part: Part, ranked: Ranked, whole: bool
    ) -> int | None:
        """Strategy 2: a question about a whole page is led by the page's summary."""
        if not (self.overview and whole and part.topic):
            return None
        return overview_lead(ranked, context.sections, part.topic)

    def rank_part(
        self,
        context: Context,
        part: str,
        vector: np.ndarray,
        names: list[str],
        said: set[str] | frozenset[str] = frozenset(),
        whole: bool = True,
    ) -> tuple[Ranked | None, list[int]]:
        """The part's candidates ranked, and those that may answer it (supported, from a section
        that mentions the part's names, not said already); None when the part asks for a kind
        of thing (a phone number, a count of X) that no candidate holds. Also every candidate
        holding that kind of thing, best first."""
        read = (
            self.reader.read_for(part)
            if self.reader is not None and self.reader.reads(context.embedder.id)
            else None
        )
        kinds = candidate_kinds(part)
        found = candidates_and_features(context, vector, part, kinds, self.features, read)
        scores = self.ranker.scores(found.matrix, found.names)
        order = [int(i) for i in np.argsort(-scores, kind="stable")]
        kind = context.answer_kind if whole else answer_kind(part)
        if kind:
            order = [i for i in order if has_answer_kind(kind, found.items[i].text, part)]
            if not order:
                return None, []
        eligible = [
            i
            for i in order
            if found.items[i].text not in said
            and self.supports(found.items[i])
            and mentions(context.sections[found.items[i].section_position], names)
            and not orphaned_lead_in(
                context.sections[found.items[i].section_position],
                found.items[i].sentence_position,
            )
        ]
        return Ranked(found, scores, eligible), order

    def judged_answerable(
        self, context: Context, part: str, ranked: Ranked, judged: list[str]
    ) -> float | None:
        """Whether the part may be answered: some candidate may answer it and the
        answerability model gives it at least the threshold (its judgement goes to `judged`).
        The model was fitted on questions that stand alone; a follow-up's own words ("What
        does that company sell?") point at the pages the previous answer cited, which the
        pipeline has already confined it to, so it is not asked there. Returns the probability
        when the part may be answered, else None."""
        if not ranked.eligible:
            return None
        probability = self.answerable(ranked)
        judged.append(f"'{part}': {probability:.2f}")
        if probability >= self.answerable_threshold or context.followup:
            return probability
        return None

    def answerable(self, ranked: Ranked) -> float:
        """The probability that the site answers the part, from its ranked candidates."""
        return float(self.answerability.probability(answerable_row(ranked)[None, :])[0])

    def supports(self, sentence: Candidate) -> bool:
        """A sentence may answer when it is similar enough and covers enough of the question."""
        return (
            sentence.cosine >= self.sentence_threshold
            and sentence.coverage >= self.coverage_threshold
        )

    def _only_planned(self, plan: Candidate, sections: list[Section], checks: list[Check]) -> Draft:
        """A refusal that says what the site does say: that it is planned, quoted and cited."""
        quoted = Composition([Passage(plan.section_position, (plan.text,))])
        text, cited = render(quoted, sections)
        return Draft(
            f"{ONLY_PLANNED} {text}",
            cited,
            True,
            self.name,
            refusal_reason="only_planned",
            checks=tuple(checks),
        )

    def _refuse(self, reason: str, checks: list[Check]) -> Draft:
        return Draft("", (), True, self.name, refusal_reason=reason, checks=tuple(checks))


def only_planned(part: str, lead: str) -> bool:
    """Whether what the sentence that would answer shares with the part is the owner's plan ("I
    can't wait to update it when the Winds of Winter is released" for "What did the network
    look like after he updated it with The Winds of Winter?") while the part asks what is, or
    was: the clause that says what is planned holds at least half of the part's words that the
    sentence holds. "...running Proxmox VE ...; Full post with more details coming soon!" still
    answers "What does he run in his homelab?". A part that asks about plans is answered by
    one."""
    if ASKS_PLANS.search(part):
        return False
    asked = content_stems(part)
    held = asked & content_stems(lead)
    return bool(held) and any(
        2 * len(asked & content_stems(clause)) >= len(held)
        for clause in _CLAUSE.split(lead)
        if OWN_PLAN.search(clause)
    )


def part_vectors(context: Context, parts: list[str]) -> list[np.ndarray]:
    """The vector of each part of a question of several, embedded in one call."""
    return list(context.embedder.embed(parts))


def unknown_names(context: Context, reading: Reading) -> list[str]:
    """Proper names of the question that the site never uses and that are not the owner's
    ("we're in New York": the visitor's names, not the site's, are left aside)."""
    index = context.index
    unknown = []
    for name in reading.names:
        lowered = name.lower()
        parts = [p for p in re.split(r"[.\-_+#/]", lowered) if p]
        if lowered in index.terms or index.is_subject(lowered):
            continue
        if name.isupper() and 2 <= len(name) <= 6 and lowered in index.acronyms:
            continue
        if parts and all(p in index.terms for p in parts):
            continue
        unknown.append(name)
    return unknown


# A lower-case product name: three or more parts joined by dashes, none a stop word
# ("rehype-prism-plus", "n1-standard-16"; not "day-to-day").
_PRODUCT = re.compile(r"\b(?!\S*-(?:to|and|of|the|in|a|by|for|on)-)[a-z0-9]+(?:-[a-z0-9]+){2,}\b")
# "NAS", "RAM", "DNS": an acronym is as often a kind of thing as a name, so a section may answer
# about it without spelling it out.
_ACRONYM = re.compile(r"[A-Z]{2,5}s?")
_REFERS_BACK = re.compile(r"\b(it|its|they|them|their|these|those|this|that)\b", re.IGNORECASE)


def part_names(context: Context, part: str, previous: list[str]) -> list[str]:
    """The proper names a part of the question is about (the owner's names aside); a part that
    refers back ("...and what is it built with?") is about the names before it."""
    names = [
        n.lower()
        for n in proper_names(part)
        if not context.index.is_subject(n) and not _ACRONYM.fullmatch(n)
    ]
    names += [t for t in _PRODUCT.findall(part.lower()) if t in context.index.terms]
    if _REFERS_BACK.search(part):
        names += [n for n in previous if n not in names]
    return names


def mentions(section: Section, names: list[str]) -> bool:
    """Whether a section names something the question names: an answer about Plex must come
    from a section that mentions Plex. One name is enough: "the Head of Data at Quayline" is
    answered by a section about Quayline that never says "Head"."""
    text = f"{section.title} {section.heading} {section.text}".lower()
    return not names or any(name in text for name in names)


def _support_detail(
    part: str, ranked: Ranked, order: list[int], generator: ExtractiveGenerator
) -> str:
    if not order:
        return f"'{part}': no quotable sentences in the admitted sections"
    top, score = ranked.candidates.items[order[0]], ranked.scores[order[0]]
    return (
        f"'{part}': best sentence (ranker score {score:.2f}) cosine {top.cosine:.3f}, coverage "
        f"{top.coverage:.2f}; thresholds {generator.sentence_threshold:.3f} and "
        f"{generator.coverage_threshold:.2f}; {len(ranked.eligible)} sentence(s) clear both"
    )


def _quoted(composition: Composition, position: int) -> tuple[str, ...]:
    """What the answer quotes of the section at `position`: its passages' sentences."""
    return tuple(
        sentence
        for passage in composition.passages
        if passage.section_position == position
        for sentence in (*passage.sentences, *passage.listed)
    )


def decision_features(
    ranked: Ranked, lead: int, part: Part, strategy: str, probability: float
) -> dict[str, float]:
    """What the decision to answer directly reads of one part's answer: its strategy, the
    answerability model's probability, and how its lead sentence stands among the candidates
    (its ranker score and margin, its closeness, whether it holds what is asked for, and how
    high its section was retrieved)."""
    found = ranked.candidates
    eligible = list(ranked.eligible)
    others = [i for i in eligible if i != lead]
    score = float(ranked.scores[lead])
    wants = question_type(part.text)
    return {
        "profile": float(strategy in ("profile", "about")),
        "overview": float(strategy == "overview"),
        "answerable": probability,
        "lead_score": score,
        "margin": score - float(ranked.scores[others[0]]) if others else 1.0,
        "lead_cosine": float(found.column("cosine")[lead]),
        "lead_coverage": float(found.column("coverage")[lead]),
        "lead_expected": float(expected_column(found)[lead]),
        "asks_kind": float(bool(part.kind)),
        "section_rank": 1.0 / (1.0 + found.items[lead].section_position),
        "lead_dated": float(led_by_page_date(found.items[lead], part.text)),
        **{f"lead_{name}": float(found.column(name)[lead]) for name in LEAD_COLUMNS},
        **{f"asks_{name}": float(wants == name) for name in ASKED_TYPES},
    }


def led_by_page_date(lead: Candidate, part: str) -> bool:
    """Whether the lead is a page's date of publication and the part asks anything but when
    the page was written: then the date says when it was written, not when what it tells
    happened (on the answer data's dev halves, 13 of 14 such direct answers were wrong)."""
    return lead.kind == PUBLISHED and not ABOUT_WRITING.search(part)


def answer_features(
    proposals: Sequence[Proposal], parts: int, judge: Callable[[str, str], float]
) -> dict[str, float]:
    """The decision features of a whole answer: its weakest part's, how the reader's judge
    reads that part and its lead together (`judge(part, lead)`: one model pass, made only
    here, for the one lead the decision reads), and how many of the question's parts it
    answers."""
    answered = [p for p in proposals if p.features]
    if not answered:
        return {}
    weakest = min(answered, key=lambda p: p.features["answerable"])
    return {
        **weakest.features,
        "lead_judge": judge(weakest.part, weakest.lead.text),
        "parts_answered": len(answered) / max(parts, 1),
    }


BIO_SENTENCES = 2  # of a bio's opening, the sentences said for "who are you?"


def opening(section: Section, lead: Candidate) -> Passage:
    """The lead and the quotable sentences after it in its section, in order: how a page
    that describes its owner opens ("Hi, I'm Mara Lind. I am a staff engineer at...")."""
    said = [lead.text]
    pairs = zip(section.sentences, section.sentence_kinds, strict=True)
    for number, (text, kind) in enumerate(pairs):
        if len(said) >= BIO_SENTENCES:
            break
        if number > lead.sentence_position and kind in QUOTABLE:
            said.append(text)
    return Passage(lead.section_position, tuple(said))
