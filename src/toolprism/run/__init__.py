"""The episode loop, the asynchronous runner and the run store."""

from toolprism.run._episode import MAX_TURNS, EpisodeSpec, initial_messages, run_episode
from toolprism.run._store import STORE_VERSION, EpisodeResult, RunConfigRecord, RunHeader, RunStore
from toolprism.run._suite import Scorer, run_episodes
from toolprism.run._trace import (
    CALL_RECORD,
    TRACE_VERSION,
    AnsweredCallRecord,
    CallOutcome,
    CallRecord,
    EpisodeEnd,
    ExecutedCallRecord,
    FailedCallRecord,
    RejectedCallRecord,
    Trace,
    TurnRecord,
    upgrade_trace,
)

__all__ = [
    "CALL_RECORD",
    "MAX_TURNS",
    "STORE_VERSION",
    "TRACE_VERSION",
    "AnsweredCallRecord",
    "CallOutcome",
    "CallRecord",
    "EpisodeEnd",
    "ExecutedCallRecord",
    "FailedCallRecord",
    "RejectedCallRecord",
    "EpisodeResult",
    "EpisodeSpec",
    "RunConfigRecord",
    "RunHeader",
    "RunStore",
    "Scorer",
    "Trace",
    "TurnRecord",
    "initial_messages",
    "run_episode",
    "run_episodes",
    "upgrade_trace",
]
