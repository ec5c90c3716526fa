"""The episode loop, the asynchronous runner and the run store."""

from toolprism.run._episode import MAX_TURNS, EpisodeSpec, initial_messages, run_episode
from toolprism.run._pins import DomainPins, changed_tasks, pin_tasks, run_pins, verify_run_tasks
from toolprism.run._store import EpisodeResult, RunStore
from toolprism.run._suite import Scorer, run_episodes
from toolprism.run._trace import CallRecord, Trace, TurnRecord

__all__ = [
    "MAX_TURNS",
    "CallRecord",
    "DomainPins",
    "EpisodeResult",
    "EpisodeSpec",
    "RunStore",
    "Scorer",
    "Trace",
    "TurnRecord",
    "changed_tasks",
    "initial_messages",
    "pin_tasks",
    "run_episode",
    "run_episodes",
    "run_pins",
    "verify_run_tasks",
]
