"""Children that take Ctrl-C even where the test run itself ignores it."""

from __future__ import annotations

import signal


def ctrl_c_enabled() -> None:
    """``preexec_fn`` for a child the test interrupts with SIGINT: a shell starts background jobs
    with SIGINT ignored, the child inherits that, and a Python started so never raises
    ``KeyboardInterrupt`` (its Ctrl-C tests then fail for a reason that is not the code's)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
