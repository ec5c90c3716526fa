"""``python -m toolprism``: the same command line as ``toolprism``."""

from toolprism.cli import main

main()
