"""The episode loop, the asynchronous runner and the run store."""

from toolprism.run._episode import MAX_TURNS, EpisodeSpec, initial_messages, reply_content, run_episode
from toolprism.run._pins import changed_tasks, pin_tasks, run_pins, verify_run_tasks
from toolprism.run._ray import RayRunner
from toolprism.run._store import STORE_VERSION, DomainPins, EpisodeResult, RunConfigRecord, RunHeader, RunStore
from toolprism.run._suite import RunLimits, Runner, RunProgress, RunStopped, Scorer, run_episodes, trace_tokens
from toolprism.run._trace import (
    CALL_RECORD,
    TRACE_VERSION,
    UNSCORED_ENDS,
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
    "UNSCORED_ENDS",
    "AnsweredCallRecord",
    "CallOutcome",
    "CallRecord",
    "DomainPins",
    "EpisodeEnd",
    "ExecutedCallRecord",
    "FailedCallRecord",
    "RejectedCallRecord",
    "RayRunner",
    "EpisodeResult",
    "EpisodeSpec",
    "RunConfigRecord",
    "RunHeader",
    "RunLimits",
    "RunProgress",
    "RunStopped",
    "RunStore",
    "Runner",
    "Scorer",
    "Trace",
    "TurnRecord",
    "changed_tasks",
    "initial_messages",
    "reply_content",
    "pin_tasks",
    "run_episode",
    "run_episodes",
    "run_pins",
    "trace_tokens",
    "verify_run_tasks",
    "upgrade_trace",
]
