"""Benchmarks: each module measures one thing and prints a table (`--json`: one JSON object).

Run them as modules from the repository root, e.g. `python -m bench.speed`; they import the
installed package and each other as `bench.<module>`, and never fit what the package ships
(that is `training/`).
"""
