"""Fitting the reader's question tower with torch (training time only; serving runs onnxruntime).

The reader scores a candidate sentence for a question by the cosine of two vectors: the
sentence's, which the index already holds (the bundled MiniLM's, made at index time), and the
question's, made by a copy of MiniLM whose top layers are fitted here. Fitting moves a question
towards the sentences that answer it and away from the sentences of the site's closest sections
that do not, and learns one more number, the cosine above which a sentence answers at all (the
"no answer" option every question is scored against), from the near misses.

The lower layers stay the bundled model's, so their outputs for each question are computed once
(`Encoded`) and only the top layers run in each step.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from training._reader_data import Question

MAX_TOKENS = 64


@dataclass(frozen=True)
class FitConfig:
    """The record of a fit: every number that changes what it learns."""

    trainable_layers: int = 3
    epochs: int = 3
    batch: int = 16
    lr: float = 5e-5
    scale: float = 20.0  # cosine -> logit
    null_cosine: float = 0.45  # the "no answer" option's starting cosine
    null_lr: float = 1e-2
    mix: bool = True  # also read the bundled model's cosine of the question and the sentence
    seed: int = 13


def torch_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)


def load_model(model_dir: Any) -> tuple[Any, Any]:
    """The bundled MiniLM as a torch BertModel, and its tokenizer."""
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(str(model_dir), add_pooling_layer=False)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    model.eval()
    return model, tokenizer


@dataclass
class Encoded:
    """Every question's hidden states below the fitted layers (frozen, computed once)."""

    hidden: list[Any]  # per question: tokens x hidden, float32 tensors
    masks: list[Any]


def encode_lower(model: Any, tokenizer: Any, texts: list[str], frozen_layers: int) -> Encoded:
    import torch

    hidden, masks = [], []
    with torch.no_grad():
        for start in range(0, len(texts), 64):
            chunk = texts[start : start + 64]
            batch = tokenizer(
                chunk, padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt"
            )
            states = model.embeddings(input_ids=batch["input_ids"])
            extended = _extended_mask(batch["attention_mask"])
            for layer in model.encoder.layer[:frozen_layers]:
                states = run_layer(layer, states, extended)
            for row in range(len(chunk)):
                length = int(batch["attention_mask"][row].sum())
                hidden.append(states[row, :length].clone())
                masks.append(torch.ones(length, dtype=torch.long))
    return Encoded(hidden, masks)


def run_layer(layer: Any, states: Any, extended: Any) -> Any:
    """One BERT layer (transformers 5 returns a tensor, 4 a tuple)."""
    out = layer(states, attention_mask=extended)
    return out[0] if isinstance(out, tuple) else out


def _extended_mask(mask: Any) -> Any:
    import torch

    return (1.0 - mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min


def top_forward(layers: Any, encoded: Encoded, rows: list[int]) -> Any:
    """Question vectors (unit rows) from the fitted top layers, for the questions `rows`."""
    import torch
    from torch.nn.utils.rnn import pad_sequence

    states = pad_sequence([encoded.hidden[r] for r in rows], batch_first=True)
    mask = pad_sequence([encoded.masks[r] for r in rows], batch_first=True)
    extended = _extended_mask(mask)
    for layer in layers:
        states = run_layer(layer, states, extended)
    weights = mask[:, :, None].to(states.dtype)
    pooled = (states * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


class Tower:
    """The fitted top layers and the "no answer" cosine."""

    def __init__(self, model: Any, config: FitConfig) -> None:
        import copy

        import torch

        self.config = config
        frozen = len(model.encoder.layer) - config.trainable_layers
        self.frozen_layers = frozen
        self.layers = torch.nn.ModuleList(
            [copy.deepcopy(layer) for layer in model.encoder.layer[frozen:]]
        )
        self.null = torch.nn.Parameter(torch.tensor(config.null_cosine))
        self.base_weight = torch.nn.Parameter(torch.tensor(0.0))

    def parameters(self) -> list[Any]:
        return [*self.layers.parameters()]

    def extras(self) -> list[Any]:
        return [self.null, self.base_weight]

    def cosines(self, q: Any, sentences: Any, base: Any = None) -> Any:
        """Candidate scores for one question vector (`base`: the bundled model's cosines)."""
        cos = sentences @ q
        if self.config.mix and base is not None:
            cos = cos + self.base_weight * base
        return cos

    def vectors(self, encoded: Encoded, rows: list[int]) -> np.ndarray:
        import torch

        self.layers.eval()
        out = []
        with torch.no_grad():
            for start in range(0, len(rows), 64):
                out.append(top_forward(self.layers, encoded, rows[start : start + 64]).numpy())
        return np.concatenate(out) if out else np.zeros((0, 384), dtype=np.float32)


def candidate_matrix(question: Question, vectors: dict[str, Any], retrieved_only: bool) -> Any:
    rows = [c.sentence_row for c in question.candidates if c.retrieved or not retrieved_only]
    return vectors[question.site][rows]


def fit(
    model: Any,
    encoded: Encoded,
    questions: list[Question],
    sentence_vectors: dict[str, np.ndarray],
    config: FitConfig,
    log: Any = print,
    base_vectors: np.ndarray | None = None,
) -> Tower:
    """Fit the top layers listwise: each question's candidates and the "no answer" option,
    softmax over scaled cosines; the gold sentences (or, for a near miss, "no answer") are the
    target. `base_vectors` are the questions' vectors by the bundled model (for `mix`)."""
    import torch

    random.seed(config.seed)
    torch.manual_seed(config.seed)
    tower = Tower(model, config)
    tower.layers.train()
    optimiser = torch.optim.AdamW(
        [
            {"params": tower.parameters(), "lr": config.lr, "weight_decay": 0.01},
            {"params": tower.extras(), "lr": config.null_lr, "weight_decay": 0.0},
        ]
    )
    usable = [i for i, q in enumerate(questions) if q.candidates or not q.answerable]
    steps = config.epochs * ((len(usable) + config.batch - 1) // config.batch)

    def warm_then_decay(step: int) -> float:
        return min(1.0, (step + 1) / (0.1 * steps + 1)) * max(0.0, 1 - step / steps)

    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, warm_then_decay)
    candidates = [
        torch.from_numpy(np.ascontiguousarray(candidate_matrix(q, sentence_vectors, False)))
        for q in questions
    ]
    labels = [torch.from_numpy(q.labels) for q in questions]
    bases = (
        [
            torch.from_numpy(np.ascontiguousarray(candidates[n].numpy() @ base_vectors[n]))
            for n in range(len(questions))
        ]
        if base_vectors is not None
        else [None] * len(questions)
    )
    step = 0
    for epoch in range(config.epochs):
        order = usable[:]
        random.shuffle(order)
        total = 0.0
        for start in range(0, len(order), config.batch):
            rows = order[start : start + config.batch]
            q = top_forward(tower.layers, encoded, rows)
            losses = []
            for n, row in enumerate(rows):
                cos = tower.cosines(q[n], candidates[row], bases[row])
                logits = torch.cat([cos, tower.null.view(1)]) * config.scale
                target = torch.cat([labels[row], torch.tensor([not questions[row].answerable])])
                if not bool(target.any()):
                    continue
                losses.append(torch.logsumexp(logits, 0) - torch.logsumexp(logits[target], 0))
            if not losses:
                continue
            loss = torch.stack(losses).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            total += float(loss.detach())
        null = float(tower.null.detach())
        log(f"epoch {epoch + 1}: loss {total / max(1, step):.4f}, null {null:.3f}")
    tower.layers.eval()
    return tower
