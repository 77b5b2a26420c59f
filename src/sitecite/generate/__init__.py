"""Generators: extractive (default, cannot invent) and LLM-backed (verified before it is shown)."""

from __future__ import annotations

from sitecite.config import Settings
from sitecite.embed import Embedder
from sitecite.generate.base import Context, Generator
from sitecite.generate.extractive import DEFAULT_COVERAGE_THRESHOLD, ExtractiveGenerator

__all__ = ["Context", "ExtractiveGenerator", "Generator", "make_generator"]


def make_generator(
    settings: Settings,
    sentence_threshold: float,
    embedder: Embedder,
    coverage_threshold: float = DEFAULT_COVERAGE_THRESHOLD,
) -> Generator:
    """The generator the settings ask for; the extractive one is every LLM chain's last resort."""
    extractive = ExtractiveGenerator(
        sentence_threshold,
        settings.max_answer_sentences,
        coverage_threshold,
        answerable_threshold=settings.answerable_threshold,
        direct_answers=settings.direct_answers,
    )
    if settings.generator == "extractive":
        return extractive
    from sitecite.generate.llm import make_llm_generator

    return make_llm_generator(settings, extractive, embedder)
