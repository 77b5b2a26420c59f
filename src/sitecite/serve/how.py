"""The "how it works" page: the pipeline as an inline SVG diagram, told with this site's own
figures (its pages and sections, the calibrated gate, the latest evaluation run).

It is a public page, so it shows no configuration: the owner prints the settings in force with
`sitecite serve --print-settings` (sitecite.serve.public_settings).
"""

from __future__ import annotations

import logging
from html import escape
from pathlib import Path
from typing import Any

from sitecite.pipeline import Engine
from sitecite.serve.pages import layout, page_title, site_figures, site_name, site_pages

log = logging.getLogger("sitecite.serve")


def public_embedder(embedder_id: str) -> str:
    """The embedder's id as a page may show it: a local model directory by its name only."""
    local = "://" not in embedder_id and Path(embedder_id).expanduser().exists()
    return Path(embedder_id).name if local else embedder_id


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
    """Two rows: how the index is built, and how a question becomes an answer, a pointer to the
    closest sections, or a refusal."""
    build = [
        ("content", "Markdown, HTML, data", "data"),
        ("ingest", "pages, tables to prose", "step"),
        ("chunk", f"{len(engine.index.sections)} sections", "step"),
        ("embed", engine.embedder.id.rsplit("/", 1)[-1], "step"),
        ("index", f"id {engine.index.id}", "data"),
    ]
    answer = [
        ("question", "from the widget", "data"),
        ("retrieve", "meaning + words", "step"),
        ("gate", f"cosine ≥ {engine.threshold:.3f}", "step"),
        ("generate", _writer(engine)[0], "step"),
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
        (3, "closest sections", "no sure answer", "step"),
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
        f'<text x="{_centre(2) - 8}" y="{OUTCOME_Y - 22}" class="note end">'
        "nothing above the gate</text>"
    )
    return f"""<svg class="pipeline" viewBox="0 0 890 {OUTCOME_Y + BOX_HEIGHT + 10}" role="img"
 aria-labelledby="svg-title svg-desc" xmlns="http://www.w3.org/2000/svg">
<title id="svg-title">The sitecite pipeline</title>
<desc id="svg-desc">Content is ingested, chunked into sections, embedded and indexed.
A question is retrieved against the index with dense and BM25 search; only sections above
the calibrated gate reach the generator; the draft is verified and returned as an answer
with citations, as the closest sections when no answer is sure, or as a refusal.</desc>
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7"
 orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>
{labels}{"".join(parts)}
</svg>"""


def _writer(engine: Engine) -> tuple[str, str]:
    """Who writes the answer: a short label for the diagram, and a sentence for the steps."""
    if engine.settings.generator == "llm":
        return "a language model", (
            "A language model writes the answer from the admitted sections alone, naming for "
            "each sentence the source and the words it rests on."
        )
    return "sentences quoted", (
        "The answer is made of sentences quoted from the admitted sections, each labelled with "
        "its page and section and numbered with its source; nothing is paraphrased."
    )


def _gate(engine: Engine) -> str:
    """The gate's threshold and where it came from."""
    from sitecite.eval.lab import calibration_from_manifest

    shown = f"<b>{engine.threshold:.3f}</b>"
    calibration = calibration_from_manifest(engine.index.manifest, engine.embedder.id)
    if not calibration:
        return f"{shown}, the default for this embedding model (the site has not been calibrated)"
    when = str(calibration.get("calibrated") or "")[:10]
    on, off = len(calibration["on_topic"]), len(calibration["off_topic"])
    counts = f" on {on:,} questions about the site and {off:,} about other things" if on else ""
    return f"{shown}, calibrated for this site{counts}" + (f" on {escape(when)}" if when else "")


def latest_run(index_dir: Path) -> dict[str, Any] | None:
    """The newest finished evaluation run of the index, or None (none, or unreadable)."""
    from sitecite.eval.history import RunStore, history_path

    path = history_path(index_dir)
    if not path.exists():
        return None
    try:
        with RunStore(path) as store:
            runs = store.runs()
    except Exception as error:  # a broken history must not take the page down
        log.error("reading the run history for /how failed: %s", error, exc_info=error)
        return None
    return runs[-1] if runs and runs[-1].get("summary") else None


def _evaluation(run: dict[str, Any] | None) -> str:
    if run is None:
        return (
            '<p>No evaluation has been run on this site yet. The <a href="/lab">lab</a> says '
            "how to run one: a set of questions with known answers, asked through the same "
            "pipeline, every answer graded.</p>"
        )
    summary = run["summary"]
    total, passed = summary.get("total", 0), summary.get("passed", 0)
    share = f" ({passed / total:.0%})" if total else ""
    outcomes = summary.get("outcomes") or {}
    told = (
        f" {outcomes.get('answered', 0)} were answered, {outcomes.get('pointed', 0)} pointed to "
        f"the closest sections and {outcomes.get('refused', 0)} refused."
        if outcomes
        else ""
    )
    hit = (summary.get("hit@8") or {}).get("rate")
    found = (
        f" For the questions with a known source, it was among the first 8 sections found "
        f"{hit:.0%} of the time."
        if hit is not None and (summary.get("retrieval_questions") or 0)
        else ""
    )
    when = str(run.get("finished") or run.get("started") or "")[:10]
    return (
        f"<p>The latest evaluation, on {escape(when)}, asked {total} questions of the set "
        f"<i>{escape(str(run.get('question_set') or ''))}</i>: {passed} passed every check"
        f'{share}.{told}{found} The <a href="/lab">lab</a> shows each question, its answer '
        "and why it passed or failed.</p>"
    )


def how_page(engine: Engine, index_dir: Path) -> str:
    """The page for the engine serving `index_dir` (where its run history is kept)."""
    index, name = engine.index, site_name(engine.index)
    pages = len(site_pages(index))
    updated = str(index.manifest.get("updated") or "")[:16].replace("T", " ")
    whose = f"{escape(name)}'s site" if name else "this site"
    facts = [
        ("pages", f"{pages:,}"),
        ("sections", f"{len(index.sections):,}"),
        ("last indexed", f"{updated} UTC" if updated else "unknown"),
        ("index", index.id),
        ("embedding model", public_embedder(engine.embedder.id).rsplit("/", 1)[-1]),
    ]
    facts_html = "".join(
        f'<tr><th scope="row">{escape(k)}</th><td>{escape(v)}</td></tr>' for k, v in facts
    )
    body = f"""
<section class="how">
  <h1>How it works</h1>
  <p class="lead">The assistant on {whose} answers only from what the site publishes:
  <span class="figures">{site_figures(index)}</span>. Every claim links to the section it comes
  from, and when the site does not say, the assistant says so instead of guessing.</p>
  <div class="diagram">{pipeline_svg(engine)}</div>
  <h2>From a question to an answer</h2>
  <ol class="steps">
    <li><b>Search.</b> The question is compared with every section once, by meaning (an
    embedding model) and by its words (BM25), and the two rankings are combined.</li>
    <li><b>Gate.</b> Only sections at least this similar to the question go on: {_gate(engine)}.
    If none does, the reply is “The site doesn't say” and nothing is written.</li>
    <li><b>Answer.</b> {_writer(engine)[1]}</li>
    <li><b>Check.</b> Each sentence is checked against the section it cites: its numbers and
    names must be there, or the sentence is not shown.</li>
    <li><b>Reply.</b> One of three: an answer with its citations; when the site covers the topic
    but no answer is sure, the closest sections, each with its most relevant line; or a
    refusal.</li>
  </ol>
  <p>The score shown with an answer is the mean cosine similarity of the cited sections to the
  question. It says how close the sources are, not how likely the answer is to be right.</p>
  <h2>How well it answers</h2>
  {_evaluation(latest_run(index_dir))}
  <h2>The index</h2>
  <table class="facts"><caption>What is being served</caption>{facts_html}</table>
</section>"""
    return layout(page_title("How it works", name), body, site_name=name, current="/how")
