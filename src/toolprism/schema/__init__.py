"""Schema IR: the native action space and canonical actions.

``ActionSpace`` of ``Operation``s with typed ``Param``s (JSON Schema kept per parameter);
``Action(op, args)`` is the canonical, hashable native call; ``ToolSpec`` and ``ToolCall`` are a
tool and a call at any layer of a variant.
"""

from toolprism.schema._keywords import SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_ONE
from toolprism.schema._loaders import load_catalog, load_tools
from toolprism.schema._model import (
    JSON,
    Action,
    Operation,
    Param,
    ToolCall,
    ToolSpec,
    canonical_json,
    canonical_numbers,
)
from toolprism.schema._record import ActionRecord, ToolCallRecord
from toolprism.schema._space import ActionSpace
from toolprism.schema._synth import synthesize_arguments
from toolprism.schema._tools import MAX_DEPTH, bfcl_tool_name, safe_tool_name

__all__ = [
    "SUBSCHEMA_LISTS",
    "SUBSCHEMA_MAPS",
    "SUBSCHEMA_ONE",
    "JSON",
    "MAX_DEPTH",
    "Action",
    "ActionRecord",
    "ActionSpace",
    "Operation",
    "Param",
    "ToolCall",
    "ToolCallRecord",
    "ToolSpec",
    "bfcl_tool_name",
    "canonical_json",
    "canonical_numbers",
    "load_catalog",
    "load_tools",
    "safe_tool_name",
    "synthesize_arguments",
]
