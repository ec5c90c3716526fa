"""JSON Schema (2020-12) keywords whose values are subschemas: the one table every schema walk uses."""

SUBSCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
"""Keywords whose value is one subschema (``items`` is a list in draft-07's tuple form)."""
SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
"""Keywords whose value is a list of subschemas."""
SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
"""Keywords whose value maps names (data, never keywords) to subschemas."""
