"""``--executor ray``: episodes spread over a Ray cluster, the driver the single writer of the run store.

:class:`RayRunner` is a runner for :func:`toolprism.run.run_episodes` (``runner=``): each call sends
one episode to a Ray worker as one task and awaits its trace; the driver scores and records it, so
the store has exactly one writer. An :class:`~toolprism.run.EpisodeSpec` travels pickled (about
5 KB: the domain, task, variant and perturbation instances as built by the plan); a worker builds
the backend from the run configuration (``model``, ``base_url``, ``tool_format``) once per worker process and runs
:func:`~toolprism.run.run_episode` on an event loop of its own, so a trace equals a local run's
for the same spec and a deterministic backend (timings aside: ``duration_ms``, ``latency_ms``).

A worker process lost mid-episode (killed, out of memory, node gone) is retried once on another
worker; if it is lost again the episode ends as the backend failing
(:class:`~toolprism.errors.BackendError`, see :meth:`RayRunner.__call__`); the other episodes go on.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import threading
from typing import TYPE_CHECKING, Any

from toolprism.backends import Backend, EpisodeContext, Message, ModelTurn, create_backend
from toolprism.errors import BackendError, ConfigError
from toolprism.run._episode import MAX_TURNS, EpisodeSpec, constrain_mode, run_episode
from toolprism.run._trace import Trace
from toolprism.schema import JSON

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolprism.evaluation import RunConfig

INSTALL_HINT = 'pip install -e ".[ray]"'
CONNECT_TIMEOUT_S = 5.0
"""How long the driver waits for a cluster address to accept a connection before giving up (Ray
itself retries for minutes)."""
LOST_RETRIES = 1
"""Times Ray reruns an episode whose worker process was lost (a Python exception is not retried)."""

_WORKER: dict[Any, Any] = {}
"""Per worker process: its event loop (``"loop"``) and the backends built there, by their
:func:`~toolprism.backends.create_backend` arguments."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            f"--executor ray needs Ray, which is not installed: {INSTALL_HINT}", what="executor"
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    """Refuse at once a ``host:port`` or ``ray://host:port`` address nothing listens on.

    Raises:
        ConfigError: no connection within :data:`CONNECT_TIMEOUT_S`.
    """
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", "local" and the like: Ray's to resolve
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise ConfigError(f"cannot reach the Ray cluster at {address!r}: {e}", what="executor") from None


def _keeping_sigterm(start: Any) -> None:
    """Call ``start`` (``ray.init``), then put back the SIGTERM handler Ray replaces with a bare
    ``sys.exit`` (the CLI's stops a run cleanly, with the resume hint)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    try:
        start()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run_on_worker(spec: EpisodeSpec, backend: Backend | None, build: dict[str, Any], max_turns: int) -> Trace:
    """The Ray task: one episode on this worker process, with ``backend`` or the one built here from
    from the :func:`~toolprism.backends.create_backend` arguments ``build``, on the process's own
    event loop (a backend's client stays bound to one loop)."""
    if backend is None:
        key = tuple(sorted(build.items()))
        if key not in _WORKER:
            _WORKER[key] = create_backend(**build)
        backend = _WORKER[key]
    loop = _WORKER.get("loop")
    if loop is None:
        loop = _WORKER["loop"] = asyncio.new_event_loop()
    return loop.run_until_complete(run_episode(spec, backend, max_turns=max_turns))


class _Lost:
    """A backend whose every turn fails with ``cause``, standing in for a worker that was lost:
    running the episode through it gives the trace the episode loop records for a backend failure
    (or raises it, where the loop does not record backend failures)."""

    def __init__(self, backend: Backend, cause: BackendError) -> None:
        self.name = backend.name
        self._backend = backend
        self._cause = cause

    def settings(self) -> dict[str, JSON]:
        return self._backend.settings()

    def agent(self, context: EpisodeContext) -> _Lost:
        return self

    async def respond(self, messages: Sequence[Message], tools: Sequence[JSON]) -> ModelTurn:
        raise self._cause


class RayRunner:
    """Runs episodes on a Ray cluster: ``await runner(spec)`` returns the episode's trace.

    Connects with ``ray.init(address=address)``; with no address Ray connects to ``$RAY_ADDRESS``
    or a cluster started on this machine (``ray start --head``), else starts a local instance
    with one worker slot per CPU. A Ray already initialised in this process is used as it is.
    Every node needs the same toolprism (and the backend's dependencies) installed, and a domain
    pack file at the same path.

    Args:
        config: the run configuration; its ``model``, ``base_url``, ``tool_format`` and the
            ``constrain`` of its mitigations (:func:`toolprism.run.constrain_mode`) name the
            backend each worker builds (environment options, such as ``TOOLPRISM_HF_*``, are
            read on the worker).
        address: a Ray cluster address (``ray://host:10001``, ``host:6379``, ``auto``); None:
            see above.
        max_turns: model turns per episode.
        backend: a backend to run instead of the one ``config.model`` names (a scripted agent);
            it is pickled to the workers.
        num_cpus: CPUs one episode reserves on its worker node (Ray's ``num_cpus``): 1 runs one
            episode per CPU; a fraction lets several I/O-bound episodes share one.

    Raises:
        ConfigError: Ray is not installed (with the install hint) or the cluster cannot be
            reached; ``backend`` does not pickle.
    """

    def __init__(
        self,
        config: RunConfig,
        *,
        address: str | None = None,
        max_turns: int = MAX_TURNS,
        backend: Backend | None = None,
        num_cpus: float = 1,
    ) -> None:
        ray = self._ray = _import_ray()
        self._started = not ray.is_initialized()
        if self._started:
            if address:
                _check_reachable(address)
            try:
                _keeping_sigterm(
                    lambda: ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING)
                )
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = f"at {address!r}" if address else "(local)"
                raise ConfigError(f"cannot start or reach the Ray cluster {where}: {e}", what="executor") from None
        self._build = {"model": config.model, "base_url": config.base_url, "tool_format": config.tool_format}
        if (constrain := constrain_mode(config.mitigations)) != "none":  # as the driver's backend is built
            self._build["constrain"] = constrain
        self._max_turns = max_turns
        self._backend = backend
        try:
            self._shipped = None if backend is None else ray.put(backend)
        except Exception as e:  # cloudpickle raises whatever the object's state raises
            self.close()
            raise ConfigError(f"backend {backend.name!r} cannot be sent to Ray workers: {e}", what="executor") from None
        self._task = ray.remote(_run_on_worker).options(num_cpus=num_cpus, max_retries=LOST_RETRIES)
        self._inflight: set[Any] = set()

    @property
    def slots(self) -> int:
        """Episodes the cluster can run at once now (its CPUs; at least 1)."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    async def __call__(self, spec: EpisodeSpec) -> Trace:
        """Run one episode on a worker and return its trace (cancelling this cancels the Ray task).

        Raises:
            ConfigError, BackendError, or any other exception the episode raised on the worker,
            as a local run would raise it. A worker lost twice (see :data:`LOST_RETRIES`) is a
            :class:`BackendError` given to the episode loop on the driver: where the loop records
            backend failures (end ``backend_error``) that trace is returned, else it is raised.
        """
        ray = self._ray
        ref = self._task.remote(spec, self._shipped, self._build, self._max_turns)
        self._inflight.add(ref)
        try:
            return await ref
        except ray.exceptions.RayTaskError as e:  # the episode itself raised: as a local run would
            raise (e.cause if isinstance(e.cause, Exception) else e) from None
        except ray.exceptions.RayError as e:  # the worker (or its node) was lost
            lost = BackendError(f"Ray worker lost while running {spec.episode_id}: {type(e).__name__}: {e}")
        except asyncio.CancelledError:
            ray.cancel(ref, force=True)
            raise
        finally:
            self._inflight.discard(ref)
        return await run_episode(spec, _Lost(self._driver_backend(), lost), max_turns=self._max_turns)

    def _driver_backend(self) -> Backend:
        """The backend as the driver sees it (for the settings a trace records)."""
        if self._backend is None:
            self._backend = create_backend(**self._build)
        return self._backend

    def close(self) -> None:
        """Cancel the episodes still running and shut Ray down if this runner started it."""
        ray = self._ray
        for ref in list(self._inflight):
            ray.cancel(ref, force=True)
        self._inflight.clear()
        if self._started and ray.is_initialized():
            ray.shutdown()
        self._started = False
