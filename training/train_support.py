"""Fit the verifier's support reader: does this source text bear this claim, read together?

The verifier's logistic models (training/train_verifier.py) read words: how much of a claim
its sources use, which figures and names they hold. A claim that keeps its source's words and
changes what they mean (an entity swapped, a detail blended in, a polarity flipped) reads
alike to them. The support reader reads the claim and the source words it rests on as one
input, `[CLS] claim [SEP] grounds [SEP]` (at most MAX_TOKENS word pieces, the grounds cut),
through a copy of MiniLM whose six layers and a linear head are fitted, as the reader's judge
is (training/train_judge.py, whose fitting code this reuses), with binary cross-entropy: its
logit is high when the grounds bear the claim. The grounds are what the verifier read the
claim against (`SentenceVerdict.grounds`): for a quoted sentence the whole sentences its
quotes stand in, for an unquoted one the one or two source sentences it rests on most.

The pairs: the written claims of training/supportdata (sixteen shared sites; each source
sentence with its faithful, hard faithful and unsupported claims, and a wrong-quote claim
(kind e) also paired with the sentence that does bear it), and pairs made from them in a
reply's shape (`augmented`), less every line whose sentence stands in a source of the labelled
replies' test halves. Both sides are read as serving reads them (`support_reader.as_read`).
The labelled replies are never read by the fit: its logit is one more column
(`support_reader`) of the verifier's logistic models, fitted on the replies' dev halves by
train_verifier, so those rows must be new to it.

    python -m training.train_support [--init judge|bundled] [--write] [--json]

`--init judge` (the default) starts from the reader's judge (src/sitecite/data/reader/
judge.npz), which already reads a question and a sentence together; `bundled` from the bundled
MiniLM. Reported: the logit's AUC on the labelled replies' dev halves (quoted and unquoted).
`--write` writes src/sitecite/data/support/ (`weights.npz` and `card.json`).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench._common import CACHE, REPO, console
from sitecite.verify.support_reader import as_read

SUPPORTDATA = REPO / "training" / "supportdata"
TARGET = REPO / "src" / "sitecite" / "data" / "support"
ROWS = CACHE / "support" / "replies.json"
SEED = 0
REPORT = CACHE / "support" / "report.json"


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def test_sources() -> list[str]:
    """The plain text of every source of the labelled replies' test halves."""
    from bench._replies import load
    from training.train_verifier import DEFAULT_FILES, QUOTED_FILES

    out = []
    for path in [*DEFAULT_FILES, *QUOTED_FILES]:
        if path.exists():
            for record in load(path):
                if record.split == "test":
                    sources = record.data.get("sources", "")
                    out.append(_plain(json.dumps(sources, ensure_ascii=False)))
    return out


def pairs() -> tuple[list[tuple[str, str, str, float, str]], int]:
    """(site, claim, grounds, 1.0 if the grounds bear it, kind) of every written claim and of
    the pairs made from them (`augmented`), and how many source sentences were left out for
    standing in a test half's source."""
    sources = test_sources()
    lines, left = [], 0
    for path in sorted(SUPPORTDATA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            if any(_plain(item["sentence"]) in s for s in sources):
                left += 1
            else:
                lines.append(item)
    out = []
    for item in lines:
        sentence = item["sentence"]
        for claim in item["claims"]:
            bears = claim["label"] != "unsupported"
            kind = claim.get("kind", claim["label"])
            out.append((item["site"], claim["text"], sentence, float(bears), kind))
            if claim.get("kind") == "e" and claim.get("other_sentence"):
                out.append((item["site"], claim["text"], claim["other_sentence"], 1.0, "e+"))
    out += augmented(lines)
    return [(site, as_read(c), as_read(g), y, kind) for site, c, g, y, kind in out], left


CLAUSE = re.compile(r",\s+|;\s+|:\s+|\s+(?:and|but|while|which|so)\s+")


def augmented(lines: Sequence[dict[str, Any]]) -> list[tuple[str, str, str, float, str]]:
    """Pairs shaped like a reply's, made from the written ones (seeded): a part of a source
    sentence read against it (a reply often states one clause of a sentence: borne), or the
    sentence itself when it has no part to take (a reply may copy it whole); a claim
    read against its sentence beside another of its page (grounds of two sentences: borne, or
    not, as the claim is); and a faithful claim read against another sentence of its page alone
    (a claim cited to the wrong sentence: not borne)."""
    generator = np.random.default_rng(SEED)
    pages: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for item in lines:
        pages.setdefault((item["site"], item["page"]), []).append(item)
    out = []
    for item in lines:
        site, sentence = item["site"], item["sentence"]
        words = len(sentence.split())
        parts = [p for p in CLAUSE.split(sentence) if 5 <= len(p.split()) <= 0.8 * words]
        if parts:
            part = parts[int(generator.integers(len(parts)))].strip().rstrip(".") + "."
            out.append((site, part[0].upper() + part[1:], sentence, 1.0, "part"))
        else:  # a reply may copy a sentence whole
            out.append((site, sentence, sentence, 1.0, "copy"))
        others = [o for o in pages[(site, item["page"])] if o["sentence"] != sentence]
        if not others:
            continue
        other = others[int(generator.integers(len(others)))]["sentence"]
        grounds = f"{sentence} {other}" if generator.random() < 0.5 else f"{other} {sentence}"
        faithful = [c["text"] for c in item["claims"] if c["label"] == "faithful"]
        wrong = [c["text"] for c in item["claims"] if c["label"] == "unsupported"]
        if faithful:
            out.append((site, faithful[0], grounds, 1.0, "two"))
            out.append((site, faithful[0], other, 0.0, "other"))
        if wrong:
            out.append((site, wrong[int(generator.integers(len(wrong)))], grounds, 0.0, "two"))
    return out


def reply_rows() -> list[dict[str, Any]]:
    """Every labelled sentence of the replies the verifier measures, with its grounds (cached:
    replaying them takes about a minute)."""
    if ROWS.exists():
        return list(json.loads(ROWS.read_text(encoding="utf-8")))
    from sitecite.verify import SupportModel, Verifier
    from training.train_verifier import DEFAULT_FILES, QUOTED_FILES, feature_names, rows_of

    out = []
    for quoted, files in ((False, DEFAULT_FILES), (True, QUOTED_FILES)):
        recorder = SupportModel.blank(feature_names(quoted, reader=False))
        verifier = Verifier(model=recorder, decide=False, quoted_model=recorder)
        for path in files:
            if not path.exists():
                console().print(f"[yellow]{path}: absent, skipped[/]")
                continue
            for r in rows_of(path, verifier, quoted):
                if r.features is None or r.hard or not r.grounds:
                    continue
                out.append(
                    {
                        "file": r.file,
                        "split": r.split,
                        "text": r.text,
                        "grounds": r.grounds,
                        "unsupported": r.unsupported,
                        "kind": r.kind,
                        "quoted": quoted,
                    }
                )
    ROWS.parent.mkdir(parents=True, exist_ok=True)
    ROWS.write_text(json.dumps(out), encoding="utf-8")
    return out


def initialised(model: Any, init: str) -> Any:
    """The model with the reader's judge's layers in place of its own (`init` "judge")."""
    import torch

    if init == "bundled":
        return model
    from sitecite.embed.pair import stored_weights

    weights = stored_weights(REPO / "src" / "sitecite" / "data" / "reader" / "judge.npz")
    state = {
        name.removeprefix("encoder."): torch.from_numpy(value)
        for name, value in weights.items()
        if name.startswith("encoder.")
    }
    missing = model.encoder.load_state_dict(state, strict=False)
    if missing.unexpected_keys:
        raise SystemExit(f"judge.npz: unexpected weights {missing.unexpected_keys[:3]}")
    return model


def measure(logits: np.ndarray, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    from sklearn.metrics import roc_auc_score

    out: dict[str, Any] = {}
    for quoted in (False, True):
        for split in ("dev", "test"):
            chosen = [
                i for i, r in enumerate(rows) if r["quoted"] == quoted and r["split"] == split
            ]
            y = np.array([rows[i]["unsupported"] for i in chosen], dtype=int)
            if len(set(y)) < 2:
                continue
            name = f"{'quoted' if quoted else 'unquoted'} {split}"
            out[name] = {"rows": len(y), "auc": round(float(roc_auc_score(y, -logits[chosen])), 4)}
    return out


def save(reader: Any, sites: Sequence[str], init: str, report: dict[str, Any]) -> None:
    """The fitted reader's weights and card into the package (sitecite.verify.support_reader)."""
    from training import train_judge

    TARGET.mkdir(parents=True, exist_ok=True)
    np.savez(TARGET / "weights.npz", **reader.tensors())
    card = {
        "version": 1,
        "scale": train_judge.SCALE,
        "max_tokens": train_judge.MAX_TOKENS,
        "about": {
            "what": "does the grounds text bear the claim: [CLS] claim [SEP] grounds [SEP]",
            "command": "python -m training.train_support --write",
            "fitted_on": f"training/supportdata: {', '.join(sites)}",
            "pairs": report["pairs"],
            "init": init,
            "config": {
                "epochs": train_judge.EPOCHS,
                "batch": train_judge.BATCH,
                "lr": train_judge.RATE,
                "head_lr": train_judge.HEAD_RATE,
                "seed": reader.seed,
            },
            "seconds": report["seconds"],
        },
    }
    (TARGET / "card.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    from sitecite.embed.bundled import bundled_minilm_path
    from training import train_judge
    from training._reader_fit import load_model, torch_threads

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--init", choices=("judge", "bundled"), default="judge")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    torch_threads(train_judge.THREADS)
    started = time.perf_counter()
    found, left = pairs()
    rows = reply_rows()
    console().print(f"{len(found)} pairs ({left} source sentences left out); {len(rows)} replies")
    model, tokenizer = load_model(bundled_minilm_path())
    model = initialised(model, args.init)
    labels = np.array([p[3] for p in found])
    asked = [("reply", as_read(r["text"]), as_read(r["grounds"])) for r in rows]
    states = train_judge.lower_states(model, tokenizer, [*found, *asked])
    reader = train_judge.fit(model, states, labels, list(range(len(found))))
    logits = train_judge.judged(reader, states, list(range(len(found), len(states))))
    report = measure(logits, rows)
    report.update(pairs=len(found), left_out=left, init=args.init)
    report["seconds"] = round(time.perf_counter() - started)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=1), encoding="utf-8")
    np.save(REPORT.with_name(f"logits-{args.init}.npy"), logits)
    if args.write:
        save(reader, sorted({p[0] for p in found}), args.init, report)
    for name, value in report.items():
        console().print(f"{name}: {value}")
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
