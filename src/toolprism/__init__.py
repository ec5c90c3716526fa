"""toolprism: measure how robust a tool-calling agent is to equivalent interfaces and tool faults.

The public API is grouped by concept: :mod:`toolprism.schema` (action spaces and actions),
:mod:`toolprism.shaping` (operators, variants, adapter, encoder), :mod:`toolprism.domains`
(stateful environments and tasks), :mod:`toolprism.backends` (models), :mod:`toolprism.run`
(episode loop and run store) and :mod:`toolprism.score` (schema-independent scoring).
"""

from toolprism._version import __version__

__all__ = ["RunConfig", "RunSummary", "__version__", "evaluate"]


def __getattr__(name: str) -> object:
    """Lazy facade: ``toolprism.evaluate``, ``toolprism.RunConfig``, ``toolprism.RunSummary``."""
    if name in ("evaluate", "RunConfig", "RunSummary"):
        from toolprism import evaluation

        return getattr(evaluation, name)
    raise AttributeError(f"module 'toolprism' has no attribute {name!r}")
