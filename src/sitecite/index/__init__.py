"""The index directory: build, incremental update, atomic swap, load."""
