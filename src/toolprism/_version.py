"""The package version, in a module of its own (rank 0), so that any layer can read it without
importing the ``toolprism`` facade. Keep it equal to ``version`` in pyproject.toml."""

__version__ = "0.1.0"
