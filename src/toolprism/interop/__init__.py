"""Interoperability: importing other benchmarks as domain packs, exporting the suite's tasks.

- :func:`import_toolschemaspace` / :func:`write_packs`: the Action-Space Shaping paper's ToolSchemaSpace release
  (``tools.json`` + ``queries.jsonl``) as one domain pack per tool group, or one whole-catalog pack;
- :func:`export_tasks`: tasks with the oracle's encoded gold trace per variant, as JSON lines or a
  Hugging Face ``datasets`` directory;
- BFCL (loaded on first use): :func:`read_bfcl` (entries + possible answers as :class:`BfclTask`),
  :func:`bfcl_check` (BFCL's AST checker semantics over native calls, :class:`BfclVerdict`),
  :func:`import_bfcl` / :func:`bfcl_pack` (one domain pack per entry), :func:`score_bfcl_run`
  (a stored run re-scored by BFCL's checker).
"""

from typing import Any

from toolprism.interop._export import (
    FORMATS,
    HF_COLUMNS,
    ExportFormat,
    ExportSummary,
    encoded_gold,
    export_tasks,
    read_hf_records,
    task_from_json,
)
from toolprism.interop._toolschemaspace import (
    DEFAULT_OUT,
    WHOLE_CATALOG,
    Imported,
    import_toolschemaspace,
    write_packs,
)

_BFCL = (
    "BFCL_CATEGORIES",
    "BfclEpisode",
    "BfclImport",
    "BfclRow",
    "BfclRunScore",
    "BfclTask",
    "BfclVerdict",
    "Numbers",
    "bfcl_check",
    "bfcl_pack",
    "category_name",
    "gold_calls",
    "import_bfcl",
    "read_bfcl",
    "score_bfcl_run",
    "trace_calls",
)


def __getattr__(name: str) -> Any:
    """The BFCL names, imported on first use (they need the run store)."""
    if name in _BFCL:
        from toolprism.interop import _bfcl

        return getattr(_bfcl, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    *_BFCL,
    "DEFAULT_OUT",
    "WHOLE_CATALOG",
    "FORMATS",
    "HF_COLUMNS",
    "ExportFormat",
    "ExportSummary",
    "Imported",
    "encoded_gold",
    "export_tasks",
    "import_toolschemaspace",
    "read_hf_records",
    "task_from_json",
    "write_packs",
]
