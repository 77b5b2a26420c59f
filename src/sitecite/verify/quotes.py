"""Finding a model's quote in its sources, allowing the slips a model makes when it copies.

A quote is read as words: lower case, quote marks, dashes and other punctuation left out,
"&" read as "and", "1,240" as "1240", "U.S." as "US". A source is one stream of words, so a
quote may run across its line breaks (a label and its value, a table row). A quote is found in
a source when its content words stand there in the same order, next to each other (no
content word added, dropped or changed), and the small words around them differ by a few
(`small_edits`: "the" for "their", an "and" joining a list that the source joins with
commas; at a quote's edges, whichever of the source's small words there differ least). A
content word may differ as a copying slip does: the same stem ("rewrites" for "rewrite") or
one letter in a long word ("color" for "colour"), never a digit. "..." joins stretches of one
source that stand near each other (NEARBY words apart), in order. A quote may also copy a
source's title or heading.

What the source says in those places, in its own words, is what a visitor is shown as the
citation's quote, and what verification holds the sentence to (sitecite.verify.quoted).
Word-level differences are counted with rapidfuzz's Levenshtein distance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from sitecite.polarity import LICENSES_UNIVERSAL, MAJORITY, NEGATORS
from sitecite.tokens import STOPWORDS, stem

# Function words whose loss or swap changes what a stretch says: negations and quantities
# (sitecite.polarity), and words of comparison, order and direction. The other stop words
# (articles, pronouns, auxiliaries, most prepositions and conjunctions) are small words.
_BEARING = frozenset(
    """only than too more few some same other own again once before after against above below
    up down over under further off out""".split()
)
SMALL = STOPWORDS - NEGATORS - LICENSES_UNIVERSAL - MAJORITY - _BEARING
NEARBY = 40  # words between two stretches that "..." may join
LABEL = -1  # the sentence index of a source's title and heading
# A word may hold a point, comma or apostrophe ("Next.js", "1,240", "don't"), but a full stop
# with no space after it ends a lower-case word before a capital ("fragmentation.The").
_WORD = re.compile(r"[^\W_]+(?:(?:[,'’‘]|\.(?![A-Z][a-z]))[^\W_]+)*|&")
_INITIALS = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]?$")  # "u.s", "e.g": the same as "us", "eg"
_GROUPS = re.compile(r"(?<=\d),(?=\d{3})")
_DIGIT = re.compile(r"\d")
_ELLIPSIS = re.compile(r"\s*[\[(]?\s*(?:\.\s?\.\s?\.|…)\s*[\])]?\s*")


@dataclass(frozen=True)
class Word:
    """One word of a source: how quotes are compared with it, and where it stands."""

    norm: str
    sentence: int  # index in the section's sentences (LABEL for its title and heading)
    start: int  # character offsets in that sentence (or label)
    end: int


@dataclass(frozen=True)
class Found:
    """Where a quote stands in one source: its sentences, the source's own words, and what the
    model changed in copying them."""

    position: int  # context position of the section
    sentences: tuple[int, ...]  # indices of the sentences it spans (the label left out)
    text: str  # the source's words it matched ("…" between the stretches of an ellipsis)
    slips: tuple[str, ...]


@dataclass(frozen=True)
class Located:
    """One quote and where it was found: in the source it cites, only in others, or nowhere."""

    quote: str
    cited: int | None  # context position of the cited source (None: none given)
    found: Found | None  # in the cited source; or, for a quote citing none, wherever it is
    elsewhere: tuple[int, ...] = ()  # other context positions holding it

    @property
    def status(self) -> str:
        if self.found is not None:
            return "found"
        return "elsewhere" if self.elsewhere else "nowhere"


def norm(word: str) -> str:
    """A word as quotes are compared: lower case, curly apostrophes straight, digit groups
    joined ("1,240" -> "1240")."""
    lower = word.lower()
    if "’" in lower or "‘" in lower:
        lower = lower.replace("’", "'").replace("‘", "'")
    if "." in lower and _INITIALS.match(lower):
        return lower.replace(".", "")
    return _GROUPS.sub("", lower) if "," in lower else lower


def words(text: str) -> list[tuple[str, int, int]]:
    """(normalised word, start, end) of every word of a text; "&" is "and"."""
    out = []
    for match in _WORD.finditer(text):
        raw = match.group(0)
        out.append(("and" if raw == "&" else norm(raw), match.start(), match.end()))
    return out


@lru_cache(maxsize=4096)
def stream(label: str, sentences: tuple[str, ...]) -> tuple[tuple[Word, ...], tuple[Word, ...]]:
    """A section's words: (its label's, its sentences' in order)."""
    head = tuple(Word(w, LABEL, s, e) for w, s, e in words(label))
    body = tuple(Word(w, i, s, e) for i, text in enumerate(sentences) for w, s, e in words(text))
    return head, body


def locate(
    quote: str,
    cited: int | None,
    sections: Sequence[tuple[str, tuple[str, ...]]],
) -> Located:
    """Find `quote` in the cited section (0-based `cited`; None to search them all), and when
    it is not there, which other sections hold it. `sections` are (label, sentences) of the
    context, in order."""
    pieces = [p for p in _ELLIPSIS.split(quote) if words(p)]
    if not pieces:
        return Located(quote, cited, None)
    order = [cited] if cited is not None else list(range(len(sections)))
    for position in order:
        found = _in_section(pieces, position, sections[position])
        if found is not None:
            return Located(quote, cited, found)
    others = (
        ()
        if cited is None
        else tuple(
            p
            for p in range(len(sections))
            if p != cited and _in_section(pieces, p, sections[p]) is not None
        )
    )
    return Located(quote, cited, None, others)


def _in_section(
    pieces: list[str], position: int, section: tuple[str, tuple[str, ...]]
) -> Found | None:
    label, sentences = section
    head, body = stream(label, sentences)
    if len(pieces) == 1:  # a single stretch may also be the title or heading
        for words_ in (body, head):
            spans = list(_stretches(pieces[0], words_))
            if spans:
                start, end, slips = spans[0]
                return _found(position, label, sentences, [words_[start:end]], slips)
        return None
    chosen = _chain(pieces, body, 0, -1)
    if chosen is None:
        return None
    stretches = [body[start:end] for start, end, _ in chosen]
    slips = ("ellipsis", *(s for _, _, slip in chosen for s in slip))
    return _found(position, label, sentences, stretches, tuple(dict.fromkeys(slips)))


def _chain(
    pieces: list[str], body: tuple[Word, ...], index: int, after: int
) -> list[tuple[int, int, tuple[str, ...]]] | None:
    """Stretches for pieces[index:], each after the one before and at most NEARBY words on."""
    if index == len(pieces):
        return []
    for start, end, slips in _stretches(pieces[index], body):
        if after >= 0 and not after <= start <= after + NEARBY:
            continue
        rest = _chain(pieces, body, index + 1, end)
        if rest is not None:
            return [(start, end, slips), *rest]
    return None


def _stretches(piece: str, body: Sequence[Word]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Every (start, end, slips) where one stretch of a quote stands in a source's words."""
    quoted = [w for w, _, _ in words(piece)]
    content = [i for i, w in enumerate(quoted) if w not in SMALL]
    if not content:
        return []
    opening = quoted[content[0]]
    found = _from(quoted, content, body, [i for i, w in enumerate(body) if w.norm == opening])
    if not found:  # the first content word copied with a slip
        slipped = [i for i, w in enumerate(body) if w.norm != opening and _same(opening, w.norm)]
        found = _from(quoted, content, body, slipped)
    return found


def _from(
    quoted: list[str], content: list[int], body: Sequence[Word], anchors: list[int]
) -> list[tuple[int, int, tuple[str, ...]]]:
    """The stretches starting at `anchors` (where the quote's first content word stands)."""
    first, last = content[0], content[-1]
    allowed = small_edits(len(content))
    found = []
    for anchor in anchors:
        matched = _content_run(quoted, content, body, anchor)
        if matched is None:
            continue
        end_anchor, changed = matched
        best: tuple[int, int, int] | None = None  # (edits, start, end)
        for start in _edges(len(quoted[:first]), allowed, body, anchor, -1):
            for end in _edges(len(quoted[last + 1 :]), allowed, body, end_anchor, 1):
                source = [w.norm for w in body[start : end + 1]]
                pairs = _paired(quoted, source)
                copied = [source_word if swap else w for w, source_word, swap in pairs]
                edits = Levenshtein.distance(copied, source)
                if best is None or edits < best[0]:
                    best = (edits, start, end + 1)
        if best is None or best[0] > allowed:
            continue
        edits, start, end = best
        slips = [*(["small word"] if edits else []), *changed]
        found.append((start, end, tuple(dict.fromkeys(slips))))
    return found


def _content_run(
    quoted: list[str], content: list[int], body: Sequence[Word], anchor: int
) -> tuple[int, list[str]] | None:
    """The source index of the quote's last content word when all of them follow `anchor` in
    order with only small words between; and the slips among them."""
    changed: list[str] = []
    at = anchor
    for n, index in enumerate(content):
        if n:
            at += 1
            while at < len(body) and body[at].norm in SMALL:
                at += 1
        if at >= len(body):
            return None
        slip = _same(quoted[index], body[at].norm)
        if slip is None:
            return None
        if slip:
            changed.append(slip)
    if len(changed) > 1 + len(content) // 10:
        return None
    return at, changed


@lru_cache(maxsize=65536)
def _same(copied: str, source: str) -> str | None:
    """ "" when a copied content word is the source's, the slip when it is close enough (its
    stem, or one letter of a long word), None when it is another word (never a figure)."""
    if copied == source:
        return ""
    if abs(len(copied) - len(source)) > 4 or _DIGIT.search(copied) or _DIGIT.search(source):
        return None
    if stem(copied) == stem(source):
        return "word form"
    if min(len(copied), len(source)) >= 5 and Levenshtein.distance(copied, source) <= 1:
        return "spelling"
    return None


def _edges(count: int, allowed: int, body: Sequence[Word], anchor: int, step: int) -> range:
    """Where a stretch may end beside a match: taking in between count - allowed and
    count + allowed of the source's small words there (a quote's edge may add or drop a few),
    from the nearest to the farthest."""
    at, taken = anchor, 0
    while taken < count + allowed:
        nxt = at + step
        if not 0 <= nxt < len(body) or body[nxt].norm not in SMALL:
            break
        at, taken = nxt, taken + 1
    lowest = anchor + step * min(taken, max(0, count - allowed))
    return range(lowest, at + step, step)


def _paired(quoted: list[str], source: list[str]) -> list[tuple[str, str, bool]]:
    """Quote words with the source word a slip stands for (so a slip is not also counted as
    an edit): content words pair up in order."""
    content = iter(w for w in source if w not in SMALL)
    out = []
    for word in quoted:
        if word in SMALL:
            out.append((word, word, False))
            continue
        source_word = next(content, word)
        out.append((word, source_word, source_word != word))
    return out


def small_edits(content_words: int) -> int:
    """Small words a stretch may add, drop or change: one, and one more per eight content
    words."""
    return 1 + content_words // 8


def _found(
    position: int,
    label: str,
    sentences: tuple[str, ...],
    stretches: Sequence[Sequence[Word]],
    slips: tuple[str, ...],
) -> Found:
    texts = [_original(label, sentences, stretch) for stretch in stretches]
    spanned = sorted({w.sentence for s in stretches for w in s if w.sentence != LABEL})
    return Found(position, tuple(spanned), " … ".join(texts), slips)


def _original(label: str, sentences: tuple[str, ...], stretch: Sequence[Word]) -> str:
    """The source's own text of a run of its words (across sentences: joined by a space)."""
    parts: list[str] = []
    for index in dict.fromkeys(w.sentence for w in stretch):
        inside = [w for w in stretch if w.sentence == index]
        text = label if index == LABEL else sentences[index]
        parts.append(text[inside[0].start : inside[-1].end])
    return " ".join(parts)
