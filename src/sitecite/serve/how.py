"""The "how it works" page: the pipeline as an inline SVG diagram, and the settings in force.

Settings are shown as they are, except secrets: API keys, tokens and passwords are replaced by
whether they are set, and credentials inside URLs are removed.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from sitecite.config import Settings
from sitecite.pipeline import Engine
from sitecite.serve.pages import layout, site_name

_SECRET_KEY = re.compile(
    r"(api_?key|token|secret|password|passwd|authori[sz]ation|credential)$", re.I
)
_SECRET_PARAM = re.compile(r"(key|token|secret|password|passwd|signature|sig|auth)", re.I)
REDACTED = "(set, hidden)"


def redact(value: Any, key: str = "") -> Any:
    """A copy of a settings value that is safe to publish."""
    if _SECRET_KEY.search(key):
        return REDACTED if value else "(not set)"
    if isinstance(value, dict):
        return {name: redact(item, name) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item, key) for item in value]
    if isinstance(value, str) and "://" in value:
        return _redact_url(value)
    return value


def public_embedder(embedder_id: str) -> str:
    """The embedder's id as a page may show it: a local model directory by its name only."""
    local = "://" not in embedder_id and Path(embedder_id).expanduser().exists()
    return Path(embedder_id).name if local else embedder_id


def _redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rsplit("@", 1)[-1]
        query = urlencode(
            [
                (name, "REDACTED" if _SECRET_PARAM.search(name) else item)
                for name, item in parse_qsl(parts.query, keep_blank_values=True)
            ]
        )
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    except ValueError:
        return "(unparseable URL, hidden)"


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for name, value in data.items():
        if isinstance(value, dict) and value and not _SECRET_KEY.search(name):
            rows += _flatten(value, f"{prefix}{name}.")
        else:
            rows.append((f"{prefix}{name}", value))
    return rows


def _show(value: Any) -> str:
    if value is None:
        return "(default)"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value) or "(none)"
    return str(value) if value != "" else "(not set)"


def settings_table(settings: Settings) -> str:
    rows = _flatten(redact(settings.model_dump()))
    body = "".join(
        f'<tr><th scope="row"><code>{escape(name)}</code></th><td>{escape(_show(value))}</td></tr>'
        for name, value in rows
    )
    return f'<table class="settings"><caption>Settings in force</caption>{body}</table>'


def _box(x: int, y: int, width: int, title: str, detail: str, kind: str = "step") -> str:
    return (
        f'<g class="{kind}"><rect x="{x}" y="{y}" width="{width}" height="{BOX_HEIGHT}" rx="10"/>'
        f'<text x="{x + width // 2}" y="{y + 27}" class="title">{escape(title)}</text>'
        f'<text x="{x + width // 2}" y="{y + 47}" class="detail">{escape(detail)}</text></g>'
    )


def _arrow(*points: tuple[int, int]) -> str:
    """A line through `points` with an arrow head at the last one."""
    path = " ".join(f"{'M' if n == 0 else 'L'}{x},{y}" for n, (x, y) in enumerate(points))
    return f'<path class="flow" d="{path}" marker-end="url(#arrow)"/>'


BOX_WIDTH, BOX_GAP, BOX_HEIGHT = 150, 30, 64
BUILD_Y, ANSWER_Y, OUTCOME_Y = 40, 190, 330


def _x(column: int) -> int:
    return 20 + column * (BOX_WIDTH + BOX_GAP)


def _centre(column: int) -> int:
    return _x(column) + BOX_WIDTH // 2


def pipeline_svg(engine: Engine) -> str:
    """Two rows: how the index is built, and how a question becomes an answer or a refusal."""
    settings = engine.settings
    build = [
        ("content", "Markdown, HTML, data", "data"),
        ("ingest", "pages, tables to prose", "step"),
        ("chunk", f"{len(engine.index.sections)} sections", "step"),
        ("embed", engine.embedder.id.rsplit("/", 1)[-1], "step"),
        ("index", f"id {engine.index.id}", "data"),
    ]
    answer = [
        ("question", "from the widget", "data"),
        ("retrieve", f"dense + BM25, top {settings.k}", "step"),
        ("gate", f"cosine ≥ {engine.threshold:.3f}", "step"),
        ("generate", settings.generator, "step"),
        ("verify", "citations, numbers", "step"),
    ]
    middle = BOX_HEIGHT // 2
    parts = []
    for steps, y in ((build, BUILD_Y), (answer, ANSWER_Y)):
        for column, (title, detail, kind) in enumerate(steps):
            parts.append(_box(_x(column), y, BOX_WIDTH, title, detail, kind))
            if column:
                parts.append(
                    _arrow((_x(column) - BOX_GAP, y + middle), (_x(column) - 4, y + middle))
                )
    elbow = BUILD_Y + BOX_HEIGHT + 56  # index -> retrieve, below the row label
    parts.append(
        _arrow(
            (_centre(4), BUILD_Y + BOX_HEIGHT),
            (_centre(4), elbow),
            (_centre(1), elbow),
            (_centre(1), ANSWER_Y - 4),
        )
    )
    for column, title, detail, kind in (
        (2, "refusal", "“the site doesn't say”", "refuse"),
        (4, "answer", "every claim cited", "data"),
    ):
        parts.append(_box(_x(column), OUTCOME_Y, BOX_WIDTH, title, detail, kind))
        parts.append(
            _arrow((_centre(column), ANSWER_Y + BOX_HEIGHT), (_centre(column), OUTCOME_Y - 4))
        )
    labels = (
        f'<text x="20" y="{BUILD_Y - 12}" class="row">Indexing (sitecite index)</text>'
        f'<text x="20" y="{elbow - 20}" class="row">'
        "Answering (POST /api/ask): one retrieval, one trace</text>"
        f'<text x="{_centre(2) + 10}" y="{OUTCOME_Y - 22}" class="note">'
        "nothing above the gate</text>"
    )
    return f"""<svg class="pipeline" viewBox="0 0 890 {OUTCOME_Y + BOX_HEIGHT + 10}" role="img"
 aria-labelledby="svg-title svg-desc" xmlns="http://www.w3.org/2000/svg">
<title id="svg-title">The sitecite pipeline</title>
<desc id="svg-desc">Content is ingested, chunked into sections, embedded and indexed.
A question is retrieved against the index with dense and BM25 search; only sections above
the calibrated gate reach the generator; the draft is verified and returned as an answer
with citations, or as a refusal.</desc>
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7"
 orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>
{labels}{"".join(parts)}
</svg>"""


def how_page(engine: Engine) -> str:
    manifest = engine.index.manifest
    facts = [
        ("index id", engine.index.id),
        ("index updated", str(manifest.get("updated", ""))),
        ("sections", str(len(engine.index.sections))),
        ("embedder", public_embedder(engine.embedder.id)),
        ("section gate (cosine)", f"{engine.threshold:.4f}"),
        ("sentence threshold", f"{engine.sentence_threshold:.4f}"),
        ("generator", engine.settings.generator),
    ]
    facts_html = "".join(
        f'<tr><th scope="row">{escape(k)}</th><td>{escape(v)}</td></tr>' for k, v in facts
    )
    body = f"""
<section>
  <h1>How it works</h1>
  <p>Every answer comes from one function that retrieves once and returns the answer with its trace.
  A section may enter the answer only if its similarity to the question clears a threshold
  calibrated for this embedder; then the generator picks sentences from those sections and
  cites them, and a verifier checks that every number and name occurs in a cited section.
  If nothing clears the gate, the answer is a refusal and no model is called.</p>
  {pipeline_svg(engine)}
  <p>The score shown with an answer is the mean cosine similarity of the cited sections to the
  question. It says how close the sources are, not how likely the answer is to be right.</p>
</section>
<section>
  <h2>The index being served</h2>
  <table class="settings"><caption>Index</caption>{facts_html}</table>
  <h2>Settings</h2>
  <p>Secrets (API keys, tokens, credentials in URLs) are never shown.</p>
  {settings_table(engine.settings)}
</section>"""
    return layout("How it works · sitecite", body, site_name=site_name(engine.index))
