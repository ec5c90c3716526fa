"""Compute tau2-bench's own expected final-database hashes for the retail tasks (run by hand, not by pytest).

What it does is what tau2's ``EnvironmentEvaluator.calculate_reward`` does for the gold side: load the
database with tau2's ``RetailDB.load``, build ``RetailTools`` on it, call each task's
``evaluation_criteria.actions`` in order with ``use_tool`` (an action that raises is logged and skipped, as
tau2 does), and take ``RetailTools.get_db_hash()``. It imports tau2-bench's code from a source checkout
(nothing of it is copied into toolprism): tau2's package ``__init__`` pulls in its LLM stack, so the
``tau2`` package is entered without it, and only ``tau2.domains.retail`` and what it imports are loaded.

Usage (tau2 needs pydantic, loguru, deepdiff, python-dotenv, addict, docstring-parser, pyyaml, toml):

    python tests/interop/make_tau2_expected.py TAU2_SRC DB_JSON TASKS_JSON COMMIT \
        > tests/interop/data/tau2_retail_expected.json

where TAU2_SRC is the ``src`` directory of a sierra-research/tau2-bench checkout at COMMIT.
"""

from __future__ import annotations

import hashlib
import json
import sys
import types
from pathlib import Path


def main(src: str, db_path: str, tasks_path: str, commit: str) -> None:
    package = types.ModuleType("tau2")
    package.__path__ = [str(Path(src) / "tau2")]
    sys.modules["tau2"] = package
    sys.path.insert(0, src)
    import pydantic
    from loguru import logger
    from tau2.domains.retail.data_model import RetailDB
    from tau2.domains.retail.tools import RetailTools

    logger.remove()
    tasks = json.loads(Path(tasks_path).read_text())
    initial = RetailTools(RetailDB.load(db_path)).get_db_hash()
    out: dict[str, object] = {}
    for task in tasks:
        tools = RetailTools(RetailDB.load(db_path))
        errors = []
        for action in task["evaluation_criteria"]["actions"] or []:
            try:
                tools.use_tool(action["name"], **action["arguments"])
            except Exception as e:  # noqa: BLE001 - tau2 logs and goes on
                errors.append(f"{action['name']}: {e}")
        out[task["id"]] = {"final_hash": tools.get_db_hash(), "gold_errors": errors}
    digest = lambda p: hashlib.sha256(Path(p).read_bytes()).hexdigest()  # noqa: E731
    document = {
        "what": "tau2-bench's own final-database hash after each retail task's gold actions (RetailTools.get_db_hash)",
        "tau2_commit": commit,
        "pydantic": pydantic.VERSION,
        "db_sha256": digest(db_path),
        "tasks_sha256": digest(tasks_path),
        "initial_hash": initial,
        "tasks": out,
    }
    json.dump(document, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:5])
