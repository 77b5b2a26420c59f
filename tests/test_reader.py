"""The reader (generate/reader.py): a question tower trained here, run on onnxruntime with the
bundled model's graph and its own fitted layers, read by the answer models as one column."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from sitecite.embed.base import Embedder
from sitecite.errors import EmbedError
from sitecite.generate.features import FEATURES
from sitecite.generate.ranker import default_ranker
from sitecite.generate.reader import Reader, default_reader, reader_folder
from sitecite.pipeline import Engine, answer


def shipped() -> Reader:
    reader = default_reader()
    assert reader is not None, "the package ships a reader (training.train_reader --write)"
    return reader


def test_the_reader_runs_its_fitted_layers_not_the_bundled_ones(embedder: Embedder) -> None:
    reader = shipped()
    question = "Why did she go freelance?"
    vector = reader.question_vector(question)
    bundled = embedder.embed_query(question)
    assert vector.shape == bundled.shape and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    # the same model underneath, its top layers fitted: near the bundled vector, not on it
    assert 0.5 < float(vector @ bundled) < 0.995
    assert reader.reads(embedder.id) and not reader.reads("hashing")


def test_the_reader_reads_an_answer_above_a_sentence_that_only_shares_its_topic(
    embedder: Embedder,
) -> None:
    reader = shipped()
    cases = [
        (
            "Why did she go freelance?",
            "She went freelance in 2021 because she wanted to choose her own projects.",
            "Freelance work is a topic she writes about often on this blog.",
        ),
        (
            "How many people use the app?",
            "The app now has about 40,000 weekly users.",
            "The app is one of the projects I'm proudest of.",
        ),
    ]
    for question, answers, about in cases:
        sentences = embedder.embed([answers, about])
        bundled = sentences @ embedder.embed_query(question)
        scores = reader.scores(reader.question_vector(question), sentences, bundled)
        assert scores[0] > scores[1], (question, scores)


def test_the_shipped_models_read_the_readers_column(engine: Engine) -> None:
    assert "reader" in FEATURES and "reader" in default_ranker().features
    result, trace = answer(engine, "How many warehouses does Quayline run?")
    assert result.outcome == "answered"
    check = next(c for c in trace.checks if c.name == "direct")
    assert check.data["features"]["lead_reader"] != 0.0  # read, not left at 0


def copy_of_shipped(tmp_path: Path) -> Path:
    folder = tmp_path / "reader"
    shutil.copytree(reader_folder(), folder)
    return folder


def test_a_card_of_another_version_says_how_to_refit(tmp_path: Path) -> None:
    folder = copy_of_shipped(tmp_path)
    card = json.loads((folder / "card.json").read_text())
    (folder / "card.json").write_text(json.dumps({**card, "version": 99}))
    with pytest.raises(EmbedError, match=r"card.json: reader card version 99.*train_reader"):
        Reader(folder)
    (folder / "card.json").write_text(json.dumps({"version": 1, "base_model": "x"}))
    with pytest.raises(EmbedError, match=r"card.json: not a reader card"):
        Reader(folder)


def test_unreadable_weights_name_the_file(tmp_path: Path) -> None:
    folder = copy_of_shipped(tmp_path)
    (folder / "layers.npz").write_bytes(b"not a numpy archive")
    with pytest.raises(EmbedError, match=r"layers.npz"):
        Reader(folder)


def test_the_judge_reads_an_answer_above_a_sentence_that_only_shares_its_topic() -> None:
    reader = shipped()
    assert reader.pair is not None, "the package ships a judge (training.train_judge --write)"
    question = "Why did she go freelance?"
    answers = "She went freelance in 2021 because she wanted to choose her own projects."
    about = "Freelance work is a topic she writes about often on this blog."
    assert reader.judge(question, answers) > reader.judge(question, about)


def test_the_judge_orders_held_back_answers_above_their_pages_other_answers() -> None:
    """Real pairs the judge was not fitted on: each test-half question of the answer data with
    its own answer sentence and the answer of another question about the same page (the same
    topic, a different fact). A judge that reads orders most of them; chance is half. The
    shipped judges order 81% of these 400 (docs/history.md, "The whole chain on the more
    answer data"), where two invented pairs in a test could go either way."""
    import random
    from collections import defaultdict

    from bench._common import answerdata_half, answerdata_rows

    reader = shipped()
    pages: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for site, _, row in answerdata_rows():
        held_back = answerdata_half(site, row["question"]) == "test"
        if row["answerable"] and row["answer_sentences"] and held_back:
            pages[(site, row["page"])].append(row)
    rng = random.Random(0)
    pairs = []
    for _, rows in sorted(pages.items()):
        for row in rows:
            gold = set(row["answer_sentences"])
            others = [r for r in rows if r is not row and not gold & set(r["answer_sentences"])]
            if others:
                other = rng.choice(others)["answer_sentences"][0]
                pairs.append((row["question"], row["answer_sentences"][0], other))
    rng.shuffle(pairs)
    pairs = pairs[:400]
    assert len(pairs) == 400
    ordered = 0
    for question, own, other in pairs:
        logits = reader.judge_all(question, [own, other])
        ordered += int(logits[0] > logits[1])
    assert ordered >= 0.75 * len(pairs), f"{ordered} of {len(pairs)} ordered"


def test_the_judge_reads_a_long_sentence() -> None:
    reader = shipped()
    # the sentence is cut, not the call: a sentence far past max_tokens is read
    assert np.isfinite(reader.judge("What does she do?", "She writes code. " * 200))


def test_the_judge_reads_sentences_of_any_length_together_as_it_reads_each_alone() -> None:
    """Pairs run in one padded batch (`judge_all`) get the logits each gets alone."""
    reader = shipped()
    question = "Which database does the app use?"
    sentences = ["It uses PostgreSQL.", "The app has been running since 2019 on a small VPS. " * 3]
    together = reader.judge_all(question, sentences)
    alone = [reader.judge(question, sentence) for sentence in sentences]
    assert together.shape == (2,) and together[0] != together[1]
    np.testing.assert_allclose(together, alone, atol=1e-4)
    assert reader.judge_all(question, []).shape == (0,)


def test_the_direct_model_reads_the_judge(engine: Engine) -> None:
    from sitecite.generate.extractive import default_direct

    assert "lead_judge" in default_direct().features
    result, trace = answer(engine, "How many warehouses does Quayline run?")
    check = next(c for c in trace.checks if c.name == "direct")
    assert check.data["features"]["lead_judge"] != 0.0  # read, not left at 0


def test_a_card_naming_a_judge_without_its_weights_names_the_file(tmp_path: Path) -> None:
    folder = copy_of_shipped(tmp_path)
    (folder / "judge.npz").unlink()
    with pytest.raises(EmbedError, match=r"judge.npz"):
        Reader(folder)


def test_a_scale_without_its_matrix_names_the_file_and_the_name(tmp_path: Path) -> None:
    folder = copy_of_shipped(tmp_path)
    np.savez(folder / "judge.npz", **{"encoder.layer.0.output.dense.weight.scale": np.ones(3)})
    with pytest.raises(EmbedError, match=r"judge.npz: 'encoder.layer.0.output.dense.weight.scale'"):
        Reader(folder)
