"""On real SciFact abstracts and the real model: sitecite's dense search is the pure-Python
cosine loop's ranking, and the benchmark's metrics agree with ranx."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import shared_data

from bench._metrics import per_query, ranked_run
from bench._scifact_data import abstract_section
from sitecite.config import RetrieveSettings
from sitecite.embed import Embedder
from sitecite.index.build import write_index
from sitecite.index.store import Index, load_index
from sitecite.retrieve import cosine_loop_search, search

ABSTRACTS = 200
QUERIES = 10


@pytest.fixture(scope="module")
def scifact_sample(
    embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Index, list[tuple[str, str, np.ndarray]], dict[str, dict[str, int]]]:
    """The first abstracts judged for a few test claims, plus unjudged ones, indexed for real."""
    root = shared_data("retrieval", "scifact")
    queries = [json.loads(line) for line in (root / "queries_test.jsonl").open()][:QUERIES]
    qrels: dict[str, dict[str, int]] = {}
    for line in (root / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    wanted = {doc for q in queries for doc in qrels.get(q["_id"], {})}
    sections = []
    with (root / "corpus.jsonl").open() as handle:
        for line in handle:
            doc = json.loads(line)
            if doc["_id"] in wanted or len(sections) < ABSTRACTS - len(wanted):
                sections.append(abstract_section(doc))
    target = tmp_path_factory.mktemp("scifact") / "index"
    write_index(sections, target, embedder, word_vectors=False)
    claims = [(q["_id"], q["text"], embedder.embed_query(q["text"])) for q in queries]
    return load_index(target, embedder.id), claims, {qid: qrels[qid] for qid, _, _ in claims}


def test_dense_search_equals_the_pure_python_cosine_loop(scifact_sample) -> None:  # type: ignore[no-untyped-def]
    index, queries, _ = scifact_sample
    rows = index.vectors.tolist()
    for _, text, vector in queries:
        hits = search(index, vector, text, 20, -1.0, RetrieveSettings(fusion="dense")).hits
        assert [index.row_of[h.section.id] for h in hits] == cosine_loop_search(
            rows, vector.tolist(), 20
        )


def test_benchmark_metrics_agree_with_ranx(scifact_sample) -> None:  # type: ignore[no-untyped-def]
    ranx = pytest.importorskip("ranx")

    index, queries, qrels = scifact_sample
    rankings = {
        qid: [h.section.id for h in search(index, vector, text, 100, -1.0, RetrieveSettings()).hits]
        for qid, text, vector in queries
    }
    ours = per_query(rankings, qrels)
    theirs = ranx.evaluate(
        ranx.Qrels(qrels),
        ranx.Run(ranked_run(rankings)),
        ["ndcg@10", "recall@10", "recall@100"],
        return_mean=False,
    )
    order = [list(qrels).index(qid) for qid in sorted(qrels)]  # ranx reports in sorted order
    for metric, values in ours.items():
        assert np.allclose(values[order], np.asarray(theirs[metric]), atol=1e-6), metric
    assert ours["ndcg@10"].mean() > 0.5  # the judged abstracts are in this small index
