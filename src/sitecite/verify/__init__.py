"""Verification of a draft answer against exactly the sections its model was given, before
anyone sees it: the draft's sentences (`draft`), what the context vouches for (`sources`), how
a claim lines up with its source sentences (`align`), where a model's quotes stand in them
(`quotes`) and what a quoted sentence must be borne by (`quoted`), the exact checks
(`checks`), what the fitted support model reads about a claim (`features`, and the support
reader trained here, `support_reader`) and the model itself (`model`), and the verifier
(`verifier`)."""

from sitecite.verify.draft import NOT_ON_SITE, DraftSentence, draft_sentences, meta_clauses
from sitecite.verify.model import SupportModel
from sitecite.verify.quoted import Cite, QuotedSentence
from sitecite.verify.quotes import Found, Located, locate
from sitecite.verify.sources import Evidence, Lexicon, Reading, build_evidence, read
from sitecite.verify.verifier import CHECK_NAMES, SentenceVerdict, Verification, Verifier

__all__ = [
    "CHECK_NAMES",
    "Cite",
    "NOT_ON_SITE",
    "DraftSentence",
    "Evidence",
    "Found",
    "Lexicon",
    "Located",
    "QuotedSentence",
    "Reading",
    "SentenceVerdict",
    "SupportModel",
    "Verification",
    "Verifier",
    "build_evidence",
    "draft_sentences",
    "locate",
    "meta_clauses",
    "read",
]
