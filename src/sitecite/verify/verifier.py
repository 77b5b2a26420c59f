"""The verifier: reads a draft like a careful editor, sentence by sentence, against exactly the
sections the model was given, and keeps only what they support.

For each sentence of a draft:

- `citations`: every `[n]` is a section of the context; a sentence without markers is read
  against the reply's citation list; a claim with neither fails;
- a sentence that only says what the sources do not cover ("The site doesn't mention
  Kubernetes") passes as what it is; its other clauses ("; he runs Proxmox VE [1]") are
  claims like any other;
- each claim is aligned to the cited source sentences it rests on (sitecite.verify.align) and
  read by the exact checks (sitecite.verify.checks: `numbers`, `names`, `polarity`); what they
  find, with how much of the claim its sources cover and how it compares with the answer's
  other claims (sitecite.verify.features) and the support reader's reading of the claim
  against the source sentences it rests on (sitecite.verify.support_reader, a model trained
  here), goes to the fitted support model (sitecite.verify.model), which drops the claim when
  it is likely unsupported (`support`, or the check that found something); a few exact checks
  are fatal on their own;
- `instructions`: no sentence gives orders or repeats planted text.

A quoted reply's sentences (`verify_quoted`) carry the words they copied from each source:
`quotes` finds each in its source, and its figures, names and stance must be borne by them
(sitecite.verify.quoted) before the support model reads the claim against the sentences
its quotes stand in.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from sitecite.errors import SiteciteError
from sitecite.injection import instruction_in
from sitecite.types import Check
from sitecite.verify.align import Alignment, align, longest_run, soft_coverage
from sitecite.verify.checks import fatal, findings, recites
from sitecite.verify.draft import (
    DraftSentence,
    draft_sentences,
    join,
    meta_clauses,
    renumbered,
    with_markers,
)
from sitecite.verify.features import lexical_features, relative, uncited_gain
from sitecite.verify.model import QUOTED_MODEL_FILE, SupportModel, shipped_model
from sitecite.verify.quoted import (
    RELATIVE_QUOTED,
    QuotedSentence,
    bearing,
    locate_cites,
    places,
    quote_features,
    quote_problems,
    unborne,
)
from sitecite.verify.quotes import Located
from sitecite.verify.sources import Evidence, Reading, read
from sitecite.verify.support_reader import READ, SupportReader, default_support_reader

CHECK_NAMES = ("citations", "quotes", "numbers", "names", "polarity", "support", "instructions")
QUOTE_SCOPES = ("quotes", "sections")


@dataclass
class SentenceVerdict:
    """One sentence of the draft and what was found wrong with it (nothing: it is shown)."""

    sentence: DraftSentence
    cited: tuple[int, ...]
    meta: bool = False
    problems: dict[str, str] = field(default_factory=dict)
    findings: dict[str, str] = field(default_factory=dict)  # the exact checks', for the model
    coverage: float = 1.0
    uncovered: list[str] = field(default_factory=list)
    run: int = 0  # uncovered words in a row
    elsewhere: float = 0.0  # how much more of it an uncited section says (uncited_gain)
    features: dict[str, float] | None = field(default=None, repr=False)  # the model's inputs
    probability: float = 0.0  # of being unsupported, by the support model
    alignment: Alignment | None = field(default=None, repr=False)
    quotes: list[Located] = field(default_factory=list)  # a quoted sentence's, located
    quoted: dict[str, float] | None = field(default=None, repr=False)  # its quotes' features
    grounds: str = field(default="", repr=False)  # the source words it is read against

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
    quotes: tuple[tuple[str, ...], ...] = ()  # per entry of `cited`, the source words quoted

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
    """Checks drafts against their evidence; configured once, used for every answer.

    `threshold` overrides the support model's own (a probability of being unsupported);
    `decide=False` records every claim's features without dropping any for support (what
    training/train_verifier.py fits the model on); `quote_scope` is what the support model reads
    a quoted sentence against: the sentences its quotes stand in (`quotes`) or its cited
    sections whole (`sections`, as for an unquoted reply)."""

    def __init__(
        self,
        threshold: float | None = None,
        model: SupportModel | None = None,
        decide: bool = True,
        quote_scope: str = "quotes",
        quoted_model: SupportModel | None = None,
        support_reader: SupportReader | None = None,
    ) -> None:
        if quote_scope not in QUOTE_SCOPES:
            raise ValueError(f"quote_scope is {quote_scope!r}, not one of {QUOTE_SCOPES}")
        self.model = model or shipped_model()
        self.quoted_model = quoted_model or shipped_model(QUOTED_MODEL_FILE)
        self.threshold = self.model.threshold if threshold is None else threshold
        self.quoted_threshold = self.quoted_model.threshold if threshold is None else threshold
        self.decide = decide
        self.quote_scope = quote_scope
        self.support_reader = support_reader
        if support_reader is None and self.reads_support:
            self.support_reader = default_support_reader()
            if self.support_reader is None:
                raise SiteciteError(
                    f"the verifier's models read '{READ}', and this package has no support "
                    "reader (fit it: python -m training.train_support --write)"
                )

    @property
    def reads_support(self) -> bool:
        """Whether either model reads the support reader's column."""
        return READ in (*self.model.features, *self.quoted_model.features)

    def verify(
        self, answer: str, evidence: Evidence, json_citations: Sequence[int] = ()
    ) -> Verification:
        """Check every sentence of `answer`, whose `[n]` are 1-based context positions."""
        started, cpu_started = time.perf_counter(), time.thread_time()
        verdicts = [self._read(s, evidence, json_citations) for s in draft_sentences(answer)]
        return self._finish(verdicts, evidence, answer, started, cpu_started)

    def verify_quoted(
        self, sentences: Sequence[QuotedSentence], evidence: Evidence
    ) -> Verification:
        """Check every sentence of a quoted reply, whose sources are 1-based context
        positions: its quotes, what they bear, and the rest by the support model."""
        started, cpu_started = time.perf_counter(), time.thread_time()
        verdicts, answer = [], ""
        for sentence in sentences:
            located, outside = locate_cites(sentence, evidence)
            sources = [c.source for c in sentence.cites if c.source and c.source not in outside]
            sources += [q.found.position + 1 for q in located if q.cited is None and q.found]
            text = with_markers(sentence.text, sources)
            start = len(answer) + 1 if answer else 0
            answer = f"{answer} {text}" if answer else text
            draft = DraftSentence(text, start, tuple(dict.fromkeys(sources)), sentence.text)
            verdicts.append(self._read_quoted(draft, sentence, located, outside, evidence))
        return self._finish(verdicts, evidence, answer, started, cpu_started)

    def _finish(
        self,
        verdicts: list[SentenceVerdict],
        evidence: Evidence,
        answer: str,
        started: float,
        cpu_started: float,
    ) -> Verification:
        """The support model over every claim, and what is left to show."""
        claims = [v for v in verdicts if v.alignment is not None]
        if claims:
            self._measure(claims, evidence)
        if self.decide:
            for verdict in claims:
                self._decide(verdict)
        text, cited = shown(verdicts, answer)
        ms = (time.perf_counter() - started) * 1000.0
        cpu_ms = (time.thread_time() - cpu_started) * 1000.0
        checks = self._checks(verdicts, ms)
        quotes = quoted_words(verdicts, cited)
        return Verification(verdicts, checks, text, cited, ms, cpu_ms, quotes)

    def _measure(self, claims: list[SentenceVerdict], evidence: Evidence) -> None:
        """Every claim's features, and the model's probability that it is unsupported."""
        wanted = [w for v in claims for w in v.alignment.missing]  # type: ignore[union-attr]
        vectors = evidence.lexicon.lookup(wanted)
        for verdict in claims:
            alignment = verdict.alignment
            assert alignment is not None
            coverage, uncovered = soft_coverage(alignment, vectors)
            run = longest_run(alignment.claim.text, uncovered)
            verdict.coverage, verdict.uncovered, verdict.run = coverage, uncovered, run
            if not verdict.grounds:  # an unquoted claim: the one or two sentences it rests on
                verdict.grounds = " ".join(r.text for r in alignment.sentences[:2])
            verdict.features = lexical_features(
                alignment.claim,
                verdict.findings,
                (coverage, len(uncovered), run),
                verdict.elsewhere,
                alignment.sentences[:2],
                evidence,
            )
        self._read_support([v for v in claims if v.features is not None])
        features = [v.features for v in claims if v.features is not None]
        relative(features)
        quoted = [v.features for v in claims if v.quoted is not None and v.features is not None]
        for verdict in claims:
            if verdict.quoted is not None and verdict.features is not None:
                verdict.features.update(verdict.quoted)
        relative(quoted, RELATIVE_QUOTED, count=False)
        for model, chosen in (
            (self.model, [v for v in claims if v.quoted is None]),
            (self.quoted_model, [v for v in claims if v.quoted is not None]),
        ):
            if not chosen:
                continue
            measured = [v.features for v in chosen if v.features is not None]
            for verdict, probability in zip(chosen, model.probability(measured), strict=True):
                verdict.probability = float(probability)

    def _read_support(self, claims: list[SentenceVerdict]) -> None:
        """The support reader's logit of each claim against its grounds, in one model run, when
        a model reads it (sitecite.verify.support_reader)."""
        if not claims or self.support_reader is None or not self.reads_support:
            return
        logits = self.support_reader.logits([(v.clean, v.grounds) for v in claims])
        for verdict, logit in zip(claims, logits, strict=True):
            assert verdict.features is not None
            verdict.features[READ] = float(logit)

    def _decide(self, verdict: SentenceVerdict) -> None:
        """Drop a claim its model finds more likely unsupported than its threshold, saying
        what the exact checks found, or else which features weighed most."""
        quoted = verdict.quoted is not None
        model = self.quoted_model if quoted else self.model
        threshold = self.quoted_threshold if quoted else self.threshold
        if verdict.probability < threshold or verdict.features is None:
            return
        if verdict.findings:
            verdict.problems.update(verdict.findings)
            return
        why = ", ".join(model.weakest(verdict.features))
        verdict.problems["support"] = (
            f"P(unsupported) {verdict.probability:.2f} >= {threshold:.2f} ({why}); "
            f"coverage {verdict.coverage:.2f}, not in its sources: "
            f"{', '.join(verdict.uncovered) or '-'}"
        )

    def _read(
        self, sentence: DraftSentence, evidence: Evidence, json_citations: Sequence[int]
    ) -> SentenceVerdict:
        """Everything but the word-vector coverage, which waits for one embedding call."""
        cited, outside = sentence.cites(len(evidence), json_citations)
        verdict = SentenceVerdict(sentence, cited)
        claim = _screened(verdict, evidence, outside)
        if claim is None:
            return verdict
        alignment = align(claim, cited, evidence)
        verdict.alignment = alignment
        verdict.findings = findings(alignment, cited, evidence)
        verdict.elsewhere = uncited_gain(claim, cited, evidence)
        verdict.problems |= fatal(alignment, cited, evidence, verdict.elsewhere)
        return verdict

    def _read_quoted(
        self,
        sentence: DraftSentence,
        quoted: QuotedSentence,
        located: list[Located],
        outside: list[int],
        evidence: Evidence,
    ) -> SentenceVerdict:
        """A quoted sentence: its quotes found, what they bear, the rest for the model. A
        sentence citing some source without a quote is read like an unquoted one."""
        cited = tuple(dict.fromkeys(n - 1 for n in sentence.markers))
        verdict = SentenceVerdict(sentence, cited, quotes=located)
        verdict.problems |= quote_problems(located)
        claim = _screened(verdict, evidence, outside)
        if claim is None or verdict.problems.get("quotes"):
            return verdict
        if quoted.unquoted or not located:
            alignment = align(claim, cited, evidence)
            verdict.elsewhere = uncited_gain(claim, cited, evidence)
            gain = verdict.elsewhere
        else:
            # where its quotes stand settles which source it rests on (no uncited_gain)
            scope = places(located) if self.quote_scope == "quotes" else None
            verdict.alignment = align(claim, cited, evidence, scope)
            borne = bearing(located, cited, evidence)
            failed, verdict.findings = unborne(claim, borne)
            verdict.problems |= failed
            verdict.quoted = quote_features(claim, borne, evidence)
            verdict.grounds = borne.sentences
            verdict.problems |= fatal(verdict.alignment, cited, evidence, 0.0)
            return verdict
        verdict.alignment = alignment
        verdict.findings = findings(alignment, cited, evidence)
        verdict.problems |= fatal(alignment, cited, evidence, gain)
        return verdict

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
                f"({meta} about what the sources do not say) in {ms:.1f} ms; P(unsupported) "
                f"[{', '.join(f'{v.probability:.2f}' for v in verdicts if not v.meta)}]",
            )
        )
        return checks


def _screened(
    verdict: SentenceVerdict, evidence: Evidence, outside: Sequence[int]
) -> Reading | None:
    """The claim a sentence makes, or None when there is none to align: it only
    says what the sources do not cover, or its citations fail."""
    sentence = verdict.sentence
    injected = instruction_in(sentence.clean) or recites(sentence.clean, evidence.rules)
    if injected:
        verdict.problems["instructions"] = injected
    meta, claims = meta_clauses(sentence.clean)
    if meta and not any(read(c, evidence.subject, claim=True).stems for c in claims):
        verdict.meta = True  # says only what the sources do not cover
        verdict.cited = verdict.cited if sentence.markers else ()
        verdict.problems.pop("quotes", None)
        verdict.problems.pop("citations", None)
        return None
    if outside:
        verdict.problems["citations"] = (
            f"cites {list(outside)} but the context has {len(evidence)} section(s)"
        )
    elif not verdict.cited and "quotes" not in verdict.problems:
        verdict.problems["citations"] = "no citation"
    if verdict.problems.get("citations"):
        return None
    return read(" ".join(claims) if meta else sentence.clean, evidence.subject, claim=True)


def quoted_words(
    verdicts: Sequence[SentenceVerdict], cited: Sequence[int]
) -> tuple[tuple[str, ...], ...]:
    """Per shown citation, the source words its kept sentences quoted."""
    words: dict[int, list[str]] = {position: [] for position in cited}
    for verdict in verdicts:
        if not verdict.ok:
            continue
        for quote in verdict.quotes:
            found = quote.found
            if found and found.position in words and found.text not in words[found.position]:
                words[found.position].append(found.text)
    return tuple(tuple(words[position]) for position in cited)


def shown(verdicts: Sequence[SentenceVerdict], answer: str) -> tuple[str, tuple[int, ...]]:
    """The kept sentences as written, citations renumbered by first use, and the context
    positions in the order of their new numbers."""
    numbers: dict[int, int] = {}
    kept = [(v.sentence, renumbered(v.sentence, numbers, v.cited)) for v in verdicts if v.ok]
    return join(kept, answer), tuple(sorted(numbers, key=numbers.__getitem__))
