"""toolprism: measure how robust a tool-calling agent is to equivalent interfaces and tool faults.

The public API is grouped by concept: :mod:`toolprism.schema` (action spaces and actions),
:mod:`toolprism.shaping` (operators, variants, adapter, encoder), :mod:`toolprism.domains`
(stateful environments and tasks), :mod:`toolprism.backends` (models), :mod:`toolprism.run`
(episode loop and run store) and :mod:`toolprism.score` (schema-independent scoring).
"""

__version__ = "0.1.0"
