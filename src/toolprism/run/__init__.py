"""The episode loop, the asynchronous runner and the run store."""

from toolprism.run._episode import MAX_TURNS, EpisodeSpec, initial_messages, run_episode
from toolprism.run._store import EpisodeResult, RunStore
from toolprism.run._suite import Scorer, run_episodes
from toolprism.run._trace import CallRecord, Trace, TurnRecord

__all__ = [
    "MAX_TURNS",
    "CallRecord",
    "EpisodeResult",
    "EpisodeSpec",
    "RunStore",
    "Scorer",
    "Trace",
    "TurnRecord",
    "initial_messages",
    "run_episode",
    "run_episodes",
]
