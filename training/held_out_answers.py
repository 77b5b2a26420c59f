"""The answer figures of every site with the site left out of every fit.

`bench.site_answers` answers with the shipped models, which read the dev half of every site's
answer data; its test-half figures are of sites whose other half the fit saw. Here each site's
questions are answered by the extractive generator as serving makes it, but with the ranker,
the answerability model, the follower and the direct model each fitted on the OTHER sites'
rows (training/train_ranker.py, train_answerable.py, train_direct.py, from their cached rows),
and graded and tabled as `bench.site_answers` does. The thresholds are the shipped ones: each
was chosen on held-out-site predictions already.

    python -m training.held_out_answers [--set answerdata|sites] [--half H] [--site S ...] [--json]

`--set sites` answers the six real sites' own question sets instead (`--half test` or
`held`, as `bench.site_answers --half` reads them).

Run after the three fits (it reads their caches under .sitecite/bench/).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from bench.site_answers import SITES, answerdata_file, figures, grade, print_table, question_file


def held_out_site(
    site: str, half: str, groups: Any, found: Any, rows: Any, answerdata: bool = True
) -> dict[str, Any]:
    """The site's half of the answer data (or of its question set) answered with models that
    never read the site."""
    from sitecite.eval.questions import index_source_ids, load_question_set
    from sitecite.generate.extractive import DIRECT_FEATURES, default_direct
    from sitecite.pipeline import answer
    from training import train_direct
    from training._answerdata import fitting_setup, site_engine

    settings, embedder = fitting_setup()
    engine = site_engine(site, embedder, settings)
    direct = train_direct.fit([r for r in rows if r.site != site], DIRECT_FEATURES)
    direct.about["threshold"] = default_direct().threshold
    generator = train_direct.held_out_generator(site, engine, groups, found, direct)
    path = answerdata_file(site, half, engine.index.page_ids) if answerdata else None
    path = path or question_file(site, half)
    if path is None:
        return {"error": f"no {half} questions"}
    questions = load_question_set(path, index_source_ids(engine.index.sections)).questions
    graded = [grade(q, answer(engine, q.question, generator=generator)[0]) for q in questions]
    return figures(graded)


def main(argv: Sequence[str] | None = None) -> int:
    from training import train_direct
    from training._decisions import decisions
    from training._ranker_data import FITTED_SITES
    from training._ranker_data import collect as ranker_groups

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sets = ["answerdata", "sites"]
    parser.add_argument("--set", choices=sets, default="answerdata", dest="which")
    parser.add_argument("--half", choices=["test", "dev", "held"], default="test")
    parser.add_argument("--site", action="append", help="only this site (repeat for more)")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args(argv)
    answerdata = args.which == "answerdata"
    if answerdata and args.half == "held":
        parser.error("the answer data has dev and test halves only")
    groups, _ = ranker_groups(True)
    found = decisions(True)
    rows, _ = train_direct.collect(True)
    result = {
        site: held_out_site(site, args.half, groups, found, rows, answerdata)
        for site in args.site or (FITTED_SITES if answerdata else SITES)
    }
    print_table(result, f"{args.half} (each site left out of every fit)")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
