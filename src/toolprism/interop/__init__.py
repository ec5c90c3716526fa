"""Interoperability: importing other benchmarks as domain packs, exporting the suite's tasks.

- :func:`import_toolschemaspace` / :func:`write_packs`: the Action-Space Shaping paper's ToolSchemaSpace release
  (``tools.json`` + ``queries.jsonl``) as one domain pack per tool group, or one whole-catalog pack;
- :func:`export_tasks`: tasks with the oracle's encoded gold trace per variant, as JSON lines or a
  Hugging Face ``datasets`` directory.
"""

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

__all__ = [
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
