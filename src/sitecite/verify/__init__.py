"""Verification of a draft answer against exactly the sections its model was given, before
anyone sees it: the draft's sentences (`draft`), what the context vouches for (`sources`), how
a claim lines up with its source sentences (`align`), and the verifier itself (`verifier`)."""

from sitecite.verify.draft import NOT_ON_SITE, DraftSentence, draft_sentences, meta_clauses
from sitecite.verify.sources import Evidence, Lexicon, Reading, build_evidence, read
from sitecite.verify.verifier import (
    CHECK_NAMES,
    DEFAULT_SUPPORT_THRESHOLD,
    SentenceVerdict,
    Verification,
    Verifier,
)

__all__ = [
    "CHECK_NAMES",
    "DEFAULT_SUPPORT_THRESHOLD",
    "NOT_ON_SITE",
    "DraftSentence",
    "Evidence",
    "Lexicon",
    "Reading",
    "SentenceVerdict",
    "Verification",
    "Verifier",
    "build_evidence",
    "draft_sentences",
    "meta_clauses",
    "read",
]
