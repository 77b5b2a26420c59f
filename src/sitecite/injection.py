"""Instructions planted for an AI: recognised in visitors' questions (sitecite.screen) and in
the site's own text, where a sentence that reads as an order to an assistant is quarantined.

The patterns come from real attacks (BIPIA and garak prompt sets, tests/test_injection.py):
"ignore previous instructions", "you are now...", "print your system prompt", markup that
imitates a prompt's own tags, jailbreak personas, orders about "your answer", and the usual
proof-of-compliance words. Quarantined sentences never reach a prompt, are never evidence,
and an answer sentence that repeats one is never shown.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

from sitecite.text import split_sentences
from sitecite.tokens import content_stems
from sitecite.types import Section

_I = re.IGNORECASE | re.DOTALL

INSTRUCTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, _I))
    for name, pattern in (
        (
            "ignore-instructions",
            r"\b(ignore|disregard|forget|override|bypass|skip)\b[^.?!]{0,60}"
            r"\b(instructions?|prompts?|rules|guidelines|directives?|restrictions|previous|prior|above|"
            r"everything|all of that|context|sources)\b|\b(forget|ignore)\s+about\b",
        ),
        (
            "new-instructions",
            r"\b(new|updated|additional|real|actual)\s+(instructions?|rules|task|directive)\b",
        ),
        (
            "identity-override",
            r"\byou\s+are\s+(now|no\s+longer|actually|really|going\s+to\s+(be|act|pretend))\b"
            # "You are Noor now.": a name, so not "you are available now"
            r"|\byou\s+are\s+(?-i:[A-Z])\w+(\s+(?-i:[A-Z])\w+)?\s+now\b"
            r"|\bfrom\s+now\s+on\b|\b(pretend|imagine)\s+(to\s+be|you\s+are|that\s+you)\b"
            r"|\b(act|behave|respond|answer|speak)\s+as\s+(if\s+you|an?\b|my\b|the\b)"
            r"|\blet'?s\s+(role-?play|play\s+a\s+game)\b|\brole-?play\b|\bstay\s+in\s+character\b",
        ),
        (
            "prompt-extraction",
            r"\b(system|developer|hidden|initial|original|secret|internal)\s+"
            r"(prompt|message|instructions?|rules|guidelines|configuration)\b"
            r"|\b(print|show|reveal|repeat|output|display|dump|leak|recite|list|tell\s+me|what\s+(are|were))\b"
            r"[^.?!]{0,50}\byour\s+(\w+\s+){0,2}(prompt|instructions?|rules|guidelines)\b"
            r"|\binstructions\s+(you\s+were|were\s+you)\s+given\b|\bverbatim\b",
        ),
        (
            "markup-injection",
            r"</?\s*(system|sources?|context|instructions?|assistant|user)\s*>"
            r"|\[/?(INST|SYS)\]|<<\s*SYS\s*>>|<\|im_(start|end)\|>|\bSYSTEM\s*(OVERRIDE|:)",
        ),
        (
            "jailbreak",
            r"\b(DAN|STAN|DUDE|AIM)\b(?=[^.?!]{0,80}\b(mode|anything|restrictions?|filters?|jailbreak)\b)"
            r"|\bdo\s+anything\s+now\b|\bjailbreak|\bdeveloper\s+mode\b|\bno\s+(restrictions|filters|limits|rules)\b",
        ),
        (
            "output-control",
            r"\b(reply|respond|answer|say|output|print|write|append|add|include|end)\b[^.?!]{0,40}"
            r"\b(only|exactly|just|verbatim)\b[^.?!]{0,20}\b(with|the\s+word|the\s+code|the\s+text|this)\b"
            r"|\bappend\b[^.?!]{0,60}\b(to|at)\s+the\s+end\b|\bbefore\s+you\s+answer\b",
        ),
    )
)


# Orders addressed to an assistant, as planted in web pages (BIPIA, garak), beyond the question
# screen's patterns: anything about "your answer/response", and typical assistant tasks. Not
# the verbs of a how-to's steps that no planted task in BIPIA's 150 relies on ("Create a
# bucket.", "Click the footnote...", "Instead, one has to append an end..."): they took real
# steps, and the paragraphs around them, out of the real sites' answers.
_ADDRESSED = re.compile(
    r"\byour\s+(answer|response|reply|output|summary|message|text|responses|answers|replies)\b"
    r"|\b(as\s+an?|you\s+are\s+an?|dear)\s+(ai|assistant|chatbot|language\s+model|llm)\b"
    r"|\b(ignore|disregard)\b.{0,40}\b(above|previous|prior|earlier|instructions?)\b"
    r"|^\s*(please\s+)?(write|draft|compose|translate|summari[sz]e|recommend|analy[sz]e|determine|"
    r"encrypt|encode|decode|reverse|rearrange|integrate|respond|reply|print|output|"
    r"repeat|generate|promote|advertise|provide|explain|describe|develop|suggest|"
    r"help|show|tell|give|list|replace|render|jumble|break\s+down)\s+(a|an|the|me|us|your|"
    r"this|that|these|every|all|some|up|how|what|why|which|insights?|vowels|letters|words)\b"
    r"|^\s*(reply|respond|answer)\s+(using|in|with|only)\b|^\s*(can|could|would|will)\s+you\b",
    re.IGNORECASE | re.MULTILINE,
)
_SHOUTED = re.compile(r"\b(PWNED|HACKED|OWNED|JAILBROKEN)\b")  # the usual proof-of-compliance words


def instruction_in(sentence: str) -> str:
    """What makes a sentence read as an instruction to an AI, or "" when nothing does."""
    for name, pattern in INSTRUCTION_PATTERNS:
        match = pattern.search(sentence)
        if match:
            return f"{name}: '{match.group(0)[:60]}'"
    match = _ADDRESSED.search(sentence) or _SHOUTED.search(sentence)
    return f"addressed to an assistant: '{match.group(0)[:60]}'" if match else ""


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
            rest = content_stems(" ".join([label, *(s for j, s in enumerate(sentences) if j != i)]))
            if not content_stems(sentence) & rest:
                continue
        kept.append(i)
    return kept


def quarantine_section(section: Section) -> tuple[Section, list[int], list[str]]:
    """The section with only what may be evidence (its text rebuilt from the kept sentences, a
    title or heading that gives orders blanked), the indices of the kept sentences, and what
    was left out. Sections come back question after question: the verdict is cached by what
    the section holds."""
    key = (section.id, section.hash, section.title, section.heading, section.sentences)
    with _LOCK:
        known = _QUARANTINED.get(key)
        if known is not None:
            _QUARANTINED.move_to_end(key)
            return known
    result = _quarantine_section(section)
    with _LOCK:
        _QUARANTINED[key] = result
        while len(_QUARANTINED) > QUARANTINE_CACHE:
            _QUARANTINED.popitem(last=False)
    return result


QUARANTINE_CACHE = 4096
_QUARANTINED: OrderedDict[tuple[object, ...], tuple[Section, list[int], list[str]]] = OrderedDict()
_LOCK = threading.Lock()


def _quarantine_section(section: Section) -> tuple[Section, list[int], list[str]]:
    stored = list(section.sentences)
    sentences = stored or split_sentences(section.text)
    title = "" if instruction_in(section.title) else section.title
    heading = "" if instruction_in(section.heading) else section.heading
    kept = quarantine(section.text, sentences, f"{title}. {heading}")
    removed = [s for i, s in enumerate(sentences) if i not in set(kept)]
    removed += [
        old for old, new in ((section.title, title), (section.heading, heading)) if old != new
    ]
    # The kept indices address the index's sentence vectors: a section stored without
    # sentences has none, whatever its text splits into.
    kept_rows = kept if stored else []
    if not removed:
        return section, kept_rows, []
    texts = tuple(sentences[i] for i in kept)
    kinds = section.sentence_kinds
    cleaned = replace(
        section,
        title=title,
        heading=heading,
        sentences=texts if stored else (),
        # each kept sentence keeps its kind (a heading, a link, a duplicate stay unquotable)
        kinds=tuple(kinds[i] for i in kept) if stored else (),
        text="\n".join(texts),
    )
    return cleaned, kept_rows, removed
