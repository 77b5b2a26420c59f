"""Answer quality on real sites, as minimum figures rather than exact words: the dev halves of
three of the shared sites (../shared/data/sites), answered as served, graded as
`python -m bench.site_answers` grades them. A refit or a rule that costs more than the
margin below today's figures fails here; the full figures are in docs/results.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_data

from sitecite.config import Settings, load_settings
from sitecite.embed import Embedder

pytestmark = [pytest.mark.quality, pytest.mark.slow]

SITES = ("jarvis", "shazow", "alanaktion")  # the quickest three to index, three generators


@pytest.fixture(scope="module")
def graded(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> list:
    from bench import site_answers
    from sitecite.eval.questions import index_source_ids, load_question_set
    from sitecite.index.build import build_index
    from sitecite.pipeline import Engine, answer

    for site in SITES:
        shared_data("sites", site)  # skips, naming the folder, when the data is absent
    settings: Settings = load_settings({}, config_file=None, environ={})  # the defaults
    results = []
    for site in SITES:
        index_dir: Path = tmp_path_factory.mktemp(f"{site}-index")
        build_index(site_answers.site_content(site), index_dir, embedder)
        engine = Engine.load(index_dir, settings)
        path = site_answers.question_file(site, "dev")
        assert path is not None
        questions = load_question_set(path, index_source_ids(engine.index.sections))
        for question in questions.questions:
            results.append(site_answers.grade(question, answer(engine, question.question)[0]))
    return results


def test_a_right_answer_or_the_right_page_for_most_answerable_questions(graded: list) -> None:
    from bench.site_answers import figures

    f = figures(graded)
    assert f["answer_or_page"] >= 0.85 * f["answerable"], f


def test_direct_answers_are_mostly_right_and_bait_is_never_answered(graded: list) -> None:
    from bench.site_answers import figures

    f = figures(graded)
    assert f["direct"] >= 3, f  # some questions are answered directly at all
    assert f["direct_right"] >= 0.7 * f["direct"], f
    assert f["bait_answered"] <= 0.1 * f["bait"], f
    assert f["adversarial_answered"] == 0, f
