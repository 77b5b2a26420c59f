"""`sitecite questions` on the shared sites: how long a 40-question set takes, what it holds,
the mechanical checks (every swapped name absent from the site's text, no two questions
closer than the duplicate cosine), and the set run through `sitecite eval` unchanged.

    python -m bench.question_sets [--sites jarvis,shazow] [--out DIR] [--seed S] [--no-eval]
                                  [--indexes DIR]

Each site is indexed from a copy of ../shared/data/sites/<site> without its evaluation files
(questions-*.json, answer-keys.json: a reader's questions and keys, not the site), once, under
.sitecite/bench/questions/. Whether the bait is really unanswerable and the answerable
questions really answered by their sources is for a reader who did not write the generator:
`--out` writes the sets for one.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import time
from collections import Counter
from pathlib import Path

import numpy as np

from bench._common import CACHE, DATA, console, require
from sitecite.config import load_settings
from sitecite.embed import embedder_for
from sitecite.eval import evaluate
from sitecite.index.build import build_index
from sitecite.pipeline import Engine
from sitecite.questions import Plan, generate_questions
from sitecite.questions.check import DUPLICATE_COSINE

SITES = ("jarvis", "timlrx", "shazow", "benbalter", "lengstorf", "alanaktion")
EVALUATION_FILES = ("questions-*.json", "answer-keys.json")
HOME = CACHE / "questions"


def site_index(site: str, settings: object) -> Path:
    """The site's index without its evaluation files, built once."""
    source = require(DATA / "sites" / site, f"the site {site}")
    content, index = HOME / "sites" / site, HOME / "indexes" / site
    if not (index / "manifest.json").exists():
        shutil.rmtree(content, ignore_errors=True)
        shutil.copytree(source, content, ignore=shutil.ignore_patterns(*EVALUATION_FILES))
        build_index(content, index, embedder_for(settings, 1))
    return index


def site_text(engine: Engine) -> str:
    return "\n".join(f"{s.title}\n{s.heading}\n{s.text}" for s in engine.index.sections).lower()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", default=",".join(SITES))
    parser.add_argument("--out", help="write each site's set to DIR/<site>.json")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-eval", action="store_true", help="skip running the sets")
    parser.add_argument(
        "--indexes", help="use DIR/<site> (built without the evaluation files) instead"
    )
    args = parser.parse_args()
    settings = load_settings({}, environ={})
    out = console()
    rows = []
    for site in args.sites.split(","):
        index = Path(args.indexes) / site if args.indexes else site_index(site, settings)
        started, cpu = time.perf_counter(), time.process_time()
        engine = Engine.load(index, settings)
        loaded, loaded_cpu = time.perf_counter() - started, time.process_time() - cpu
        cpu = time.process_time()
        made = generate_questions(engine, Plan(seed=args.seed), name=f"{site}-generated")
        generated_cpu = time.process_time() - cpu
        text = site_text(engine)
        present = [
            name
            for c in made.questions
            for name in c.absent
            if re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", text)
        ]
        questions = [c.question for c in made.questions]
        vectors = engine.embedder.embed(questions)
        similarity = vectors @ vectors.T
        np.fill_diagonal(similarity, 0.0)
        row = {
            "site": site,
            "load_s": round(loaded, 2),
            "generate_s": round(made.seconds, 2),
            "load_cpu_s": round(loaded_cpu, 2),  # on a busy machine, the time on an idle one
            "generate_cpu_s": round(generated_cpu, 2),
            "counts": dict(made.counts()),
            "kinds": dict(Counter(c.kind for c in made.questions)),
            "dropped": len(made.dropped),
            "swapped_names": sum(len(c.absent) > 0 for c in made.questions),
            "swapped_names_on_site": present,
            "max_cosine": round(float(similarity.max()), 3),
            "duplicates": int((similarity >= DUPLICATE_COSINE).sum() // 2),
        }
        if args.out:
            target = Path(args.out) / f"{site}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(made.to_json(), ensure_ascii=False, indent=2) + "\n")
        if not args.no_eval:
            HOME.mkdir(parents=True, exist_ok=True)
            path = HOME / f"{site}-set.json"
            path.write_text(json.dumps(made.to_json(), ensure_ascii=False))
            report = evaluate(path, index, settings, engine=engine, judge=None)
            by = report.summary["by_category"]
            row["passed"] = {k: f"{v['passed']}/{v['total']}" for k, v in by.items()}
            row["bait"] = report.summary["bait"]
        engine.close()
        rows.append(row)
        out.print(json.dumps(row, ensure_ascii=False))
    out.print(
        f"sets written: {sum(r['counts'].get('answerable', 0) for r in rows)} answerable, "
        f"{sum(r['counts'].get('bait', 0) for r in rows)} bait, "
        f"{sum(r['counts'].get('adversarial', 0) for r in rows)} adversarial; swapped names "
        f"found on their site: {sum(len(r['swapped_names_on_site']) for r in rows)}; "
        f"pairs at or above cosine {DUPLICATE_COSINE}: {sum(r['duplicates'] for r in rows)}"
    )


if __name__ == "__main__":
    main()
