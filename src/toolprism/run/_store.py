"""The run store: a run directory with a versioned header and an SQLite database.

``header.json`` (a :class:`RunHeader`) holds the package version, git revision, seeds, model
settings and variant specs. ``results.sqlite`` has one row per finished episode (table
``episodes``) and its trace (table ``traces``, a :class:`~toolprism.run.Trace` as JSON), written in
one transaction as each episode finishes, so a crash or kill loses no finished episode and a
resumed run never records one twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from toolprism._version import __version__
from toolprism.errors import ConfigError
from toolprism.perturb import SkipRecord
from toolprism.run._episode import MAX_TURNS
from toolprism.run._trace import EpisodeEnd, Mitigation, Trace
from toolprism.shaping import Control

HEADER = "header.json"
DATABASE = "results.sqlite"
LOCK = ".lock"
"""Held (flock) by the process writing the run: see :meth:`RunStore.claim`."""
STORE_VERSION = 1


class EpisodeResult(BaseModel):
    """One row of ``episodes``: the scores of one finished episode.

    Attributes:
        episode_id: ``<task id>@<variant>[+<condition>]#<seed>`` (primary key).
        condition: the perturbations (``C2:medium``, ``A3:medium+C4:medium``), ``""`` when clean;
            success is then judged against the perturbation's expected gold.
        success / precision / recall: multiset scores (see ``toolprism.score``); where the
            domain fixes an expected result (ToolRobustBench's ``trb``), success also needs the
            final answer to state it (``result_match``).
        result_match: whether the final answer states the expected result
            (``toolprism.score.result_match``); None where it is not judged (every stateful domain).
        rejected_calls: calls the adapter rejected.
        turns: model turns used; ``end``: see :data:`~toolprism.run.EpisodeEnd`.
        actions: native actions executed.
        final_state_match: the environment ended in the state the expected gold leads to (the
            gold's actions run in order on a fresh world); None when not computed.
        scoring_error: set when the scorer crashed (the episode then counts as not scored).
        duration_ms: wall time of the episode.
        error: the cause when ``end`` is ``context_overflow`` or ``backend_error``
            (:attr:`~toolprism.run.Trace.error`); such an episode is not scored (``success``
            False, left out of every rate; see :data:`~toolprism.run.UNSCORED_ENDS`).
    """

    model_config = ConfigDict(extra="forbid")

    episode_id: str
    task_id: str
    domain: str
    variant: str
    spec: str
    condition: str = ""
    seed: int
    success: bool
    precision: float
    recall: float
    rejected_calls: int
    turns: int
    actions: int
    end: EpisodeEnd
    final_state_match: bool | None = None
    scoring_error: str | None = None
    duration_ms: float
    result_match: bool | None = None
    error: str | None = None


class RunConfigRecord(BaseModel):
    """The run configuration as a header stores it (``toolprism.RunConfig.model_dump()``).

    A field a header does not set keeps the default here (``model_fields_set`` tells which were
    written); ``toolprism.RunConfig`` validates and completes it when a run is resumed.

    Attributes:
        model / base_url: the backend name and endpoint (model None: not recorded).
        domains / variants: names (pack paths absolute), in run order (variants None: each
            domain's default).
        tasks: tasks per domain (None: all; ``"default"``: each domain's own); ``seed``: the run
            seed; ``max_turns``: per episode.
        task_kinds: the task kinds posed (None: every kind; a header written before the field
            existed reads as None, as those runs posed every kind).
        concurrency: episodes in flight; ``perturbations``: the conditions (``C2:medium``, ...).
        control: the adapter control (``strict``, ``paper``, ``loose``); a header written before
            controls existed reads as ``strict``, the only control there was.
        instruction: the calling instruction in the system prompt (``toolprism`` or ``paper``).
        mitigations: the mitigations the run applied (:data:`toolprism.run.Mitigation`); a header
            written before the field existed reads as ``[]``, as those runs applied none.
        preset: the preset the run was set up from, if any.
        tool_format: how an ``openai`` endpoint was shown the tools (``native``, ``hermes``, ...).
        cache / cache_dir: whether the run started with the response cache, and its directory
            (a resumed run uses what its own session asks for).
    """

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    base_url: str | None = None
    domains: list[str] = []
    variants: list[str] | None = []
    tasks: int | Literal["default"] | None = None
    task_kinds: list[str] | None = None
    seed: int = 0
    max_turns: int = MAX_TURNS
    concurrency: int = 1
    perturbations: list[str] = []
    control: Control = "strict"
    instruction: Literal["toolprism", "paper"] = "toolprism"
    mitigations: list[Mitigation] = []
    preset: str | None = None
    tool_format: str = "native"
    cache: bool = False
    cache_dir: str | None = None


class DomainPins(BaseModel):
    """One domain's pinned tasks in a run header (see ``toolprism.run.verify_run_tasks``).

    Attributes:
        version: the domain's ``Domain.version`` when the run was made.
        set_hash: ``task_set_hash`` of the domain's whole task set at the run's seed (None: not
            known, for pins rebuilt from the traces of a run made before pins existed).
        tasks: task id -> ``Task.content_hash``, for the tasks the run poses, in order.
    """

    model_config = ConfigDict(extra="forbid")

    version: int
    set_hash: str | None
    tasks: dict[str, str]


class RunHeader(BaseModel):
    """``header.json``: what a run is, so that it can be resumed and re-scored from its directory.

    Attributes:
        store_version: the run-directory format (:data:`STORE_VERSION`).
        toolprism_version / git_revision: the code that made the run (set by :meth:`RunStore.create`).
        config: the run configuration.
        backend: the backend's settings (open JSON, as the backend reports them).
        variant_specs: variant name → canonical spec string.
        episodes: episodes planned; ``skipped``: the (task, variant, condition) triples a
            perturbation could not apply to, with the reason.
        tasks: domain name -> its pinned tasks (None in runs made before pins existed: their
            traces' stored tasks are checked instead).
        created_at: ISO 8601 UTC time of creation.
    """

    model_config = ConfigDict(extra="forbid")

    store_version: int = STORE_VERSION
    toolprism_version: str | None = None
    git_revision: str | None = None
    config: RunConfigRecord
    backend: dict[str, Any] = {}
    variant_specs: dict[str, str] = {}
    episodes: int | None = None
    skipped: list[SkipRecord] = []
    tasks: dict[str, DomainPins] | None = None
    created_at: str | None = None


_COLUMNS = list(EpisodeResult.model_fields)
_DEFINITIONS = ", ".join(c + (" TEXT PRIMARY KEY" if c == "episode_id" else "") for c in _COLUMNS)
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS episodes ({_DEFINITIONS});
CREATE TABLE IF NOT EXISTS traces (episode_id TEXT PRIMARY KEY, trace TEXT NOT NULL);
"""


def git_revision() -> str | None:
    """The git commit of the toolprism checkout, if it runs from one."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


_READABLE = (
    "SELECT episode_id FROM traces WHERE json_valid(trace) AND json_extract(trace, '$.episode_id') = episode_id"
    " AND json_type(trace, '$.turns') = 'array' AND json_type(trace, '$.task') = 'object'"
)
"""Episodes whose trace is present and looks like that episode's trace (JSON with its id, turns
and task); a trace damaged deeper than that is reported when read."""


def _database_problem(path: Path) -> str:
    """What is wrong with a run database, read without writing to it; '' when it is readable and
    has its episodes table (every store creates it before its first episode, so a file without it
    is another program's, empty or truncated; runs stored before traces were kept have no
    ``traces`` table and still open)."""
    try:
        with contextlib.closing(sqlite3.connect(path)) as db:  # reading the schema writes nothing
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as e:
        return f"{path} is not a readable run database: {e}"
    return "" if "episodes" in tables else f"{path} is not a toolprism run database (no table 'episodes')"


class RunStore:
    """A run directory. Create with :meth:`create`, reopen with :meth:`open`.

    Raises:
        ConfigError: creating over an existing run, or opening a directory that is not a run.
    """

    def __init__(self, run_dir: Path, header: RunHeader) -> None:
        self.run_dir = Path(run_dir)
        self.header = header
        self._lock: int | None = None
        self._db = sqlite3.connect(self.run_dir / DATABASE)
        try:
            # a commit survives a crash or kill of this process without waiting for the disk (only a
            # power loss or OS crash could lose the last episodes)
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise ConfigError(
                f"{self.run_dir / DATABASE} is not a readable run database: {e}", what="run directory"
            ) from None
        present = {row[1] for row in self._db.execute("PRAGMA table_info(episodes)")}
        with self._db:  # runs written before a column existed get it, empty
            for column in (c for c in _COLUMNS if c not in present):
                default = EpisodeResult.model_fields[column].default
                literal = "NULL" if default is None else "'" + str(default).replace("'", "''") + "'"
                self._db.execute(f"ALTER TABLE episodes ADD COLUMN {column} DEFAULT {literal}")

    @classmethod
    def create(cls, run_dir: Path, header: RunHeader, *, unique: bool = False) -> RunStore:
        """Start a new run directory with ``header`` (its store version, toolprism version and git
        revision are set here).

        Args:
            unique: when the directory is taken, use ``<run_dir>-2``, ``-3``... instead of failing
                (for generated default names; the directory is claimed atomically).
        """
        run_dir = Path(run_dir)
        for attempt in range(1, 1000):
            candidate = run_dir if attempt == 1 else run_dir.with_name(f"{run_dir.name}-{attempt}")
            try:
                candidate.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                blocker = next((p for p in (candidate.parent, *candidate.parent.parents) if p.is_file()), None)
                why = f"{blocker} is a file, not a directory" if blocker else e.strerror
                raise ConfigError(f"cannot create {candidate.parent}: {why}", what="run directory") from None
            try:
                candidate.mkdir(exist_ok=not unique)
            except FileExistsError:
                if unique:
                    continue
                raise ConfigError(f"{candidate} exists and is not a directory", what="run directory") from None
            except OSError as e:
                raise ConfigError(f"cannot create {candidate}: {e.strerror}", what="run directory") from None
            run_dir = candidate
            break
        if (run_dir / HEADER).exists():
            raise ConfigError(
                f"{run_dir} already holds a run; resume it with --resume {run_dir}, or pick another --run-dir",
                what="run directory",
            )
        header = header.model_copy(
            update={"store_version": STORE_VERSION, "toolprism_version": __version__, "git_revision": git_revision()}
        )
        (run_dir / HEADER).write_text(json.dumps(header.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
        store = cls(run_dir, header)
        # a new run writes ahead (a commit appends to run.db-wal, no disk wait per episode; the log is
        # folded into the database when the store closes, and read back after a kill)
        store._db.execute("PRAGMA journal_mode = WAL")
        return store

    @classmethod
    def open(cls, run_dir: Path) -> RunStore:
        """Reopen an existing run directory (to resume or read it).

        Raises:
            ConfigError: not a directory, no header or database, a header that is not JSON, has no
                ``config``, was written by a newer store version, or does not match
                :class:`RunHeader` (every problem listed).
        """
        run_dir = Path(run_dir)
        if not run_dir.is_dir():
            raise ConfigError(f"{run_dir} is not a directory", what="run directory")
        try:
            header = json.loads((run_dir / HEADER).read_text())
        except FileNotFoundError:
            raise ConfigError(
                f"{run_dir} is not a toolprism run directory (no {HEADER})", what="run directory"
            ) from None
        except json.JSONDecodeError as e:
            raise ConfigError(f"{run_dir / HEADER} is not valid JSON: {e}", what="run directory") from None
        problems = [] if (run_dir / DATABASE).is_file() else [f"{run_dir} has no {DATABASE}"]
        if not problems and (problem := _database_problem(run_dir / DATABASE)):
            problems.append(problem)
        if not isinstance(header, dict) or not isinstance(header.get("config"), dict):
            problems.append(f"{run_dir / HEADER} has no run configuration ('config')")
        elif (version := header.get("store_version", STORE_VERSION)) != STORE_VERSION:
            problems.append(
                f"{run_dir / HEADER} has store version {version!r}; this toolprism reads version {STORE_VERSION}"
            )
        if problems:
            raise ConfigError(problems, what="run directory")
        try:
            typed = RunHeader.model_validate(header)
        except ValidationError as e:
            raise ConfigError(
                [f"{run_dir / HEADER}: {'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()],
                what="run directory",
            ) from None
        return cls(run_dir, typed)

    def finished(self) -> set[str]:
        """Ids of the episodes recorded with a readable trace that did not end in a backend error
        (one whose trace is missing or damaged, or that ended ``backend_error``, counts as not
        finished, so that resuming runs it again; a ``context_overflow`` is finished: the same
        prompt would overflow again)."""
        rows = self._db.execute(
            f"SELECT episode_id FROM episodes WHERE \"end\" IS NOT 'backend_error' AND episode_id IN ({_READABLE})"
        )
        return {row[0] for row in rows}

    def damaged(self) -> list[str]:
        """Ids of recorded episodes whose trace is missing or damaged, in recording order."""
        rows = self._db.execute(f"SELECT episode_id FROM episodes WHERE episode_id NOT IN ({_READABLE}) ORDER BY rowid")
        return [row[0] for row in rows]

    def record(self, result: EpisodeResult, trace: Trace) -> None:
        """Record one finished episode and its trace, committed at once; an earlier record of the
        same episode (one whose trace was damaged, or that ended in a backend error) is replaced,
        row and trace, so the store holds each episode once."""
        row = result.model_dump()
        with self._db:
            self._db.execute(
                f"INSERT OR REPLACE INTO episodes ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                [row[c] for c in _COLUMNS],
            )
            self._db.execute(
                "INSERT OR REPLACE INTO traces VALUES (?, ?)", (result.episode_id, trace.model_dump_json())
            )

    def results(self) -> list[EpisodeResult]:
        """Every recorded episode, in recording order."""
        rows = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM episodes ORDER BY rowid")
        return [EpisodeResult(**dict(zip(_COLUMNS, r, strict=True))) for r in rows]

    def trace(self, episode_id: str) -> Trace:
        """The stored trace of one episode.

        Raises:
            ConfigError: the trace is missing or damaged (the message says how many are, and that
                ``toolprism run --resume`` runs those episodes again), or of a trace version this
                toolprism does not read (the message names it). A version-1 trace is upgraded.
        """
        row = self._db.execute("SELECT trace FROM traces WHERE episode_id = ?", (episode_id,)).fetchone()
        what = "missing"
        if row is not None:
            try:
                return Trace.load(row[0])
            except ConfigError as e:
                if e.what == "trace version":  # a newer format, not damage: resuming would not help
                    raise ConfigError(f"episode {episode_id}: {e.problems[0]}", what="run directory") from None
                what = f"damaged ({e.problems[0]})"
        raise ConfigError(
            f"the trace of episode {episode_id} is {what}; {len(self.damaged()) or 1} episode(s) of this run have "
            f"no readable trace, and 'toolprism run --resume {self.run_dir}' runs them again",
            what="run directory",
        )

    def stored_tasks(self) -> list[dict[str, Any]]:
        """Every distinct task JSON the traces stored (as written; unreadable traces skipped)."""
        rows = self._db.execute("SELECT DISTINCT json_extract(trace, '$.task') FROM traces WHERE json_valid(trace)")
        return [task for (text,) in rows if text is not None and isinstance(task := json.loads(text), dict)]

    def claim(self) -> None:
        """Make this process the run's only writer until :meth:`close`: an exclusive lock on
        ``RUN_DIR/.lock`` (released by the kernel if the process dies, so a killed run can be
        resumed at once). Where the platform has no ``fcntl`` locks, nothing is claimed.

        Raises:
            ConfigError: another process is writing this run (its pid named).
        """
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return
        fd = os.open(self.run_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise ConfigError(
                f"{self.run_dir} is being written by another toolprism process (pid {other}); "
                "wait for it to finish, or stop it, then resume",
                what="run directory",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self._lock = fd

    def close(self) -> None:
        """Close the database (and give up the writer's lock, if this store holds it)."""
        self._db.close()
        if (fd := self._lock) is not None:
            self._lock = None
            os.close(fd)
