"""What kind of text each sentence is, decided once at ingestion.

A page holds more than prose: headings, link titles and link lists, image captions, tables of
contents, "Example: ..." labels, decoration. A visitor should only ever be shown prose, list
items, table rows and profile facts; everything else may help retrieval and verification but is
never quoted as an answer. Ingestion knows the structure (a line that is only a link, an image's
alt text, a list item); this module adds what language says (a line without a verb is a
fragment, a line of arrows is decoration, the same sentence twice is a duplicate).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

PROSE = "prose"
ITEM = "item"
ROW = "row"
FACT = "fact"
SUMMARY = "summary"  # the page's own description (frontmatter summary or description)
PUBLISHED = "published"  # "<title> was published on <date>.", from the frontmatter date
HEADING = "heading"
LINK = "link"
TOC = "toc"
CAPTION = "caption"
LABEL = "label"
FRAGMENT = "fragment"
DECORATION = "decoration"
DUPLICATE = "duplicate"
CODE = "code"  # a line of a short shell block: the command a how-to gives ("npx @jakejarvis/cli")

QUOTABLE = frozenset({PROSE, ITEM, ROW, FACT, SUMMARY, PUBLISHED})
KINDS = (
    *(PROSE, ITEM, ROW, FACT, SUMMARY, PUBLISHED),
    *(HEADING, LINK, TOC, CAPTION, LABEL, FRAGMENT, DECORATION, DUPLICATE, CODE),
)

# Closed-class words that only a clause has: auxiliaries, modals, copulas, subject pronouns.
_VERB_CUES = frozenset(
    "is are was were be been being am isn't aren't wasn't weren't has have had hasn't haven't "
    "hadn't do does did don't doesn't didn't can can't cannot could couldn't will won't would "
    "wouldn't shall should shouldn't may might must i we you he she they it i'm i've i'd i'll "
    "we're we've you're you've he's she's it's they're they've there's that's let's".split()
)
# Frequent verbs that carry no auxiliary and no tell-tale ending.
_COMMON_VERBS = frozenset(
    "use uses make makes get gets go goes run runs take takes see sees need needs want wants "
    "know knows think thinks work works build builds write writes give gives keep keeps find "
    "finds try tries show shows allow allows let lets help helps become becomes seem seems "
    "mean means come comes look looks feel feels put puts say says tell tells add adds set sets "
    "provide provides include includes require requires contain contains support supports "
    "love loves hate hates like likes call calls return returns host hosts install installs "
    "create creates change changes move moves store stores send sends read reads check checks "
    "turn turns open opens leave leaves bring brings hold holds stay stays pay pays cost costs "
    "became began made got went took saw knew thought built wrote gave kept found told said "
    "came felt put ran led left brought held paid sent spent lost won met chose grew drew "
    "follow follows".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_LABEL = re.compile(r"^[\w&/().+#-]+(?:\s+[\w&/().+#-]+){0,3}:\s+\S")
_END = re.compile(r"[.!?…][\"'”’)\]]*$")
_NORMAL = re.compile(r"[\W_]+")
_NUMBERED_CAPTION = re.compile(
    r"^(table|figure|fig\.|chart|plot|image|listing)\s*\d+[a-z]?\s*[:.]", re.I
)


def has_clause(text: str) -> bool:
    """Whether the text reads as a clause: it has an auxiliary, a subject pronoun, a common verb,
    or a lower-case word with a verb's ending (-ed, -ing) after its first word."""
    raw = _WORD.findall(text)
    for position, word in enumerate(raw):
        token = word.lower().replace("’", "'")
        if token in _VERB_CUES or token in _COMMON_VERBS:
            return True
        # "Network Attached Storage" is a name; "the drives failed" has a verb
        if position and word.islower() and len(token) > 4 and token.endswith(("ed", "ing")):
            return True
    return False


def is_decoration(text: str) -> bool:
    """Nothing a reader could take as words: arrows, emoji, rules, a lone symbol."""
    return sum(ch.isalnum() for ch in text) < 2


def is_fragment(text: str) -> bool:
    """A line of running text that is not a sentence: a name, a title, a phrase without a verb.

    A line of three words or more that ends like a sentence, or has a clause, is a sentence."""
    count = len(_WORD.findall(text))
    if count < 3:
        return True
    if _END.search(text.strip()) and count >= 4:
        return False
    return not has_clause(text)


def refine(text: str, structural: str) -> str:
    """The kind of one sentence, from the kind its structure gave it and what its words say."""
    if is_decoration(text):
        return DECORATION
    if structural not in (PROSE, ITEM):
        return structural
    if structural == ITEM:
        return ITEM
    if _NUMBERED_CAPTION.match(text):
        return CAPTION
    if is_fragment(text):
        return LABEL if _LABEL.match(text) else FRAGMENT
    return PROSE


def tidy(text: str) -> str:
    """The sentence without the decoration around it: leading arrows, bullets and emoji, and
    the whitespace they leave ("→ → Cloudflare Registrar" -> "Cloudflare Registrar")."""
    start = 0
    while start < len(text) and (text[start].isspace() or _is_symbol(text[start])):
        start += 1
    return text[start:].strip()


def _is_symbol(char: str) -> bool:
    category = unicodedata.category(char)
    return category in ("So", "Sk", "Cf", "Mn") or char in "→←↑↓⇒⇐➜➔►▶•·|>*~-–—=+"


def normal_form(text: str) -> str:
    """Lower-case letters and digits only: how two copies of a sentence are recognised."""
    return _NORMAL.sub(" ", text.lower()).strip()


def mark_duplicates(sentences: Sequence[str], kinds: Sequence[str], seen: set[str]) -> list[str]:
    """Kinds with every sentence already seen (in `seen`, which is updated) marked duplicate."""
    marked = []
    for sentence, kind in zip(sentences, kinds, strict=True):
        key = normal_form(sentence)
        if kind in QUOTABLE and key in seen:
            marked.append(DUPLICATE)
            continue
        if kind in QUOTABLE:
            seen.add(key)
        marked.append(kind)
    return marked
