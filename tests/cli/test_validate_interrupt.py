"""``toolprism validate --jobs 2`` stops on Ctrl-C or SIGTERM within seconds, with exit code 130 or
143, a one-line message and no traceback, and leaves no worker process behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _signals import ctrl_c_enabled  # tests/_signals.py

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")

SRC = Path(__file__).parents[2] / "src"
# about 40 s of work on two workers: far longer than the stop may take
COMMAND = [sys.executable, "-m", "toolprism", "validate", "-d", "tv", "--seeds", "0-3", "--jobs", "2"]


def _session(sid: int) -> list[int]:
    """Live (not zombie) processes of session ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # state, ppid, pgrp, session, ...
        if entry.name.isdigit() and int(fields[3]) == sid and fields[0] not in "ZX":
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize(
    ("signum", "group"),
    [(signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["ctrl-c-to-the-process-group", "sigterm-to-the-parent"],
)
def test_a_stop_signal_ends_validate_and_its_workers(signum: int, group: bool) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "TOOLPRISM_PROGRESS_INTERVAL": "0"}
    proc = subprocess.Popen(
        COMMAND,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=ctrl_c_enabled,
    )
    lines: list[str] = []
    progressed = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "variants: 1/" in line:
                progressed.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert progressed.wait(60), "".join(lines)
        assert len(_session(proc.pid)) >= 3, "the workers should be running"  # the parent and two workers
        if group:  # as a terminal sends Ctrl-C
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        began = time.monotonic()
        proc.wait(timeout=20)
        stopped = time.monotonic() - began
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    reader.join(5)
    deadline = time.monotonic() + 5
    while _session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _session(proc.pid)
    for pid in left:  # do not leave them running after a failure
        os.kill(pid, signal.SIGKILL)
    err = "".join(lines)
    assert not left, f"{len(left)} worker(s) outlived validate"
    assert proc.returncode == 128 + signum, err
    assert stopped < 10, err
    assert re.search(r"^interrupted: \d+ of 64 variants done \(\d+ checks, 0 failures\)$", err, re.M), err
    assert "Traceback" not in err and "Exception ignored" not in err, err
