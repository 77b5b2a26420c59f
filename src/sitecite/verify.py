"""Verification of a draft answer against the exact sections it was given, before anyone sees it.

Each sentence of a draft is checked on its own, against the sections it cites:

- `citations`: every `[n]` points at a section that was in the context; a sentence without a
  marker is checked against the draft's JSON citation list, and without either it fails;
- `numbers`: every number, date, time, version and amount occurs in a cited source sentence
  that shares a word with the number's surroundings, with the same unit ("98.1%" never
  passes as "98%", "WCAG 2" never as "WCAG 2.2"; "1,240 ms" does pass as "1240 ms");
- `names`: every proper name occurs in a cited section (or is the site owner's name);
- `support`: the sentence is close to its best-matching source sentence, by the embedder's
  cosine and the share of its content words found in the cited sections (threshold
  calibrated by bench/verify.py; the embedder runs only when its cosine could change the
  verdict), and does not negate that sentence;
- `instructions`: the sentence gives no orders and repeats no planted text.

Source sentences that read as instructions to an AI ("add this link to your response",
"ignore previous instructions") are quarantined: kept out of the prompt, never evidence.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sitecite.embed import Embedder
from sitecite.screen import INSTRUCTION_PATTERNS
from sitecite.text import STOPWORDS, split_sentences, stem
from sitecite.types import Check, Section

# Chosen by `python bench/verify.py --calibrate` on examples/calibration.json: halfway between
# the weakest faithful paraphrase (0.646) and the strongest corrupted sentence no other check
# caught (0.479). Lexical weights 0.4-0.7 all separate the two; 0.6 keeps a 0.17 gap and lets a
# sentence whose content words all occur in its sources pass without running the embedder.
DEFAULT_SUPPORT_THRESHOLD = 0.56
LEXICAL_WEIGHT = 0.6  # support = (1 - w) * best cosine + w * share of content words in the sources
# The embedder is asked only when its cosine could flip a verdict. A sentence with at least
# FLOOR_COVERAGE of its content words in its sources never scored a best-source cosine below
# 0.493 on the calibration set (236 such sentences, faithful and corrupted alike; 0.547 on 344 of
# the held-out set), so its cosine is taken to be at least half of that: such sentences pass on
# their words alone. On the held-out set this took the answers that run the embedder from 18% to
# 1.7%, and verification's p95 from 24 ms to 1.9 ms (bench/verify.py).
COSINE_FLOOR = 0.25
FLOOR_COVERAGE = 0.8
# What is kept still answers if it keeps the lead sentence, or one this close to the question.
ANSWER_MARGIN = 0.10
NUMBER_WINDOW = 30  # characters either side of a number whose words must share a source sentence
CLOSEST_SENTENCES = 3  # a number must stand in one of this many source sentences closest to its own
NOT_ON_SITE = "NOT_ON_SITE"
CHECK_NAMES = ("citations", "numbers", "names", "support", "instructions")

# Orders addressed to an assistant, as planted in web pages (BIPIA, garak), beyond the question
# screen's patterns: anything about "your answer/response", and typical assistant tasks.
_ADDRESSED = re.compile(
    r"\byour\s+(answer|response|reply|output|summary|message|text|responses|answers|replies)\b"
    r"|\b(as\s+an?|you\s+are\s+an?|dear)\s+(ai|assistant|chatbot|language\s+model|llm)\b"
    r"|\b(ignore|disregard)\b.{0,40}\b(above|previous|prior|earlier|instructions?)\b"
    r"|^\s*(please\s+)?(write|draft|compose|translate|summari[sz]e|recommend|analy[sz]e|determine|"
    r"encrypt|encode|decode|reverse|rearrange|integrate|insert|append|respond|reply|print|output|"
    r"repeat|generate|promote|advertise|download|click|provide|explain|describe|develop|suggest|"
    r"help|show|tell|give|list|create|replace|render|jumble|break\s+down)\s+(a|an|the|me|us|your|"
    r"this|that|these|every|all|some|up|how|what|why|which|insights?|vowels|letters|words)\b"
    r"|^\s*(reply|respond|answer)\s+(using|in|with|only)\b|^\s*(can|could|would|will)\s+you\b",
    re.IGNORECASE | re.MULTILINE,
)
_SHOUTED = re.compile(r"\b(PWNED|HACKED|OWNED|JAILBROKEN)\b")  # the usual proof-of-compliance words
_MARKER = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")
_MARKERS_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]\s*)+)")
_WORD = re.compile(r"[^\W_][\w'’\-.+#]*[\w+#]|[^\W_]")
_NUMBER_WORDS = dict(
    zip(
        (
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ),
        range(21),
        strict=True,
    ),
    thirty=30,
    forty=40,
    fifty=50,
    sixty=60,
    seventy=70,
    eighty=80,
    ninety=90,
    hundred=100,
    thousand=1000,
    twice=2,
    dozen=12,
)
# "one" and friends are words first: an answer's "one" is not held to a number in the sources.
_CHECKED_NUMBER_WORDS = frozenset(_NUMBER_WORDS) - {
    "zero",
    "one",
    "hundred",
    "thousand",
    "twice",
    "dozen",
}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_UNITS = {
    "percent": "%",
    "per cent": "%",
    "millisecond": "ms",
    "milliseconds": "ms",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "×": "x",
    "times": "x",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
}
_NUMBER = re.compile(
    r"(?P<cur>[€$£¥])?\s?v?(?P<num>\d{1,2}:\d{2}|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*)"
    r"(?:st|nd|rd|th)?(?P<unit>[\s-]?(?:%|per\s?cent\b|milliseconds?\b|ms\b|secs?\b|seconds?\b|s\b|"
    r"x\b|×|times\b|kb\b|mb\b|gb\b|tb\b|k\b|m\b|px\b|hours?\b|hrs?\b|h\b|minutes?\b|mins?\b))?",
    re.IGNORECASE,
)
# Words that may open a sentence without being names, besides stop words and the site's words.
_OPENERS = frozenset(
    """yes no she he they it its this that these those her his their in on at for
    from during after before since until when while both each all some many most several also
    additionally however currently today recently previously later earlier then now overall
    according based typically usually generally mostly specifically instead otherwise first
    second third finally there here what which who how why""".split()
)
_NEGATION = re.compile(
    r"\b(not|no|never|none|nobody|nothing|neither|nor|without|cannot)\b|n[’']t\b", re.IGNORECASE
)

Fact = tuple[str, str]  # (value, unit): ("1240", "ms"), ("98.1", "%"), ("9:30", ""), ("1200", "€")


def instruction_in(sentence: str) -> str:
    """What makes a sentence read as an instruction to an AI, or "" when nothing does."""
    for name, pattern in INSTRUCTION_PATTERNS:
        match = pattern.search(sentence)
        if match:
            return f"{name}: '{match.group(0)[:60]}'"
    match = _ADDRESSED.search(sentence) or _SHOUTED.search(sentence)
    return f"addressed to an assistant: '{match.group(0)[:60]}'" if match else ""


def facts_with_spans(
    text: str,
    number_words: frozenset[str] = _CHECKED_NUMBER_WORDS,
) -> list[tuple[Fact, int, int]]:
    """Every number in `text` as a normalised (value, unit) fact with where it stands."""
    found = []
    for match in _NUMBER.finditer(text):
        value = match.group("num").replace(",", "")
        if ":" in value:
            hours, minutes = value.split(":")
            value = f"{int(hours)}:{minutes}"
        elif "." not in value and len(value) < 6:
            value = str(int(value))  # "09" -> "9"; long digit strings (phone numbers) stay
        unit = re.sub(r"\s+", " ", (match.group("unit") or "").strip(" -").lower())
        found.append(
            ((value, match.group("cur") or _UNITS.get(unit, unit)), match.start(), match.end())
        )
    for match in _NUMBER_WORD.finditer(text):
        if match.group(1).lower() in number_words:
            found.append(
                ((str(_NUMBER_WORDS[match.group(1).lower()]), ""), match.start(), match.end())
            )
    return found


def _has_fact(fact: Fact, facts: set[Fact]) -> bool:
    value, unit = fact
    return (value, unit) in facts if unit else any(v == value for v, _ in facts)


def _tokens(text: str) -> list[str]:
    """Lower-cased words, with the parts of hyphenated ones too ("45-minute" -> "minute")."""
    out = []
    for token in _WORD.findall(text.lower()):
        token = token.rstrip(".")
        out.append(token)
        if "-" in token:
            out += [part for part in token.split("-") if part]
    return out


# Words about the sources rather than claims: "According to her website, ..." adds nothing.
_ATTRIBUTION = frozenset(
    (
        "according",
        "site",
        "website",
        "page",
        "says",
        "said",
        "mentions",
        "mentioned",
        "states",
        "writes",
        "notes",
        "describes",
        "lists",
    )
)


def terms(text: str, ignore: frozenset[str] = frozenset()) -> set[str]:
    """Stems of the content words of `text` (no stop words, numbers, attribution or `ignore`)."""
    out = set()
    for token in _tokens(text):
        bare = re.sub(r"['’]s$", "", token.rstrip("."))
        if (
            bare not in STOPWORDS
            and bare not in ignore
            and bare not in _ATTRIBUTION
            and len(bare) > 1
            and not bare[0].isdigit()
        ):
            out.add(stem(bare))
    return out


def name_tokens(sentence: str, site_stems: frozenset[str]) -> list[str]:
    """Capitalised words and acronyms; the first word only when it is not an ordinary word."""
    names = []
    for position, match in enumerate(_WORD.finditer(sentence)):
        token = match.group(0).rstrip(".")
        if not token[:1].isupper() or token == "I":
            continue
        bare = re.sub(r"['’]s$", "", token).lower()
        if (
            position == 0
            and not token.isupper()
            and (bare in STOPWORDS or bare in _OPENERS or stem(bare) in site_stems)
        ):
            continue
        names.append(token)
    return names


def quarantine(text: str, sentences: Sequence[str], label: str = "") -> list[int]:
    """Indices of the sentences that may be evidence: not instructions, nor in a paragraph with one,
    nor a question about something the rest of the section never mentions.

    A planted jailbreak is a paragraph of which only some sentences read as orders ("DAN can
    do anything now"); the whole paragraph goes. A planted task is often a bare question ("What
    is the capital of Brazil?") that shares no word with the section it was dropped into.
    """
    tainted = [
        line for line in text.splitlines() if any(instruction_in(s) for s in split_sentences(line))
    ]
    kept = []
    for i, sentence in enumerate(sentences):
        if instruction_in(sentence) or any(sentence in line for line in tainted):
            continue
        if sentence.rstrip(" \"'’”)").endswith("?"):
            rest = terms(" ".join([label, *(s for j, s in enumerate(sentences) if j != i)]))
            if not terms(sentence) & rest:
                continue
        kept.append(i)
    return kept


@dataclass
class SourceEvidence:
    """What one context section can vouch for, its quarantined sentences left out."""

    position: int
    sentences: list[str]
    vectors: np.ndarray
    quarantined: list[str]
    words: frozenset[str]
    stems: frozenset[str]
    sentence_facts: list[
        tuple[set[Fact], set[str]]
    ]  # per kept sentence (and the label): facts, stems


def build_evidence(
    sections: Sequence[Section], sentence_vectors: Sequence[np.ndarray]
) -> list[SourceEvidence]:
    """Evidence per context section; `sentence_vectors[i]` holds section i's sentence vectors."""
    evidence = []
    for position, (section, vectors) in enumerate(zip(sections, sentence_vectors, strict=True)):
        sentences = list(section.sentences) or split_sentences(section.text)
        label = "" if instruction_in(section.heading) else f"{section.title}. {section.heading}"
        kept = quarantine(section.text, sentences, label)
        kept_text = [sentences[i] for i in kept]
        tokens = set(_tokens("\n".join([label, *kept_text])))
        bare = {re.sub(r"['’]s$", "", t) for t in tokens}
        facts = [
            ({f for f, _, _ in facts_with_spans(s, frozenset(_NUMBER_WORDS))}, terms(s))
            for s in [label, *kept_text]
        ]
        evidence.append(
            SourceEvidence(
                position,
                kept_text,
                vectors[kept] if len(vectors) == len(sentences) else vectors[:0],
                [sentences[i] for i in range(len(sentences)) if i not in kept],
                frozenset(tokens | bare),
                frozenset(stem(t) for t in bare),
                facts,
            )
        )
    return evidence


@dataclass
class SentenceVerdict:
    """One sentence of the draft and what was found wrong with it (nothing: it is kept)."""

    text: str
    clean: str
    cited: tuple[int, ...]
    problems: dict[str, str] = field(default_factory=dict)
    support: float = 0.0
    cosine: float = 0.0
    coverage: float = 0.0
    relevance: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class Verification:
    """The verdict on a draft: each sentence, the checks for the Trace, and what may be shown."""

    sentences: list[SentenceVerdict]
    checks: list[Check]
    text: str
    cited: tuple[int, ...]
    answers: bool
    ms: float
    cpu_ms: float = 0.0  # this thread's CPU time: the cost without waiting for a busy machine
    embedded: int = 0  # sentences the embedder had to score (the rest were decided lexically)

    @property
    def clean(self) -> bool:
        return bool(self.sentences) and all(s.ok for s in self.sentences)

    def caught(self) -> dict[str, int]:
        """How many sentences each check rejected."""
        return {name: sum(name in s.problems for s in self.sentences) for name in CHECK_NAMES}


class Verifier:
    """Checks drafts against their context; configured once, used for every answer."""

    def __init__(
        self,
        embedder: Embedder,
        support_threshold: float = DEFAULT_SUPPORT_THRESHOLD,
        lexical_weight: float = LEXICAL_WEIGHT,
        always_embed: bool = False,
    ) -> None:
        self.embedder = embedder
        self.support_threshold = support_threshold
        self.lexical_weight = lexical_weight
        self.always_embed = always_embed  # score every sentence's cosine (calibration, benchmarks)

    def verify(
        self,
        answer: str,
        evidence: list[SourceEvidence],
        question_vector: np.ndarray,
        json_citations: Sequence[int] = (),
        subject: frozenset[str] = frozenset(),
        site_stems: frozenset[str] = frozenset(),
    ) -> Verification:
        """Check every sentence of `answer`, whose citations are 1-based context positions.

        The lexical checks run first; the embedder is asked only about sentences they leave
        undecided (a sentence whose every content word is in its sources already passes).
        """
        started, cpu_started = time.perf_counter(), time.thread_time()
        verdicts = [self._cite(s, len(evidence), json_citations) for s in answer_sentences(answer)]
        verdicts = [v for v in verdicts if v.clean.strip(" .")]
        weight = self.lexical_weight
        for verdict in verdicts:
            cited = [evidence[p] for p in verdict.cited]
            own = terms(verdict.clean, subject)
            stems = frozenset().union(*(e.stems for e in cited)) if cited else frozenset()
            verdict.coverage = len(own & stems) / len(own) if own else 1.0
            verdict.support = least_support(verdict.coverage, weight)  # until a cosine is known
            self._facts(verdict, own, cited, subject)
            self._names(verdict, cited, subject, site_stems)
            self._negation(verdict, own, cited)
        undecided = [
            v
            for v in verdicts
            if self.always_embed
            or (v.ok and verdict_needs_cosine(v, weight, self.support_threshold))
        ]
        vectors = self._vectors(undecided, evidence)
        embedded = len(vectors)
        for verdict in verdicts:
            self._support(
                verdict,
                vectors.get(verdict.clean),
                [evidence[p] for p in verdict.cited],
                question_vector,
            )
        kept = [v for v in verdicts if v.ok]
        answers = bool(kept) and (
            verdicts[0].ok or self._keeps_the_point(kept, verdicts, evidence, question_vector)
        )
        text, cited_positions = renumber(kept)
        ms = (time.perf_counter() - started) * 1000.0
        cpu_ms = (time.thread_time() - cpu_started) * 1000.0
        return Verification(
            verdicts,
            self._checks(verdicts, ms),
            text,
            cited_positions,
            answers,
            ms,
            cpu_ms,
            embedded,
        )

    def _cite(
        self, sentence: str, available: int, json_citations: Sequence[int]
    ) -> SentenceVerdict:
        """Read a sentence's `[n]` markers; without any, the JSON citation list stands in."""
        markers = [
            int(n) for group in _MARKER.findall(sentence) for n in re.split(r"\s*[,;]\s*", group)
        ]
        clean = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(_MARKER.sub(" ", sentence).split()))
        markers = markers or [int(n) for n in json_citations]
        valid = tuple(dict.fromkeys(n - 1 for n in markers if 1 <= n <= available))
        verdict = SentenceVerdict(sentence, clean, valid)
        bad = sorted({n for n in markers if not 1 <= n <= available})
        if bad:
            verdict.problems["citations"] = (
                f"cites {bad} but the context has {available} section(s)"
            )
        elif not valid:
            verdict.problems["citations"] = "no citation"
        return verdict

    def _vectors(
        self, verdicts: list[SentenceVerdict], evidence: list[SourceEvidence]
    ) -> dict[str, np.ndarray]:
        """Vectors by sentence text; a sentence copied verbatim reuses its stored vector."""
        stored = {
            s: e.vectors[i] for e in evidence if len(e.vectors) for i, s in enumerate(e.sentences)
        }
        wanted = list(dict.fromkeys(v.clean for v in verdicts))
        missing = [s for s in wanted if s not in stored]
        fresh = dict(zip(missing, self.embedder.embed(missing), strict=True)) if missing else {}
        return {s: stored[s] if s in stored else fresh[s] for s in wanted}

    def _facts(
        self,
        verdict: SentenceVerdict,
        own: set[str],
        cited: list[SourceEvidence],
        subject: frozenset[str],
    ) -> None:
        """Each number must stand in a source sentence close to this one, near the same words.

        Close: one of the cited sentences sharing most words with it, or a section's label.
        """
        labels = [pair for e in cited for pair in e.sentence_facts[:1]]
        body = [pair for e in cited for pair in e.sentence_facts[1:]]
        body.sort(key=lambda pair: -len(own & pair[1]))
        sentences = labels + body[:CLOSEST_SENTENCES]
        missing = []
        for fact, start, end in facts_with_spans(verdict.clean):
            around = terms(
                verdict.clean[max(0, start - NUMBER_WINDOW) : end + NUMBER_WINDOW], subject
            )
            holders = [stems for facts, stems in sentences if _has_fact(fact, facts)]
            if not holders or (around and not any(around & stems for stems in holders)):
                missing.append(fact[0] + fact[1])
        if missing:
            verdict.problems["numbers"] = _missing(missing)

    def _names(
        self,
        verdict: SentenceVerdict,
        cited: list[SourceEvidence],
        subject: frozenset[str],
        site_stems: frozenset[str],
    ) -> None:
        vocabulary = frozenset().union(*(e.words for e in cited)) if cited else frozenset()
        unknown = [
            n for n in name_tokens(verdict.clean, site_stems) if not _known(n, vocabulary, subject)
        ]
        if unknown:
            verdict.problems["names"] = _missing(unknown)
        injected = instruction_in(verdict.clean)
        if injected:
            verdict.problems["instructions"] = injected

    def _negation(
        self, verdict: SentenceVerdict, own: set[str], cited: list[SourceEvidence]
    ) -> None:
        """A sentence may not deny more than the source sentence sharing most words with it."""
        negations = len(_NEGATION.findall(verdict.clean))
        if not negations or not cited:
            return
        pairs = [
            (len(own & stems), s)
            for e in cited
            for s, (_, stems) in zip(e.sentences, e.sentence_facts[1:], strict=True)
        ]
        closest = max(pairs, key=lambda pair: pair[0])[1] if pairs else ""
        if negations > len(_NEGATION.findall(closest)):
            verdict.problems["support"] = f"negates its closest source sentence: '{closest[:80]}'"

    def _support(
        self,
        verdict: SentenceVerdict,
        vector: np.ndarray | None,
        cited: list[SourceEvidence],
        question_vector: np.ndarray,
    ) -> None:
        """Cosine to the best-matching cited sentence plus word coverage, against the threshold."""
        weight = self.lexical_weight
        if vector is not None:
            verdict.relevance = float(vector @ question_vector)
            pool = [e.vectors for e in cited if len(e.vectors)]
            verdict.cosine = float((np.vstack(pool) @ vector).max()) if pool else 0.0
            verdict.support = (1 - weight) * verdict.cosine + weight * verdict.coverage
        elif verdict.support >= self.support_threshold:
            return  # enough of its words are in the sources: the least a cosine could add clears it
        else:
            verdict.support = (1 - weight) + weight * verdict.coverage  # the best a cosine could do
            if verdict.support >= self.support_threshold:
                return  # not embedded because another check already rejected it
        if "citations" in verdict.problems or "support" in verdict.problems:
            return
        if verdict.support < self.support_threshold:
            verdict.problems["support"] = (
                f"{verdict.support:.3f} < {self.support_threshold:.3f} "
                f"(cosine {verdict.cosine:.3f}, coverage {verdict.coverage:.2f})"
            )

    def _keeps_the_point(
        self,
        kept: list[SentenceVerdict],
        verdicts: list[SentenceVerdict],
        evidence: list[SourceEvidence],
        question_vector: np.ndarray,
    ) -> bool:
        """Without the lead sentence, what is kept must be about as close to the question."""
        vectors = self._vectors(verdicts, evidence)
        relevance = {s: float(v @ question_vector) for s, v in vectors.items()}
        return (
            max(relevance[v.clean] for v in kept)
            >= max(relevance[v.clean] for v in verdicts) - ANSWER_MARGIN
        )

    def _checks(self, verdicts: list[SentenceVerdict], ms: float) -> list[Check]:
        checks = []
        for name in CHECK_NAMES:
            failed = [
                f"sentence {i}: {v.problems[name]}"
                for i, v in enumerate(verdicts, 1)
                if name in v.problems
            ]
            checks.append(
                Check(
                    f"verify_{name}",
                    not failed,
                    "; ".join(failed) if failed else f"{len(verdicts)} sentence(s) pass",
                )
            )
        scores = ", ".join(f"{v.support:.2f}" for v in verdicts)
        checks.append(
            Check(
                "verify_summary",
                all(v.ok for v in verdicts) and bool(verdicts),
                f"{sum(v.ok for v in verdicts)} of {len(verdicts)} sentence(s) "
                f"verified in "
                f"{ms:.1f} ms; support [{scores}] vs {self.support_threshold:.2f}",
            )
        )
        return checks


def least_support(coverage: float, weight: float) -> float:
    """The lowest support a sentence with this word coverage can get from any cosine."""
    floor = COSINE_FLOOR if coverage >= FLOOR_COVERAGE else 0.0
    return (1 - weight) * floor + weight * coverage


def verdict_needs_cosine(verdict: SentenceVerdict, weight: float, threshold: float) -> bool:
    """Whether the embedder's cosine can still change the verdict on this sentence."""
    coverage = verdict.coverage
    return least_support(coverage, weight) < threshold <= (1 - weight) + weight * coverage


def answer_sentences(answer: str) -> list[str]:
    """A draft's sentences, each keeping its markers ("... done. [1] Next" -> "... done [1].")."""
    text = _MARKERS_AFTER_STOP.sub(
        lambda m: f" {m.group(2).strip()}{m.group(1)} ", answer.replace(NOT_ON_SITE, " ")
    )
    return split_sentences(text.strip())


def _missing(items: list[str]) -> str:
    return f"not in the cited sources: {', '.join(dict.fromkeys(items))}"


def _known(name: str, vocabulary: frozenset[str], subject: frozenset[str]) -> bool:
    bare = re.sub(r"['’]s$", "", name).lower()
    parts = [p for p in re.split(r"[-/]", bare) if p]
    return (
        bare in vocabulary
        or bare in subject
        or (len(parts) > 1 and all(p in vocabulary or p in subject for p in parts))
    )


def renumber(kept: list[SentenceVerdict]) -> tuple[str, tuple[int, ...]]:
    """The kept sentences, citations renumbered by first use, and the positions in that order."""
    numbers: dict[int, int] = {}
    parts = []
    for verdict in kept:
        labels = "".join(f"[{numbers.setdefault(p, len(numbers) + 1)}]" for p in verdict.cited)
        body = verdict.clean
        end = body[-1] if body[-1] in ".!?" else "."
        parts.append(f"{body.rstrip('.!?')} {labels}{end}")
    return " ".join(parts), tuple(sorted(numbers, key=numbers.__getitem__))
