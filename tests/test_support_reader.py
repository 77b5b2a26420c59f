"""The support reader (verify/support_reader.py): a pair model trained here on written claims,
run on onnxruntime with the bundled model's graph, read by the verifier's models as one column."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_verify import make_evidence

from sitecite.errors import EmbedError
from sitecite.verify import Verifier
from sitecite.verify.model import QUOTED_MODEL_FILE, shipped_model
from sitecite.verify.support_reader import (
    READ,
    SupportReader,
    default_support_reader,
    support_folder,
)

REPO = Path(__file__).resolve().parents[1]


def shipped() -> SupportReader:
    reader = default_support_reader()
    assert reader is not None, "the package ships a support reader (training.train_support)"
    return reader


def held_back_lines() -> list[dict]:
    """The written claims the fit never read: their sentence stands in a source of a test half
    of the labelled replies (training/train_support.py leaves them out)."""
    from training.train_support import SUPPORTDATA, _plain, test_sources

    sources = test_sources()
    out = []
    for path in sorted(SUPPORTDATA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            if any(_plain(item["sentence"]) in s for s in sources):
                out.append(item)
    return out


def test_held_back_faithful_claims_read_above_the_unsupported_claims_of_their_sentence() -> None:
    lines = held_back_lines()
    assert len(lines) >= 100
    reader = shipped()
    right = total = 0
    for item in lines:
        claims = [c for c in item["claims"] if c["label"] in ("faithful", "unsupported")]
        logits = reader.logits([(c["text"], item["sentence"]) for c in claims])
        faithful = [x for x, c in zip(logits, claims, strict=True) if c["label"] == "faithful"]
        for x, c in zip(logits, claims, strict=True):
            if c["label"] == "unsupported" and faithful:
                right += faithful[0] > x
                total += 1
    assert total >= 300 and right / total >= 0.9, (right, total)  # 618 of 633 at the fit


def test_a_claim_is_read_the_same_alone_and_beside_others() -> None:
    reader = shipped()
    grounds = "In April 2021 I went independent, and I now consult on web performance."
    claims = ["She went independent in April 2021.", "She joined Google in 2021."]
    together = reader.logits([(c, grounds) for c in claims])
    alone = np.array([reader.logits([(c, grounds)])[0] for c in claims])
    assert np.allclose(together, alone, atol=1e-4)
    assert reader.logits([]).shape == (0,)


def test_the_verifier_gives_each_claim_the_readers_logit(embedder) -> None:
    evidence = make_evidence(embedder)  # tests/test_verify.py's four hand-made sections
    result = Verifier().verify("Search results came back in 86 ms at p95 [1].", evidence)
    claim = result.sentences[0]
    assert claim.grounds and claim.features is not None
    assert READ in claim.features and claim.features[READ] != 0.0
    shipped_models = (shipped_model(), shipped_model(QUOTED_MODEL_FILE))
    assert all(READ in model.features for model in shipped_models)


def test_a_missing_reader_names_its_card(tmp_path: Path) -> None:
    with pytest.raises(EmbedError, match=r"cannot read the support reader's card .*card.json"):
        SupportReader(tmp_path / "nowhere")


def copy_of_shipped(tmp_path: Path) -> Path:
    folder = tmp_path / "support"
    shutil.copytree(support_folder(), folder)
    return folder


def test_a_card_of_another_version_says_how_to_refit(tmp_path: Path) -> None:
    folder = copy_of_shipped(tmp_path)
    card = json.loads((folder / "card.json").read_text())
    (folder / "card.json").write_text(json.dumps({**card, "version": 99}))
    with pytest.raises(EmbedError, match=r"card.json: support reader card version 99.*train_sup"):
        SupportReader(folder)
    (folder / "card.json").write_text(json.dumps({"version": 1}))
    with pytest.raises(EmbedError, match=r"card.json: not a support reader card"):
        SupportReader(folder)


def test_unreadable_weights_name_the_file(tmp_path: Path) -> None:
    folder = copy_of_shipped(tmp_path)
    (folder / "weights.npz").write_bytes(b"not a numpy archive")
    with pytest.raises(EmbedError, match=r"weights.npz"):
        SupportReader(folder)
