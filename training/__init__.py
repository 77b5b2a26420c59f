"""What fits the weights sitecite ships, one module per shipped file (training/README.md).

Run them as modules from the repository root, e.g. `python -m training.train_ranker --write`.
They read the benchmarks' data loaders and replay code (`bench.*`); the benchmarks never import
from here.
"""
