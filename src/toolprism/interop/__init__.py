"""Interoperability: importing other benchmarks as domain packs, exporting the suite's tasks.

- :func:`import_toolschemaspace` / :func:`write_packs`: the Action-Space Shaping paper's ToolSchemaSpace release
  (``tools.json`` + ``queries.jsonl``) as one domain pack per tool group, or one whole-catalog pack;
- :func:`import_tau2`: a tau2-bench domain (tools, ``tasks.json``, ``db.json``) as a stateful tau2 pack;
  :func:`tau2_reward` / :func:`score_tau2`: tau2's own reward (database hash, communicate checks)
  beside toolprism's multiset score;
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
from toolprism.interop._tau2 import (
    TAU2_COMMIT,
    CommunicateCheck,
    Tau2Reward,
    Tau2Row,
    communicate_checks,
    gold_hash,
    import_tau2,
    score_tau2,
    tau2_reward,
)
from toolprism.interop._toolschemaspace import (
    DEFAULT_OUT,
    WHOLE_CATALOG,
    Imported,
    import_toolschemaspace,
    write_packs,
)

__all__ = [
    "TAU2_COMMIT",
    "CommunicateCheck",
    "Tau2Reward",
    "Tau2Row",
    "communicate_checks",
    "gold_hash",
    "import_tau2",
    "score_tau2",
    "tau2_reward",
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
