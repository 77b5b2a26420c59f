"""The verifier: reads a draft like a careful editor, sentence by sentence, against exactly the
sections the model was given, and keeps only what they support.

For each sentence of a draft:

- `citations`: every `[n]` is a section of the context; a sentence without markers is read
  against the reply's citation list; a claim with neither fails;
- a sentence that only says what the sources do not cover ("The site doesn't mention
  Kubernetes") passes as what it is; its other clauses ("; he runs Proxmox VE [1]") are
  claims like any other;
- each claim is aligned to the cited source sentences it rests on (sitecite.verify.align), and
  then `numbers`: every figure stands in them, with the same unit; `names`: every name (by
  evidence, sitecite.tokens) is used by them or their sections' titles; `polarity`: it denies,
  affirms, quantifies and explains no more than they do (sitecite.polarity); `support`: they
  cover its content words, exactly or by a close word vector;
- `instructions`: no sentence gives orders or repeats planted text.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sitecite.facts import Fact, facts, holds, reversed_change
from sitecite.injection import instruction_in
from sitecite.polarity import clauses, conflict
from sitecite.tokens import names
from sitecite.types import Check
from sitecite.verify.align import Alignment, align, longest_run, soft_coverage
from sitecite.verify.draft import DraftSentence, draft_sentences, join, meta_clauses, renumbered
from sitecite.verify.sources import Evidence, Reading, read

_POSSESSIVE = re.compile(r"['’]s?$")
CHECK_NAMES = ("citations", "numbers", "names", "polarity", "support", "instructions")
# Chosen by `python bench/verify_replies.py ... --tune` on the dev halves only (example site,
# hand-written example answers, jarvis, timlrx: 439 supported and 114 unsupported sentences):
# the most unsupported sentences caught (85.1%) with at most 5% of supported ones dropped (4.8%).
DEFAULT_SUPPORT_THRESHOLD = 0.65  # least mean coverage of a claim's content words...
MAX_UNCOVERED = 4  # ...content words a claim may add that its sources do not use...
MAX_RUN = 2  # ...and how many of them in a row


@dataclass
class SentenceVerdict:
    """One sentence of the draft and what was found wrong with it (nothing: it is shown)."""

    sentence: DraftSentence
    cited: tuple[int, ...]
    meta: bool = False
    problems: dict[str, str] = field(default_factory=dict)
    coverage: float = 1.0
    uncovered: list[str] = field(default_factory=list)
    run: int = 0  # uncovered words in a row
    alignment: Alignment | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def clean(self) -> str:
        return self.sentence.clean

    @property
    def text(self) -> str:
        return self.sentence.text


@dataclass
class Verification:
    """The verdict on a draft: each sentence, the checks for the Trace, and what may be shown."""

    sentences: list[SentenceVerdict]
    checks: list[Check]
    text: str  # the kept sentences as written, markers renumbered
    cited: tuple[int, ...]  # context positions in the order of the shown numbers
    ms: float
    cpu_ms: float = 0.0  # this thread's CPU time: the cost without waiting for a busy machine

    @property
    def clean(self) -> bool:
        return bool(self.sentences) and all(s.ok for s in self.sentences)

    @property
    def claims(self) -> list[SentenceVerdict]:
        """Kept sentences that claim something (not only what the sources do not say)."""
        return [s for s in self.sentences if s.ok and not s.meta]

    def caught(self) -> dict[str, int]:
        """How many sentences each check rejected."""
        return {name: sum(name in s.problems for s in self.sentences) for name in CHECK_NAMES}


class Verifier:
    """Checks drafts against their evidence; configured once, used for every answer."""

    def __init__(
        self,
        support_threshold: float = DEFAULT_SUPPORT_THRESHOLD,
        max_uncovered: int = MAX_UNCOVERED,
        max_run: int = MAX_RUN,
    ) -> None:
        self.support_threshold = support_threshold
        self.max_uncovered = max_uncovered
        self.max_run = max_run

    def verify(
        self, answer: str, evidence: Evidence, json_citations: Sequence[int] = ()
    ) -> Verification:
        """Check every sentence of `answer`, whose `[n]` are 1-based context positions."""
        started, cpu_started = time.perf_counter(), time.thread_time()
        verdicts = [self._read(s, evidence, json_citations) for s in draft_sentences(answer)]
        claims = [v for v in verdicts if v.alignment is not None]
        wanted = [w for v in claims for w in v.alignment.missing]  # type: ignore[union-attr]
        vectors = evidence.lexicon.lookup(wanted)
        for verdict in claims:
            self._support(verdict, vectors)
        text, cited = shown(verdicts, answer)
        ms = (time.perf_counter() - started) * 1000.0
        cpu_ms = (time.thread_time() - cpu_started) * 1000.0
        return Verification(verdicts, self._checks(verdicts, ms), text, cited, ms, cpu_ms)

    def _read(
        self, sentence: DraftSentence, evidence: Evidence, json_citations: Sequence[int]
    ) -> SentenceVerdict:
        """Everything but the word-vector coverage, which waits for one embedding call."""
        cited, outside = sentence.cites(len(evidence), json_citations)
        verdict = SentenceVerdict(sentence, cited)
        injected = instruction_in(sentence.clean) or _recites(sentence.clean, evidence.rules)
        if injected:
            verdict.problems["instructions"] = injected
        meta, claims = meta_clauses(sentence.clean)
        if meta and not any(read(c, evidence.subject, claim=True).stems for c in claims):
            verdict.meta = True  # says only what the sources do not cover
            verdict.cited = cited if sentence.markers else ()
            return verdict
        if outside:
            verdict.problems["citations"] = (
                f"cites {outside} but the context has {len(evidence)} section(s)"
            )
        elif not cited:
            verdict.problems["citations"] = "no citation"
        if verdict.problems.get("citations"):
            return verdict
        claim = read(" ".join(claims) if meta else sentence.clean, evidence.subject, claim=True)
        alignment = align(claim, cited, evidence)
        verdict.alignment = alignment
        self._figures_and_names(verdict, alignment, evidence)
        disagreement = conflict(
            claim.stance, [r.stance for r in alignment.sentences], _around(alignment, evidence)
        )
        if disagreement:
            verdict.problems["polarity"] = disagreement
        return verdict

    @staticmethod
    def _figures_and_names(
        verdict: SentenceVerdict, alignment: Alignment, evidence: Evidence
    ) -> None:
        figures = [
            *alignment.figures(),
            *(f for r in _beside(alignment, evidence) for f in r.facts),
        ]
        claim = alignment.claim
        missing = [
            claim.text[f.start : f.end] for f in claim.facts if not f.weak and not holds(f, figures)
        ]
        if missing:
            verdict.problems["numbers"] = _missing(missing)
        else:
            backwards = reversed_change(claim.text, [r.text for r in alignment.sentences])
            if backwards:
                verdict.problems["numbers"] = f"reverses the change its source states: {backwards}"
        known = frozenset().union(*(evidence.sections[p].words for p in verdict.cited))
        known |= evidence.subject | evidence.asked  # a name the question gives may be repeated
        figures_at = claim.facts
        unknown = [
            n.text
            for n in names(claim.text)
            if not _inside(n.start, figures_at) and not _known_name(n.text, known)
        ]
        if unknown:
            verdict.problems["names"] = _missing(unknown)
        elif not missing:
            swapped = unbound(claim, alignment, evidence.subject)
            if swapped:
                verdict.problems["names"] = swapped

    def _support(self, verdict: SentenceVerdict, vectors: dict[str, np.ndarray]) -> None:
        alignment = verdict.alignment
        if alignment is None:
            return
        coverage, uncovered = soft_coverage(alignment, vectors)
        run = longest_run(alignment.claim.text, uncovered)
        verdict.coverage, verdict.uncovered, verdict.run = coverage, uncovered, run
        if (
            (coverage < self.support_threshold and len(uncovered) > 1)
            or len(uncovered) > self.max_uncovered
            or run > self.max_run
        ):
            verdict.problems.setdefault(
                "support",
                f"coverage {coverage:.2f} (least {self.support_threshold:.2f}); "
                f"not in its sources: {', '.join(uncovered) or '-'} ({run} in a row)",
            )

    def _checks(self, verdicts: list[SentenceVerdict], ms: float) -> list[Check]:
        checks = []
        for name in CHECK_NAMES:
            failed = [
                f"sentence {i}: {v.problems[name]}"
                for i, v in enumerate(verdicts, 1)
                if name in v.problems
            ]
            detail = "; ".join(failed) if failed else f"{len(verdicts)} sentence(s) pass"
            checks.append(Check(f"verify_{name}", not failed, detail))
        meta = sum(v.meta for v in verdicts)
        checks.append(
            Check(
                "verify_summary",
                bool(verdicts) and all(v.ok for v in verdicts),
                f"{sum(v.ok for v in verdicts)} of {len(verdicts)} sentence(s) verified "
                f"({meta} about what the sources do not say) in {ms:.1f} ms; coverage "
                f"[{', '.join(f'{v.coverage:.2f}' for v in verdicts if not v.meta)}]",
            )
        )
        return checks


def shown(verdicts: Sequence[SentenceVerdict], answer: str) -> tuple[str, tuple[int, ...]]:
    """The kept sentences as written, citations renumbered by first use, and the context
    positions in the order of their new numbers."""
    numbers: dict[int, int] = {}
    kept = [(v.sentence, renumbered(v.sentence, numbers, v.cited)) for v in verdicts if v.ok]
    return join(kept, answer), tuple(sorted(numbers, key=numbers.__getitem__))


def unbound(claim: Reading, alignment: Alignment, subject: frozenset[str]) -> str:
    """A name swapped for another beside a figure: the claim's clause names X with a figure
    whose source clause names Y instead, and Y nowhere in the claim ("orders from
    Hebrew-language sessions grew to 8%" against "orders from Arabic-language sessions grew to
    8%, and the Hebrew locale ...")."""
    source_clauses = [c for r in alignment.sentences for c in clauses(r.text)]
    everywhere = claim.lower
    for clause in clauses(claim.text):
        figures = [f for f in facts(clause) if not f.weak]
        mentioned = _names(clause) - subject
        if not figures or not mentioned:
            continue
        for source in source_clauses:
            if not any(holds(f, facts(source)) for f in figures):
                continue
            named = _names(source) - subject
            instead = sorted(n for n in named if not _known(n, everywhere))
            added = sorted(n for n in mentioned if not _known(n, named))
            if instead and added:
                said = f"{', '.join(added)} where its source says {', '.join(instead)}"
                return f"says {said} ({clause_figures(clause, figures)})"
    return ""


def _names(text: str) -> frozenset[str]:
    """The names of a text, lower-case, figures (month names) left out."""
    figures = facts(text)
    return frozenset(n.lower for n in names(text) if not _inside(n.start, figures))


def clause_figures(clause: str, figures: list[Fact]) -> str:
    return ", ".join(clause[f.start : f.end] for f in figures)


def _inside(position: int, figures: Sequence[Fact]) -> bool:
    return any(f.start <= position < f.end for f in figures)


def _recites(sentence: str, rules: str) -> str:
    """Whether a sentence repeats the model's own instructions ("Use only the sources.")."""
    words = " ".join(sentence.lower().strip(" .!?").split())
    if rules and len(words.split()) >= 3 and words in rules:
        return f"repeats the model's instructions: '{sentence[:60]}'"
    return ""


def _beside(alignment: Alignment, evidence: Evidence) -> list[Reading]:
    """The aligned sentences' neighbours: where a source gives a fact's reason, or the year of
    a paper it has just named."""
    found: dict[tuple[int, int], Reading] = {}
    for position, index in alignment.places:
        sentences = evidence.sections[position].sentences
        for near in (index - 1, index + 1):
            if 0 <= near < len(sentences) and (position, near) not in alignment.places:
                found[(position, near)] = sentences[near]
    return list(found.values())


def _around(alignment: Alignment, evidence: Evidence) -> str:
    """The aligned sentences and their neighbours, as one text."""
    texts = [r.text for r in alignment.sentences] + [r.text for r in _beside(alignment, evidence)]
    return " ".join(dict.fromkeys(texts))


def _missing(items: list[str]) -> str:
    return f"not in its sources: {', '.join(dict.fromkeys(items))}"


def _known(name: str, known: frozenset[str]) -> bool:
    parts = [p for p in name.replace("/", "-").split("-") if p]
    return name in known or (len(parts) > 1 and all(p in known for p in parts))


def _known_name(name: str, known: frozenset[str]) -> bool:
    """Whether the sources use a name, as written or in a form a writer would change: plural
    ("vCPUs"), punctuation ("Next.js", "Nextjs"), a derived word ("Japanese", "Bayesian"), or
    only its capitalised parts ("Bayes-style")."""
    lower = _POSSESSIVE.sub("", name.lower())
    if _known(lower, known) or lower.removesuffix("s") in known:
        return True
    squashed = _squash(lower)
    if squashed in {_squash(k) for k in known}:
        return True
    if any(lower.startswith(k) and len(lower) - len(k) <= 4 for k in known if len(k) >= 4):
        return True
    capitals = [p.lower() for p in re.split(r"[-/]", name) if p[:1].isupper()]
    return 0 < len(capitals) < len(re.split(r"[-/]", name)) and all(c in known for c in capitals)


def _squash(word: str) -> str:
    return re.sub(r"[.\-_'’]", "", word)
